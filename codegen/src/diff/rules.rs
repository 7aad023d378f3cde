//! Every rule `diff` applies: a stable id a config can name, who the change breaks, and the
//! sentence a reviewer reads. Ids never change once published; a rule is retired, not renamed.

use Category::*;

/// Who a change breaks, or that it breaks no one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// A client built on the old spec fails against a server built on the new one.
    BreaksClients,
    /// A server built on the old spec no longer meets the new spec's clients.
    BreaksServers,
    /// The wire is unchanged, but code generated from the old spec no longer compiles
    /// against the new (a renamed type, `Option` becoming `Tristate`, a new struct field).
    BreaksSource,
    /// Nothing breaks.
    Compatible,
    /// Only what the spec says about itself: docs, provenance, not-shown notes.
    Docs,
}

impl Category {
    pub const ALL: [Category; 5] = [BreaksClients, BreaksServers, BreaksSource, Compatible, Docs];

    pub fn id(self) -> &'static str {
        match self {
            BreaksClients => "breaks-clients",
            BreaksServers => "breaks-servers",
            BreaksSource => "breaks-source",
            Compatible => "compatible",
            Docs => "docs",
        }
    }

    pub fn from_id(id: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.id() == id)
    }

    /// Whether a change of this category breaks anyone.
    pub fn is_breaking(self) -> bool {
        matches!(self, BreaksClients | BreaksServers | BreaksSource)
    }
}

#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    pub id: &'static str,
    /// Who the change breaks, most affected first; `[Compatible]` or `[Docs]` when no one.
    pub categories: &'static [Category],
    /// Why the rule sits in its categories, for `diff --rules` and every report.
    pub why: &'static str,
}

impl Rule {
    /// The category a report files the finding under: the first, most affected.
    pub fn headline(&self) -> Category {
        self.categories[0]
    }

    pub fn is_breaking(&self) -> bool {
        self.categories.iter().any(|c| c.is_breaking())
    }

    /// An addition that breaks only code built on the generated Rust (a struct literal
    /// gains a field, a `match` an open enum's value): no client or server on the wire.
    /// Reports fold these, and they are notes unless the config says otherwise.
    pub fn is_additive_source_only(&self) -> bool {
        self.categories == [BreaksSource] && self.id.ends_with("-added")
    }
}

macro_rules! rules {
    ($($name:ident $id:literal [$($cat:ident),+] $why:literal;)*) => {
        $(pub const $name: &Rule = &Rule { id: $id, categories: &[$($cat),+], why: $why };)*
        /// Every rule, in the order reports list them.
        pub const ALL: &[&Rule] = &[$($name),*];
    };
}

rules! {
    // Endpoints.
    ENDPOINT_REMOVED "endpoint-removed" [BreaksClients, BreaksSource]
        "clients calling it get 404";
    ENDPOINT_ADDED "endpoint-added" [BreaksServers, BreaksSource]
        "existing servers answer 404 and their trait lacks the method";
    ENDPOINT_RENAMED "endpoint-renamed" [BreaksSource]
        "same method and path, so the wire is unchanged; the Rust method and types are renamed";
    ENDPOINT_MOVED "endpoint-moved" [BreaksClients, BreaksServers]
        "requests to the old method or path are not routed";
    API_RENAMED "api-renamed" [BreaksSource]
        "same base and versions, so the wire is unchanged; the Rust router and base are renamed";
    API_BASE_CHANGED "api-base-changed" [BreaksClients]
        "clients call the old address";
    REJECTIONS_CHANGED "rejections-changed" [BreaksClients, BreaksServers]
        "the router's own errors (401, 404, 422, …) are written in another shape, which clients read";
    REMOVED_BEFORE_SUNSET "removed-before-sunset" [BreaksClients, BreaksSource]
        "removed while its deprecation still promised it to clients";
    REMOVED_AFTER_SUNSET "removed-after-sunset" [BreaksSource]
        "removed as its deprecation announced; code still using it no longer compiles";
    // Request bodies and parameters.
    REQUEST_BODY_ADDED "request-body-added" [BreaksClients, BreaksSource]
        "clients send no body where one is now required";
    REQUEST_BODY_REMOVED "request-body-removed" [BreaksClients, BreaksSource]
        "clients send a body the server no longer reads";
    REQUEST_MEDIA_CHANGED "request-media-changed" [BreaksClients, BreaksServers]
        "the body is written in another media type";
    REQUEST_FIELD_ADDED_REQUIRED "request-field-added-required" [BreaksClients, BreaksSource]
        "clients that omit it are refused";
    REQUEST_FIELD_ADDED "request-field-added" [BreaksSource]
        "clients may go on omitting it; code building the request gains a field";
    REQUEST_FIELD_REMOVED "request-field-removed" [BreaksClients, BreaksSource]
        "clients that send it are no longer understood";
    REQUEST_FIELD_REQUIRED "request-field-required" [BreaksClients, BreaksSource]
        "clients that omit the field are refused";
    REQUEST_FIELD_OPTIONAL "request-field-optional" [BreaksServers, BreaksSource]
        "existing servers refuse requests that omit it";
    REQUEST_FIELD_NON_NULLABLE "request-field-non-nullable" [BreaksClients, BreaksSource]
        "clients that send null are refused";
    REQUEST_FIELD_NULLABLE "request-field-nullable" [BreaksServers, BreaksSource]
        "existing servers refuse null";
    REQUEST_TYPE_CHANGED "request-type-changed" [BreaksClients, BreaksServers, BreaksSource]
        "clients send, and servers read, a value of another type";
    REQUEST_TYPE_NARROWED "request-type-narrowed" [BreaksClients, BreaksSource]
        "values clients send may no longer be accepted";
    REQUEST_TYPE_WIDENED "request-type-widened" [BreaksServers, BreaksSource]
        "existing servers refuse the values now allowed";
    REQUEST_CONSTRAINT_TIGHTENED "request-constraint-tightened" [BreaksClients]
        "values clients send may now be refused";
    REQUEST_CONSTRAINT_LOOSENED "request-constraint-loosened" [BreaksServers]
        "existing servers refuse the values now allowed";
    REQUEST_CONSTRAINT_CHANGED "request-constraint-changed" [BreaksClients, BreaksServers]
        "some values clients send are now refused, and existing servers refuse some now allowed";
    PATH_PARAM_REORDERED "path-param-reordered" [BreaksClients, BreaksServers]
        "clients send each value in the place of the path where the server now reads another";
    PATH_PARAM_RENAMED "path-param-renamed" [BreaksSource]
        "the placeholder keeps its place, so the wire is unchanged; the Rust input's field is renamed";
    REQUEST_ENCODING_CHANGED "request-encoding-changed" [BreaksClients, BreaksServers]
        "a list or object is written as text another way (`ids=1,2` against `ids=1&ids=2`): each side misreads the other's";
    PARAM_MOVED "param-moved" [BreaksClients, BreaksServers]
        "the parameter travels in another part of the request";
    REQUEST_DEFAULT_CHANGED "request-default-changed" [BreaksClients]
        "clients that leave the field out get another value";
    REQUEST_ENUM_VALUE_ADDED "request-enum-value-added" [BreaksServers, BreaksSource]
        "existing servers refuse the new value of a closed enum";
    REQUEST_OPEN_ENUM_VALUE_ADDED "request-open-enum-value-added" [BreaksSource]
        "servers keep an unknown value of an open enum; matches on the Rust enum gain a case";
    REQUEST_ENUM_VALUE_REMOVED "request-enum-value-removed" [BreaksClients, BreaksSource]
        "clients that send the value are refused, or no longer understood";
    // Responses and event payloads.
    RESPONSE_FIELD_ADDED_REQUIRED "response-field-added-required" [BreaksServers, BreaksSource]
        "existing servers do not send it";
    RESPONSE_FIELD_ADDED "response-field-added" [BreaksSource]
        "clients ignore fields they do not know; code building the response gains a field";
    RESPONSE_FIELD_REMOVED "response-field-removed" [BreaksClients, BreaksSource]
        "clients that read the required field no longer get it";
    RESPONSE_OPTIONAL_FIELD_REMOVED "response-optional-field-removed" [BreaksSource]
        "clients already handle its absence; code reading it no longer compiles";
    RESPONSE_FIELD_OPTIONAL "response-field-optional" [BreaksClients, BreaksSource]
        "clients that rely on the field find it absent";
    RESPONSE_FIELD_REQUIRED "response-field-required" [BreaksServers, BreaksSource]
        "existing servers may leave it out";
    RESPONSE_FIELD_NULLABLE "response-field-nullable" [BreaksClients, BreaksSource]
        "clients that cannot read null get it";
    RESPONSE_FIELD_NON_NULLABLE "response-field-non-nullable" [BreaksClients, BreaksServers, BreaksSource]
        "clients that read null as a state never see it, and existing servers may send null";
    RESPONSE_TYPE_CHANGED "response-type-changed" [BreaksClients, BreaksServers, BreaksSource]
        "clients read, and servers write, a value of another type";
    RESPONSE_TYPE_WIDENED "response-type-widened" [BreaksClients, BreaksSource]
        "clients may receive values they do not expect";
    RESPONSE_TYPE_NARROWED "response-type-narrowed" [BreaksServers, BreaksSource]
        "existing servers may send values no longer allowed";
    RESPONSE_CONSTRAINT_LOOSENED "response-constraint-loosened" [BreaksClients]
        "clients may receive values outside what they were promised";
    RESPONSE_CONSTRAINT_TIGHTENED "response-constraint-tightened" [BreaksServers]
        "existing servers may send values no longer allowed";
    RESPONSE_CONSTRAINT_CHANGED "response-constraint-changed" [BreaksClients, BreaksServers]
        "clients may receive values outside what they were promised, and existing servers may send values no longer allowed";
    RESPONSE_DEFAULT_CHANGED "response-default-changed" [BreaksClients]
        "clients read another value where the field is left out";
    RESPONSE_ENUM_VALUE_ADDED "response-enum-value-added" [BreaksClients, BreaksSource]
        "clients refuse a value their closed enum does not know";
    RESPONSE_OPEN_ENUM_VALUE_ADDED "response-open-enum-value-added" [BreaksSource]
        "clients keep an unknown value of an open enum; matches on the Rust enum gain a case";
    RESPONSE_ENUM_VALUE_REMOVED "response-enum-value-removed" [BreaksServers, BreaksSource]
        "existing servers may still send it";
    RESPONSE_STATUS_ADDED "response-status-added" [BreaksClients, BreaksSource]
        "clients meet a success status they do not expect";
    RESPONSE_STATUS_REMOVED "response-status-removed" [BreaksServers, BreaksSource]
        "existing servers may still answer it";
    ERROR_STATUS_ADDED "error-status-added" [Compatible]
        "clients handle an error status they do not know as an error";
    ERROR_STATUS_REMOVED "error-status-removed" [Compatible]
        "clients keep handling a status they will no longer get";
    RESPONSE_MEDIA_CHANGED "response-media-changed" [BreaksClients, BreaksServers]
        "the body is written in another media type";
    RESPONSE_BODY_ADDED "response-body-added" [BreaksServers, BreaksSource]
        "existing servers answer without the body";
    RESPONSE_BODY_REMOVED "response-body-removed" [BreaksClients, BreaksSource]
        "clients that read the body get none";
    RESPONSE_HEADER_ADDED "response-header-added" [BreaksServers]
        "existing servers do not send the required header";
    RESPONSE_HEADER_REMOVED "response-header-removed" [BreaksClients]
        "clients that read the header no longer get it";
    // Auth, scopes and gates.
    AUTH_REQUIRED "auth-required" [BreaksClients]
        "clients calling without credentials are refused";
    AUTH_DROPPED "auth-dropped" [BreaksServers]
        "existing servers refuse calls without credentials";
    AUTH_SCHEME_REFUSED "auth-scheme-refused" [BreaksClients]
        "clients presenting this scheme's credential are refused";
    AUTH_SCHEME_ACCEPTED "auth-scheme-accepted" [BreaksServers]
        "existing servers refuse the newly accepted credential";
    AUTH_TOGETHER_REQUIRED "auth-together-required" [BreaksClients]
        "clients that do not send the credential as well are refused";
    AUTH_TOGETHER_DROPPED "auth-together-dropped" [BreaksServers]
        "existing servers refuse calls without the credential";
    SCOPE_REQUIRED "scope-required" [BreaksClients]
        "credentials without the scope are refused";
    SCOPE_DROPPED "scope-dropped" [BreaksServers]
        "existing servers refuse credentials without the scope";
    GATE_ADDED "gate-added" [BreaksClients]
        "teams without the feature or plan are refused";
    GATE_REMOVED "gate-removed" [BreaksServers]
        "existing servers refuse teams without the feature or plan";
    AUTH_SCHEME_REMOVED "auth-scheme-removed" [BreaksClients, BreaksSource]
        "credentials of the scheme are no longer accepted anywhere";
    AUTH_SCHEME_ADDED "auth-scheme-added" [Compatible]
        "a new way to authenticate";
    AUTH_CARRIER_CHANGED "auth-carrier-changed" [BreaksClients, BreaksServers]
        "the credential travels in another place";
    AUTH_FLOW_CHANGED "auth-flow-changed" [BreaksClients]
        "clients get or refresh their tokens at the old address";
    AUTH_FLOW_ADDED "auth-flow-added" [Compatible]
        "clients may get tokens another way too; the old ways still work";
    AUTH_FLOW_REMOVED "auth-flow-removed" [BreaksClients]
        "clients that get their tokens by the removed flow can no longer";
    AUTH_LIFETIME_SHORTENED "auth-lifetime-shortened" [BreaksClients]
        "clients holding a credential for its old lifetime see it expire early";
    AUTH_LIFETIME_LENGTHENED "auth-lifetime-lengthened" [BreaksServers]
        "existing servers expire credentials before clients expect";
    // Behaviour of endpoints.
    PAGING_CHANGED "paging-changed" [BreaksClients, BreaksServers]
        "clients follow pages another way";
    IDEMPOTENCY_CHANGED "idempotency-changed" [BreaksClients]
        "clients relying on a safe retry may now repeat an effect";
    // Types.
    MODEL_RENAMED "model-renamed" [BreaksSource]
        "the wire is unchanged; the Rust type is renamed";
    ENUM_RENAMED "enum-renamed" [BreaksSource]
        "the wire is unchanged; the Rust type is renamed";
    TYPE_REMOVED "type-removed" [BreaksSource]
        "code naming the Rust type no longer compiles";
    TYPE_ADDED "type-added" [Compatible]
        "a new type";
    MODEL_OPENED "model-opened" [BreaksSource]
        "the model may carry fields it does not list; its Rust type keeps them";
    MODEL_CLOSED "model-closed" [BreaksSource]
        "its Rust type no longer keeps unlisted fields";
    ENUM_OPENED "enum-opened" [BreaksSource]
        "unknown values are kept instead of refused; the Rust enum gains a case for them";
    ENUM_CLOSED "enum-closed" [BreaksClients, BreaksSource]
        "unknown values are refused instead of kept";
    // Events.
    EVENT_REMOVED "event-removed" [BreaksClients, BreaksSource]
        "consumers waiting for it never get it";
    EVENT_ADDED "event-added" [Compatible]
        "consumers ignore event types they do not handle";
    EVENT_TYPE_CHANGED "event-type-changed" [BreaksClients, BreaksServers]
        "deliveries name the event by another type";
    EVENT_SIGNING_CHANGED "event-signing-changed" [BreaksClients, BreaksServers]
        "receivers check signatures the sender no longer writes";
    EVENT_SIGNING_ADDED "event-signing-added" [BreaksServers]
        "receivers refuse deliveries existing senders do not sign";
    EVENT_SIGNING_REMOVED "event-signing-removed" [BreaksClients]
        "receivers refuse deliveries that come unsigned";
    // Limits.
    LIMIT_TIGHTENED "limit-tightened" [BreaksClients]
        "clients sized to the old limit may now be refused or cut short";
    LIMIT_LOOSENED "limit-loosened" [BreaksServers]
        "existing servers hold to the old, tighter limit";
    LIMIT_CHANGED "limit-changed" [BreaksClients, BreaksServers]
        "the limit is now of another kind, so clients and existing servers hold to different ones";
    RATE_LIMIT_CHANGED "rate-limit-changed" [BreaksClients, BreaksServers]
        "clients paced to the old rates may be throttled, and existing servers throttle at the old ones";
    // Deprecations.
    DEPRECATED "deprecated" [Compatible]
        "clients are told to move away; nothing breaks yet";
    UNDEPRECATED "undeprecated" [Compatible]
        "a deprecation is withdrawn";
    SUNSET_EARLIER "sunset-earlier" [BreaksClients]
        "clients planned for the announced removal date get less time";
    SUNSET_LATER "sunset-later" [Compatible]
        "clients get more time";
    // What the spec says about itself.
    PROVENANCE_CHANGED "provenance-changed" [Docs]
        "where a fact comes from changed; the fact did not";
    NOT_SHOWN_RESOLVED "not-shown-resolved" [Docs]
        "the source now states what it left open";
    NOT_SHOWN_ADDED "not-shown-added" [Docs]
        "a place the source leaves open is marked";
    DOC_CHANGED "doc-changed" [Docs]
        "documentation only";
    VERSION_CHANGED "version-changed" [Docs]
        "the spec's version";
    CHANGELOG_ADDED "changelog-added" [Docs]
        "a changelog entry";
}

/// The rule of an id, for configs and `--explain`.
pub fn by_id(id: &str) -> Option<&'static Rule> {
    ALL.iter().copied().find(|r| r.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_kebab_case_and_categorised() {
        let mut seen = std::collections::HashSet::new();
        for rule in ALL {
            assert!(seen.insert(rule.id), "{} twice", rule.id);
            assert!(
                rule.id.chars().all(|c| c.is_ascii_lowercase() || c == '-'),
                "{}",
                rule.id
            );
            let mut sorted = rule.categories.to_vec();
            sorted.sort();
            assert_eq!(sorted, rule.categories, "{}: most affected first", rule.id);
        }
    }
}
