//! The model a router writes its own errors in: `rejections Model` on an api, and
//! `@rejection(message | status | param | issues | "constant")` on the model's fields. The
//! result is a JSON template checked to fit the model, so every rejection the router answers
//! is an instance of the error model the spec declares.

use super::{Decls, Lowerer, TypeDecl};
use crate::ast::{Annotation, ValueKind};
use crate::diagnostic_codes;
use crate::ir::shapes::{Shape, in_shape};
use crate::ir::*;
use crate::source::Span;
use serde_json::{Map, Value, json};

const SLOTS: &str = "message, status, param, issues, or a constant value";

impl Lowerer<'_> {
    /// What `@rejection(…)` on a field of this type and presence puts there.
    pub(super) fn rejection_slot(
        &mut self,
        a: &Annotation,
        ty: &Type,
        presence: Presence,
        constraints: &Constraints,
        enums: Option<&[Enum]>,
    ) -> Option<RejectionSlot> {
        let value = self.single_arg(a, SLOTS)?;
        let (slot, fits) = match &value.kind {
            ValueKind::Ref(path) if path.len() == 1 => match path[0].text.as_str() {
                "message" => (RejectionSlot::Message, holds_string(ty)),
                "status" => (
                    RejectionSlot::Status,
                    matches!(ty, Type::Primitive(Primitive::Int | Primitive::Number)),
                ),
                "param" => (
                    RejectionSlot::Param,
                    holds_string(ty) && presence.may_be_absent(),
                ),
                "issues" => (RejectionSlot::Issues, holds_issues(ty)),
                other => {
                    self.error(
                        diagnostic_codes::BAD_ANNOTATION,
                        value.span,
                        format!("`{other}` is not part of a rejection"),
                    )
                    .label("unknown value")
                    .help(format!("a rejection field holds its {SLOTS}"));
                    return None;
                }
            },
            _ => match self.literal_for(value, ty, enums) {
                Some(literal) => (RejectionSlot::Constant(literal), true),
                None => (RejectionSlot::Constant(Literal::Null), false),
            },
        };
        // A message holds the request's path, a status any status: neither can promise to
        // keep inside a constraint. A constant must.
        let constrained = match &slot {
            RejectionSlot::Constant(literal) => super::fields::violation(literal, constraints)
                .map(|broken| format!("the value {broken}")),
            _ if !constraints.is_empty() => Some("the field has constraints".to_string()),
            _ => None,
        };
        if let Some(label) = constrained.filter(|_| fits) {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                "this rejection value could break the field's constraints",
            )
            .label(label)
            .help("leave constraints off the fields a router fills");
            return None;
        }
        if !fits {
            let wants = match slot {
                RejectionSlot::Message => "a string field",
                RejectionSlot::Status => "an int field",
                RejectionSlot::Param => {
                    "an optional string field (left out when no input is named)"
                }
                RejectionSlot::Issues => "a field of type `object[]` or `any[]`",
                RejectionSlot::Constant(_) => "a value of the field's type",
            };
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                a.span,
                "this rejection value does not fit the field",
            )
            .label(format!("expects {wants}"));
            return None;
        }
        Some(slot)
    }

    /// Reads each api's `rejections Model` and builds its template.
    pub(super) fn lower_rejections(&mut self, decls: &Decls, models: &[Model], apis: &mut [Api]) {
        for ((decl, _), api) in decls.apis.iter().zip(apis.iter_mut()) {
            let Some(prop) = decl.props.iter().find(|p| p.node.key.text == "rejections") else {
                continue;
            };
            let name = match prop.node.values.as_slice() {
                [v] => match &v.kind {
                    ValueKind::Ref(path) if path.len() == 1 => Some(&path[0]),
                    _ => None,
                },
                _ => None,
            };
            let Some(name) = name else {
                self.error(
                    diagnostic_codes::BAD_SETTING,
                    prop.span,
                    "`rejections` names one model",
                )
                .label("expected a model's name")
                .help("write e.g. `rejections ErrorResponse`");
                continue;
            };
            api.rejections = self.rejections_named(name, models);
        }
    }

    /// The rejections written in the model `name`: its template, checked to hold every
    /// rejection. For an api's `rejections`, and an endpoint's own.
    pub(super) fn rejections_named(
        &mut self,
        name: &crate::ast::Ident,
        models: &[Model],
    ) -> Option<Rejections> {
        let model = match self.types.get(&name.text).copied() {
            Some((TypeDecl::Model(id), _)) => {
                self.used_types.insert(TypeDecl::Model(id));
                id
            }
            Some(_) => {
                self.error(
                    diagnostic_codes::BAD_SETTING,
                    name.span,
                    format!("`{}` is an enum, not a model", name.text),
                )
                .label("rejections are written in a model");
                return None;
            }
            None => {
                self.unknown_type(name);
                return None;
            }
        };
        let built = template(models, model, &mut Vec::new());
        match built.map(|t| with_detail(&models[model.index()], t)) {
            Ok((template, true)) => Some(Rejections { model, template }),
            Ok(_) => {
                self.rejection_error(
                    name.span,
                    format!("`{}` has no field saying what went wrong", name.text),
                    "mark a string field `@rejection(message)` or a list `@rejection(issues)`, \
                     give a field of an enum its constant (`@rejection(\"invalid_request\")`), \
                     or let the model admit further fields (`not_shown fields \"…\"`)",
                );
                None
            }
            Err(problem) => {
                self.rejection_error(
                    name.span,
                    problem,
                    "give it a value with `@rejection(…)`, make it optional, or nullable",
                );
                None
            }
        }
    }

    fn rejection_error(&mut self, span: Span, message: String, help: &str) {
        self.error(diagnostic_codes::BAD_SETTING, span, message)
            .label("not every rejection would fit this model")
            .help(help.to_string());
    }
}

fn holds_string(ty: &Type) -> bool {
    match ty {
        Type::Primitive(Primitive::String | Primitive::Any) | Type::NotShown(_) => true,
        Type::Union(members) => members.iter().any(holds_string),
        _ => false,
    }
}

fn holds_issues(ty: &Type) -> bool {
    match ty {
        Type::List(item, _) => matches!(
            **item,
            Type::Primitive(Primitive::Object | Primitive::Any) | Type::NotShown(_)
        ),
        Type::Primitive(Primitive::Any) | Type::NotShown(_) => true,
        _ => false,
    }
}

/// A model that admits further fields and has none saying what went wrong holds the
/// message under `detail`, as the default shape does (Slack's `{"ok": false, …}`).
fn with_detail(model: &Model, (template, says_what): (Value, bool)) -> (Value, bool) {
    let Value::Object(mut fields) = template else {
        return (template, says_what);
    };
    if !says_what && model.open && !model.fields.iter().any(|f| f.name == "detail") {
        fields.insert("detail".into(), json!({ "$rejection": "message" }));
        return (Value::Object(fields), true);
    }
    (Value::Object(fields), says_what)
}

/// The template of a model's response shape, and whether it says what went wrong; or the
/// first required field nothing fills.
fn template(
    models: &[Model],
    id: ModelId,
    visiting: &mut Vec<ModelId>,
) -> Result<(Value, bool), String> {
    let model = &models[id.index()];
    if visiting.contains(&id) {
        return Err(format!("`{}` contains itself", model.name));
    }
    visiting.push(id);
    let mut out = Map::new();
    let mut says_what = false;
    for f in model.fields.iter().filter(|f| in_shape(f, Shape::Response)) {
        let value = match (&f.rejection, &f.ty, f.presence) {
            // A code from a closed list (Slack's `error: "invalid_arguments"`) says what
            // went wrong as well as words would.
            (Some(RejectionSlot::Constant(literal)), ty, _) => {
                says_what |= matches!(ty, Type::Enum(_));
                literal.to_json()
            }
            // A field that holds one value always (`ok: false`) holds it here too.
            (None, _, _) if f.constant_value().is_some() => {
                f.constant_value().map_or(Value::Null, Literal::to_json)
            }
            (Some(slot), _, _) => {
                says_what |= matches!(slot, RejectionSlot::Message | RejectionSlot::Issues);
                let name = match slot {
                    RejectionSlot::Message => "message",
                    RejectionSlot::Status => "status",
                    RejectionSlot::Param => "param",
                    _ => "issues",
                };
                json!({ "$rejection": name })
            }
            (None, _, p) if p.may_be_absent() => continue,
            (None, _, Presence::Nullable) => Value::Null,
            (None, Type::Model(inner), _) => {
                let (value, inner_says) = template(models, *inner, visiting)?;
                says_what |= inner_says;
                value
            }
            (None, _, _) => {
                return Err(format!(
                    "required field `{}` of `{}` has no value in a rejection",
                    f.name, model.name
                ));
            }
        };
        out.insert(f.name.clone(), value);
    }
    visiting.pop();
    Ok((Value::Object(out), says_what))
}

impl Lowerer<'_> {
    /// Endpoints that declare how they fail, yet in no status a rejection (a handler's, or
    /// the router's 500 and 503) can be written into: those are answered at their own status,
    /// in a body the spec does not declare. One warning per api, at its first such endpoint.
    pub(super) fn warn_unwritten_rejections(&mut self, spec: &Spec) {
        let mut by_api: Vec<Vec<usize>> = vec![Vec::new(); spec.apis.len()];
        for (i, ep) in spec.endpoints.iter().enumerate() {
            let declares_errors = all_responses(spec, ep).any(|r| !r.status.is_success());
            let writable = crate::ir::rejections::fitting_statuses(spec, ep)
                .into_iter()
                .any(|status| status != StatusPattern::Exact(422));
            if declares_errors && !writable {
                by_api[ep.api.0 as usize].push(i);
            }
        }
        for (api, endpoints) in spec.apis.iter().zip(by_api) {
            let Some(&first) = endpoints.first() else {
                continue;
            };
            let others = match endpoints.len() {
                1 => String::new(),
                2 => format!(" (nor does another endpoint of api `{}`)", api.name),
                n => format!(" (nor do {} other endpoints of api `{}`)", n - 1, api.name),
            };
            self.diags.push(
                crate::Diagnostic::warning(
                    diagnostic_codes::REJECTIONS_UNWRITTEN,
                    spec.spans.endpoints[first],
                    format!(
                        "`{}` declares no error status a rejection can be written in{others}",
                        spec.endpoints[first].name
                    ),
                )
                .label("none of its error bodies is in the rejection shape")
                .help(unwritten_help(spec, &spec.endpoints[first], &api.name)),
            );
        }
    }
}

/// What to do about endpoints no rejection can be written in: name the api's error model,
/// or, when it names one, declare an error response of that model.
fn unwritten_help(spec: &Spec, ep: &Endpoint, api: &str) -> String {
    match spec.rejections(ep) {
        None => format!(
            "name the error model api `{api}` answers in (`rejections Model`); until then a \
             handler's rejection is answered at its own status, in a body the spec does not \
             declare"
        ),
        Some(rejections) => format!(
            "declare an error response of `{}`, the rejection model, without headers; until \
             then a handler's rejection is answered at its own status, in a body the spec does \
             not declare",
            spec.model(rejections.model).name
        ),
    }
}
