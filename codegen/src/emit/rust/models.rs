//! Rust models: one struct per model and shape, one enum per enum, with serde attributes
//! giving the four field cases their exact wire behaviour, and a `Validate` impl each.

use super::*;

impl RustBackend<'_> {
    /// The whole models module.
    pub fn file(&mut self) -> syn::File {
        let mut items = vec![self.preamble(), validate::pattern_statics(self)];
        for (id, shape) in self.shapes.all() {
            items.push(self.model_struct(id, shape));
        }
        for e in &self.spec.enums {
            items.push(enums::enum_items(e, &self.rt));
        }
        for u in &self.spec.unions {
            self.unions.insert(u.name.clone(), u.members.clone());
        }
        // A union's members may hold unions of their own (`string | (Text | Image)[]`),
        // met only while the outer one is written: write until none is left.
        let mut written: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
        loop {
            let pending: Vec<(String, Vec<Type>)> = self
                .unions
                .iter()
                .filter(|(name, _)| !written.contains(*name))
                .map(|(name, types)| (name.clone(), types.clone()))
                .collect();
            if pending.is_empty() {
                break;
            }
            for (name, types) in pending {
                items.push(self.union_enum(&name, &types));
                written.insert(name);
            }
        }
        items.push(self.defaults_module());
        items.push(self.registry());
        let tokens = quote!(#(#items)*);
        let mut file = syn::parse2(tokens).expect("generated models parse as Rust");
        paths::make_absolute(&mut file);
        file
    }

    fn model_struct(&mut self, id: ModelId, shape: Shape) -> TokenStream {
        let model = self.spec.model(id);
        let name = self.struct_name(id, shape);
        let doc = model_doc(model, shape, self.shapes.has_variants(id));
        let fields: Vec<&Field> = model.fields.iter().filter(|f| in_shape(f, shape)).collect();
        let mut field_tokens = Vec::new();
        let mut typed = Vec::new();
        for f in &fields {
            let (tokens, inner, ty) = self.field_tokens(model, f, shape);
            field_tokens.push(tokens);
            typed.push(builders::TypedField {
                field: f,
                inner,
                ty,
            });
        }
        let extra = model.is_open().then(|| {
            quote! {
                /// Fields the source does not show, kept as sent.
                #[serde(flatten)]
                pub extra: serde_json::Map<String, serde_json::Value>,
            }
        });
        let deprecated = model.deprecated.as_ref().map(deprecated_attr);
        let validate = validate::impl_validate(self, &name, &fields, &model.groups, shape);
        let default = impl_default(&name, &model.name, &fields, model.is_open());
        let builder = default
            .is_none()
            .then(|| builders::builder(&self.rt, &name, &model.name, &typed, model.is_open()))
            .flatten();
        let derive_default = DefaultImpl::derive(&default);
        let default = DefaultImpl::written(default);
        let rt = &self.rt;
        quote! {
            #(#[doc = #doc])*
            #deprecated
            #[derive(Clone, Debug, #derive_default PartialEq, Serialize, Deserialize)]
            #[serde(remote = "Self")]
            pub struct #name {
                #(#field_tokens)*
                #extra
            }
            #rt::json_object!(#name);
            #default
            #builder
            #validate
        }
    }

    /// A field's declaration, with its value type and its type as declared.
    fn field_tokens(
        &mut self,
        model: &Model,
        f: &Field,
        shape: Shape,
    ) -> (TokenStream, TokenStream, TokenStream) {
        let ident = field_ident(&f.ident);
        let rename = (ident.to_string().trim_start_matches("r#") != f.name).then(|| {
            let wire = &f.name;
            quote!(#[serde(rename = #wire)])
        });
        let hint = union_name(&model.name, &f.name);
        let inner = match &f.ty {
            // A format enforced on requests only is a plain string in responses.
            Type::Primitive(p)
                if p.format().is_some() && !crate::ir::shapes::format_applies(f, shape) =>
            {
                quote!(String)
            }
            ty => self.value_type(ty, shape, &hint),
        };
        let (ty, serde_attr) = self.presence_wrap(inner.clone(), f, &model.name);
        let docs = field_doc(f);
        let deprecated = f.deprecated.as_ref().map(deprecated_attr);
        let tokens = quote! {
            #(#[doc = #docs])*
            #deprecated
            #rename
            #serde_attr
            pub #ident: #ty,
        };
        (tokens, inner, ty)
    }

    /// Wraps a value type in the Rust shape of its presence, with the serde attributes that
    /// give each case its wire behaviour.
    pub fn presence_wrap(
        &self,
        inner: TokenStream,
        f: &Field,
        owner: &str,
    ) -> (TokenStream, TokenStream) {
        let rt = &self.rt;
        let non_null = format!("{}::serde_helpers::present_non_null", self.rt_path);
        let nullable = format!("{}::serde_helpers::required_nullable", self.rt_path);
        let is_absent = format!("{}::Tristate::is_absent", self.rt_path);
        let default_fn = f.default.as_ref().map(|_| default_fn_path(owner, &f.ident));
        match (f.presence, default_fn) {
            (Presence::Required, _) => (inner, quote!()),
            (Presence::Optional, Some(path)) => (inner, quote!(#[serde(default = #path)])),
            (Presence::Optional, None) => (
                quote!(Option<#inner>),
                quote!(#[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = #non_null)]),
            ),
            (Presence::Nullable, _) => (
                quote!(Option<#inner>),
                quote!(#[serde(deserialize_with = #nullable)]),
            ),
            (Presence::OptionalNullable, Some(path)) => (
                quote!(Option<#inner>),
                quote!(#[serde(default = #path, deserialize_with = #nullable)]),
            ),
            (Presence::OptionalNullable, None) => (
                quote!(#rt::Tristate<#inner>),
                quote!(#[serde(default, skip_serializing_if = #is_absent)]),
            ),
        }
    }

    /// The Rust type of a value, before presence wrapping. `hint` names unions.
    pub fn value_type(&mut self, ty: &Type, shape: Shape, hint: &str) -> TokenStream {
        let rt = &self.rt;
        match ty {
            Type::Primitive(p) => match p {
                Primitive::String | Primitive::Email | Primitive::Uri | Primitive::TimeZone => {
                    quote!(String)
                }
                Primitive::Int => quote!(i64),
                Primitive::Number => quote!(f64),
                Primitive::Bool => quote!(bool),
                Primitive::Uuid => quote!(#rt::Uuid),
                Primitive::Date => quote!(#rt::Date),
                Primitive::DateTime => quote!(#rt::DateTime),
                Primitive::Object => quote!(serde_json::Map<String, serde_json::Value>),
                Primitive::Any => quote!(serde_json::Value),
                Primitive::Bytes => quote!(#rt::Bytes),
                Primitive::File => quote!(#rt::FilePart),
                // Serde writes and reads `()` as JSON `null`, and nothing else.
                Primitive::Null => quote!(()),
            },
            Type::Model(id) => {
                let name = self.struct_name(*id, shape);
                if self.boxed.contains(id) {
                    quote!(Box<#name>)
                } else {
                    quote!(#name)
                }
            }
            Type::Enum(id) => {
                let name = type_ident(&self.spec.enum_(*id).name);
                quote!(#name)
            }
            Type::List(inner, _) => {
                // A list already holds its items apart from the value that owns it.
                let inner = match **inner {
                    Type::Model(id) => {
                        let name = self.struct_name(id, shape);
                        quote!(#name)
                    }
                    _ => self.value_type(inner, shape, &format!("{hint}Item")),
                };
                quote!(Vec<#inner>)
            }
            Type::Map(inner, _) => {
                // Sorted by key, so a map serializes the same way every time.
                let inner = match **inner {
                    Type::Model(id) => {
                        let name = self.struct_name(id, shape);
                        quote!(#name)
                    }
                    _ => self.value_type(inner, shape, &format!("{hint}Value")),
                };
                quote!(std::collections::BTreeMap<String, #inner>)
            }
            Type::Union(types) => {
                let name = self.union_type_name(types, hint);
                self.unions.insert(name.clone(), types.clone());
                let name = type_ident(&name);
                quote!(#name)
            }
            Type::NamedUnion(id) => {
                let name = type_ident(&self.spec.union(*id).name);
                quote!(#name)
            }
            Type::NotShown(_) => quote!(serde_json::Value),
        }
    }

    /// The name of a union's type: the name its members give it when it is written alike in
    /// several places (`StringOrLabel`), so they share one type; else `hint`, after its owner.
    /// A union named after its place that a model, an enum or an endpoint's generated type
    /// already names (`CreateResponse` + `input` beside `create_response`'s `Input`) is
    /// `…Union`.
    fn union_type_name(&self, types: &[Type], hint: &str) -> String {
        if let Some((_, name)) = self
            .shared_unions
            .iter()
            .find(|(members, _)| members.as_slice() == types)
        {
            return name.clone();
        }
        let mut name = hint.to_string();
        while self.taken_names.contains(&name) {
            name.push_str("Union");
        }
        name
    }

    fn union_enum(&mut self, name: &str, types: &[Type]) -> TokenStream {
        let ident = type_ident(name);
        let labels: Vec<String> = types.iter().map(|t| self.type_label(t)).collect();
        let label_refs: Vec<&str> = labels.iter().map(String::as_str).collect();
        let variants = names::variant_idents(&label_refs, "");
        let tys: Vec<TokenStream> = types
            .iter()
            .enumerate()
            .map(|(i, t)| self.value_type(t, Shape::Response, &format!("{name}{i}")))
            .collect();
        let declared = self
            .spec
            .unions
            .iter()
            .find(|u| u.name == name)
            .and_then(|u| u.doc.as_deref())
            .map(doc_lines)
            .unwrap_or_default();
        let declared = quote!(#(#[doc = #declared])*);
        let blank = (!declared.is_empty()).then(|| quote!(#[doc = ""]));
        let doc = format!(" One of: {}.", labels.join(", "));
        let rt = &self.rt;
        // A member may be a deprecated model: the union itself is not deprecated.
        let deprecated_member = types
            .iter()
            .any(|t| matches!(t, Type::Model(id) if self.spec.model(*id).deprecated.is_some()));
        let allow = deprecated_member.then(|| quote!(#[allow(deprecated)]));
        let arms = validate::union_validate_arms(self, &ident, &variants, types);
        let validate = if arms.is_empty() {
            quote!(#allow impl #rt::Validate for #ident {})
        } else {
            quote! {
                #allow
                impl #rt::Validate for #ident {
                    fn validate_at(&self, loc: &mut Vec<#rt::LocPart>, out: &mut Vec<#rt::Issue>) {
                        #[allow(unreachable_patterns)]
                        match self {
                            #(#arms)*
                            _ => {}
                        }
                    }
                }
            }
        };
        let Some(tag) = self.spec.discriminator(types) else {
            return quote! {
                #declared
                #blank
                #[doc = #doc]
                #allow
                #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
                #[serde(untagged)]
                pub enum #ident {
                    #(#variants(#tys),)*
                }
                #validate
            };
        };
        let field = &tag.field;
        let string_values = tag.string_values();
        let shown: Vec<String> = match &string_values {
            Some(values) => values.iter().map(|v| v.to_string()).collect(),
            None => tag.values.iter().map(|v| v.to_json().to_string()).collect(),
        };
        let doc = format!(" One of: {}, told apart by `{field}`.", labels.join(", "));
        // A format string: braces of the spec's own text are escaped.
        let unknown = format!(
            "unknown `{}` {{other:?}}: expected one of {}",
            field.replace('{', "{{").replace('}', "}}"),
            shown.join(", ").replace('{', "{{").replace('}', "}}")
        );
        let read = match string_values {
            Some(values) => quote! {
                match value.get(#field).and_then(::serde_json::Value::as_str) {
                    #(Some(#values) => ::serde_json::from_value(value).map(Self::#variants).map_err(D::Error::custom),)*
                    Some(other) => Err(D::Error::custom(format!(#unknown))),
                    None => Err(D::Error::missing_field(#field)),
                }
            },
            None => {
                let tags = tag.values.iter().map(|v| match v {
                    Literal::Bool(b) => quote!(::serde_json::Value::Bool(#b)),
                    Literal::Int(n) => quote!(::serde_json::Value::from(#n)),
                    Literal::String(s) => {
                        quote!(::serde_json::Value::String(::std::string::String::from(#s)))
                    }
                    // A constant is a string, `true`, `false` or a whole number.
                    Literal::Number(_) | Literal::Null | Literal::List(_) => {
                        quote!(::serde_json::Value::Null)
                    }
                });
                quote! {
                    let tag = value.get(#field).cloned();
                    #(
                        if tag.as_ref() == Some(&#tags) {
                            return ::serde_json::from_value(value).map(Self::#variants).map_err(D::Error::custom);
                        }
                    )*
                    match tag {
                        Some(other) => Err(D::Error::custom(format!(#unknown))),
                        None => Err(D::Error::missing_field(#field)),
                    }
                }
            }
        };
        let read_doc = format!(" Reads the member `{field}` names, so an error is that member's.");
        quote! {
            #declared
            #blank
            #[doc = #doc]
            #allow
            #[derive(Clone, Debug, PartialEq, Serialize)]
            #[serde(untagged)]
            pub enum #ident {
                #(#variants(#tys),)*
            }

            #[doc = #read_doc]
            #allow
            impl<'de> Deserialize<'de> for #ident {
                fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                    use ::serde::de::Error;
                    let value = ::serde_json::Value::deserialize(deserializer)?;
                    #read
                }
            }
            #validate
        }
    }

    fn type_label(&self, t: &Type) -> String {
        names::type_label(self.spec, t)
    }

    /// Dispatch by schema name, so tools can parse and validate a JSON value as a type
    /// chosen at run time (a request body, a response under test).
    fn registry(&self) -> TokenStream {
        let rt = &self.rt;
        let mut names = Vec::new();
        let mut idents = Vec::new();
        for (id, shape) in self.shapes.all() {
            names.push(self.shapes.name(id, shape));
            idents.push(self.struct_name(id, shape));
        }
        for e in &self.spec.enums {
            names.push(e.name.clone());
            idents.push(type_ident(&e.name));
        }
        quote! {
            /// Every model shape and enum, by the name of its schema.
            pub const TYPE_NAMES: &[&str] = &[#(#names),*];

            /// Parses `value` as the named type and validates it; `None` for an unknown name.
            /// Errors are serde's message or every `validate()` violation.
            pub fn parse_and_validate(name: &str, value: &serde_json::Value) -> Option<Result<(), Vec<String>>> {
                fn run<T: serde::de::DeserializeOwned + #rt::Validate>(value: &serde_json::Value) -> Result<(), Vec<String>> {
                    let parsed = T::deserialize(value).map_err(|e| vec![e.to_string()])?;
                    parsed.validate().map_err(|violations| violations.iter().map(ToString::to_string).collect())
                }
                Some(match name {
                    #(#names => run::<#idents>(value),)*
                    _ => return None,
                })
            }

            /// Parses `value` as the named type, writes it back, parses that again and checks
            /// both parses are equal; returns what was written. `None` for an unknown name.
            pub fn round_trip(name: &str, value: &serde_json::Value) -> Option<Result<serde_json::Value, String>> {
                fn run<T: serde::de::DeserializeOwned + Serialize + PartialEq + std::fmt::Debug>(
                    value: &serde_json::Value,
                ) -> Result<serde_json::Value, String> {
                    let first = T::deserialize(value).map_err(|e| e.to_string())?;
                    let written = serde_json::to_value(&first).map_err(|e| e.to_string())?;
                    let second = T::deserialize(&written).map_err(|e| format!("re-reading {written}: {e}"))?;
                    if first != second {
                        return Err(format!("{first:?} came back as {second:?}"));
                    }
                    Ok(written)
                }
                Some(match name {
                    #(#names => run::<#idents>(value),)*
                    _ => return None,
                })
            }
        }
    }

    fn defaults_module(&mut self) -> TokenStream {
        let mut fns = Vec::new();
        for model in &self.spec.models {
            for f in &model.fields {
                if let Some(default) = &f.default {
                    fns.push(self.default_fn(&model.name, f, default));
                }
            }
        }
        quote! {
            /// Defaults the spec gives, applied when a field is absent.
            #[allow(non_snake_case)]
            mod defaults {
                #[allow(unused_imports)]
                use super::*;
                #(#fns)*
            }
        }
    }

    pub fn default_fn(&mut self, owner: &str, f: &Field, default: &Literal) -> TokenStream {
        let name = format_ident!(
            "{}__{}",
            owner,
            field_ident(&f.ident).to_string().trim_start_matches("r#")
        );
        let hint = union_name(owner, &f.name);
        let inner = self.value_type(&f.ty, Shape::Response, &hint);
        let value = self.literal_expr(&f.ty, default, &hint);
        let (ty, expr) = if f.presence == Presence::OptionalNullable {
            let expr = if matches!(default, Literal::Null) {
                quote!(None)
            } else {
                quote!(Some(#value))
            };
            (quote!(Option<#inner>), expr)
        } else {
            (inner, value)
        };
        quote! {
            pub(super) fn #name() -> #ty { #expr }
        }
    }
}

/// How a struct gets `Default`, when every field may be left out.
pub enum DefaultImpl {
    /// Every field is absent by default: `#[derive(Default)]`.
    Derive,
    /// Some field has the spec's default: an `impl` calling its default function.
    Written(TokenStream),
}

impl DefaultImpl {
    /// `Default` among the derives, when derived.
    pub fn derive(this: &Option<DefaultImpl>) -> Option<TokenStream> {
        matches!(this, Some(DefaultImpl::Derive)).then(|| quote!(Default,))
    }

    /// The written `impl`, when written.
    pub fn written(this: Option<DefaultImpl>) -> Option<TokenStream> {
        match this {
            Some(DefaultImpl::Written(tokens)) => Some(tokens),
            _ => None,
        }
    }
}

/// `Default` for a struct whose every field may be left out: each takes the spec's default,
/// or is absent. So `Model { name: Some(…), ..Default::default() }` names only what is set,
/// and the value is what deserializing `{}` gives.
pub fn impl_default(
    name: &Ident,
    owner: &str,
    fields: &[&Field],
    open: bool,
) -> Option<DefaultImpl> {
    if fields.iter().any(|f| !f.presence.may_be_absent()) {
        return None;
    }
    if fields.iter().all(|f| f.default.is_none()) {
        return Some(DefaultImpl::Derive);
    }
    let values = fields.iter().map(|f| {
        let ident = field_ident(&f.ident);
        match &f.default {
            Some(_) => {
                let path: syn::Path = syn::parse_str(&default_fn_path(owner, &f.ident))
                    .expect("default function paths parse");
                quote!(#ident: #path())
            }
            None => quote!(#ident: Default::default()),
        }
    });
    let extra = open.then(|| quote!(extra: Default::default(),));
    let allow = fields
        .iter()
        .any(|f| f.deprecated.is_some())
        .then(|| quote!(#[allow(deprecated)]));
    Some(DefaultImpl::Written(quote! {
        #allow
        impl Default for #name {
            fn default() -> Self {
                Self { #(#values,)* #extra }
            }
        }
    }))
}

/// `"defaults::Model__field"`, the path serde calls for a default.
pub(crate) fn default_fn_path(owner: &str, field: &str) -> String {
    format!(
        "defaults::{owner}__{}",
        field_ident(field).to_string().trim_start_matches("r#")
    )
}

/// The name of the union type of a field: its owner's name and the field's, so a field's
/// type, its default and its parameter all name the same union whatever the order of
/// emission.
pub fn union_name(owner: &str, field: &str) -> String {
    format!(
        "{owner}{}",
        heck::ToUpperCamelCase::to_upper_camel_case(field)
    )
}

/// Whether a literal is a value of a type, to pick the union alternative a default is.
fn literal_fits(ty: &Type, lit: &Literal) -> bool {
    match (ty, lit) {
        (Type::Primitive(p), Literal::String(_)) => p.is_string_like(),
        (Type::Enum(_), Literal::String(_) | Literal::Int(_)) => true,
        (Type::Primitive(Primitive::Int | Primitive::Number), Literal::Int(_)) => true,
        (Type::Primitive(Primitive::Number), Literal::Number(_)) => true,
        (Type::Primitive(Primitive::Bool), Literal::Bool(_)) => true,
        (Type::List(_, _), Literal::List(_)) => true,
        (Type::Primitive(Primitive::Any) | Type::NotShown(_), _) => true,
        _ => false,
    }
}

impl RustBackend<'_> {
    /// The Rust expression of a default; `union` names the union type when `ty` is one.
    fn literal_expr(&self, ty: &Type, lit: &Literal, union: &str) -> TokenStream {
        let spec = self.spec;
        match (ty, lit) {
            (Type::Union(types), _) => {
                let labels: Vec<String> = types.iter().map(|t| self.type_label(t)).collect();
                let labels: Vec<&str> = labels.iter().map(String::as_str).collect();
                let variants = names::variant_idents(&labels, "");
                let union = self.union_type_name(types, union);
                let name = type_ident(&union);
                match types.iter().position(|t| literal_fits(t, lit)) {
                    Some(i) => {
                        let variant = &variants[i];
                        let value = self.literal_expr(&types[i], lit, &format!("{union}{i}"));
                        quote!(#name::#variant(#value))
                    }
                    // Lowering accepts only defaults of the field's type.
                    None => quote!(::std::default::Default::default()),
                }
            }
            (Type::Enum(id), Literal::String(s)) => {
                let e = spec.enum_(*id);
                let values: Vec<&str> = e.values.iter().map(|v| v.name.as_str()).collect();
                let idents = names::variant_idents(&values, enums::UNKNOWN_VARIANT);
                let name = type_ident(&e.name);
                match values.iter().position(|v| v == s) {
                    Some(i) => {
                        let variant = &idents[i];
                        quote!(#name::#variant)
                    }
                    // Lowering only accepts defaults among the listed values.
                    None => quote!(#name::KNOWN[0].parse().unwrap()),
                }
            }
            (Type::Enum(_), Literal::Int(n)) => {
                self.literal_expr(ty, &Literal::String(n.to_string()), union)
            }
            (Type::Primitive(Primitive::Number), Literal::Int(n)) => {
                let f = *n as f64;
                quote!(#f)
            }
            (_, Literal::Int(n)) => quote!(#n),
            (_, Literal::Number(f)) => quote!(#f),
            (_, Literal::Bool(b)) => quote!(#b),
            (_, Literal::String(s)) => quote!(String::from(#s)),
            (_, Literal::Null) => quote!(None),
            (Type::List(inner, _), Literal::List(items)) => {
                let item_union = format!("{union}Item");
                let items = items
                    .iter()
                    .map(|i| self.literal_expr(inner, i, &item_union));
                quote!(vec![#(#items),*])
            }
            (_, Literal::List(_)) => quote!(Default::default()),
        }
    }
}

pub(crate) fn deprecated_attr(d: &Deprecation) -> TokenStream {
    let mut note = d.note.clone().unwrap_or_else(|| "deprecated".to_string());
    if let Some(r) = &d.replacement {
        note.push_str(&format!("; use `{r}`"));
    }
    if let Some(date) = &d.sunset {
        note.push_str(&format!("; removed on {date}"));
    }
    quote!(#[deprecated(note = #note)])
}

fn model_doc(model: &Model, shape: Shape, has_variants: bool) -> Vec<String> {
    let mut lines = model.doc.as_deref().map(doc_lines).unwrap_or_default();
    if has_variants {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(match shape {
            Shape::Request => format!(" The request shape of `{}`.", model.name),
            Shape::Response => {
                " The response shape; requests use the `Request` variant.".to_string()
            }
        });
    }
    for ns in &model.not_shown {
        if !lines.is_empty() {
            lines.push(String::new());
        }
        lines.push(format!(" Not shown by the source: {ns}."));
    }
    if model.provenance == Provenance::DeployedClient {
        lines.push(String::new());
        lines.push(" Source: the deployed client library.".to_string());
    }
    lines
}

fn field_doc(f: &Field) -> Vec<String> {
    let mut lines = f.doc.as_deref().map(doc_lines).unwrap_or_default();
    let mut facts = Vec::new();
    if let Some(d) = &f.default {
        facts.push(format!("Default: `{d}`."));
    }
    if f.provenance == Provenance::DeployedClient {
        facts.push("Source: the deployed client library.".to_string());
    }
    if let Type::NotShown(Some(what)) = &f.ty {
        facts.push(format!("Not shown by the source: {what}."));
    }
    if !facts.is_empty() && !lines.is_empty() {
        lines.push(String::new());
    }
    lines.extend(facts.into_iter().map(|f| format!(" {f}")));
    lines
}
