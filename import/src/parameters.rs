//! An operation's parameters: path, query and header, path-level ones first, each of a
//! type the spec can send as text.

use crate::build::*;
use crate::document::join;
use crate::importer::Importer;
use crate::operations::{constant_as_one_of, from_expr, written_as_text};
use crate::schemas::{FieldUse, description};
use crate::types::Ty;
use covenant_codegen::ast::*;
use serde_json::Value;
use std::collections::HashMap;

/// Headers the request's own machinery sets: OpenAPI says a parameter naming them is ignored.
const IGNORED_HEADERS: &[&str] = &["accept", "content-type", "authorization"];

impl<'d> Importer<'d> {
    /// Path, query and header parameters (path-level ones first, overridden by the
    /// operation's own).
    pub(crate) fn parameters(
        &mut self,
        path_item: &'d Value,
        op: &'d Value,
        at: &str,
        base: &str,
        renamed: &HashMap<String, String>,
        written_path: &str,
    ) -> Vec<Member<EndpointMember>> {
        let mut all: Vec<(&'d Value, String)> = Vec::new();
        let shared_at = at.rsplit_once('/').map_or(at, |(p, _)| p).to_string();
        for (source, source_at) in [(path_item, shared_at), (op, at.to_string())] {
            if let Some(Value::Array(list)) = source.get("parameters") {
                for (index, p) in list.iter().enumerate() {
                    let p_at = join(&join(&source_at, "parameters"), &index.to_string());
                    let resolved = self.follow(p);
                    let key = |v: &Value| {
                        (
                            v.get("name").and_then(Value::as_str).map(str::to_string),
                            v.get("in").and_then(Value::as_str).map(str::to_string),
                        )
                    };
                    all.retain(|(q, _)| key(self.follow(q)) != key(resolved));
                    all.push((p, p_at));
                }
            }
        }
        let mut members = Vec::new();
        let mut seen_path = Vec::new();
        for (p, p_at) in all {
            let p = self.follow(p);
            let Some(name) = p.get("name").and_then(Value::as_str) else {
                continue;
            };
            let place = p.get("in").and_then(Value::as_str).unwrap_or("");
            let location = match place {
                "path" => ParamLocation::Path,
                "query" => ParamLocation::Query,
                "header" if IGNORED_HEADERS.contains(&name.to_lowercase().as_str()) => continue,
                "header" => ParamLocation::Header,
                other => {
                    let marker =
                        self.lose(&p_at, format!("a {other} parameter `{name}`"), "left out");
                    // A parameter left out is marked on the endpoint's first member.
                    members.push(member(
                        Attrs {
                            doc: None,
                            annotations: vec![marker],
                        },
                        EndpointMember::NotShown(string(format!("The {other} parameter `{name}`"))),
                    ));
                    continue;
                }
            };
            let taken = members.iter().any(|m: &Member<EndpointMember>| {
                matches!(&m.node, EndpointMember::Param(_, f) if f.name.text == name)
            }) || (location != ParamLocation::Path
                && written_path.contains(&format!("{{{name}}}")));
            if taken {
                let marker = self.lose(
                    &p_at,
                    format!("a second parameter named `{name}`, in another place"),
                    "left out",
                );
                members.push(member(
                    Attrs {
                        doc: None,
                        annotations: vec![marker],
                    },
                    EndpointMember::NotShown(string(format!("The {place} parameter `{name}`"))),
                ));
                continue;
            }
            let name = match location {
                ParamLocation::Path => {
                    let kept = renamed
                        .get(name)
                        .cloned()
                        .unwrap_or_else(|| name.to_string());
                    if seen_path.contains(&kept) || !written_path.contains(&format!("{{{kept}}}")) {
                        continue;
                    }
                    seen_path.push(kept.clone());
                    kept
                }
                _ => name.to_string(),
            };
            members.push(self.parameter(p, &p_at, &name, location, base));
        }
        // Placeholders the document gave no parameter.
        for placeholder in written_path
            .split('/')
            .filter_map(|s| s.split_once('{'))
            .filter_map(|(_, rest)| rest.split_once('}'))
            .map(|(name, _)| name)
        {
            if !seen_path.iter().any(|p| p == placeholder) {
                let marker = self.lose(
                    at,
                    format!("the path placeholder `{placeholder}` without a parameter"),
                    "a string",
                );
                members.push(member(
                    Attrs {
                        doc: None,
                        annotations: vec![marker],
                    },
                    EndpointMember::Param(
                        ParamLocation::Path,
                        field(placeholder, false, Ty::Builtin("string").expr(false), None),
                    ),
                ));
            }
        }
        members
    }

    fn parameter(
        &mut self,
        p: &'d Value,
        at: &str,
        name: &str,
        location: ParamLocation,
        base: &str,
    ) -> Member<EndpointMember> {
        let required = location == ParamLocation::Path
            || p.get("required").and_then(Value::as_bool) == Some(true);
        let static_any = &crate::schemas::ANY_SCHEMA;
        let (schema, schema_at) = match (p.get("schema"), p.get("content")) {
            (Some(s), _) => (s, join(at, "schema")),
            (None, Some(Value::Object(content))) => {
                match content.iter().next().and_then(|(_, m)| m.get("schema")) {
                    Some(s) => (s, join(at, "content")),
                    None => (static_any, at.to_string()),
                }
            }
            _ => (static_any, at.to_string()),
        };
        let usage = if location == ParamLocation::Header {
            FieldUse::Header
        } else {
            FieldUse::Param
        };
        let hint = format!("{base}_{name}");
        let (mut decl, mut attrs) =
            self.field_decl(name, schema, &schema_at, required, &hint, usage);
        // The parameter's own description says more than its schema's.
        if let Some(d) = description(p) {
            attrs.doc = Some(d);
        }
        if p.get("deprecated").and_then(Value::as_bool) == Some(true)
            && !attrs
                .annotations
                .iter()
                .any(|a| a.name.text == "deprecated")
        {
            attrs.annotations.push(annotation("deprecated", Vec::new()));
        }
        self.parameter_shape(p, at, &mut decl, &mut attrs, location);
        member(attrs, EndpointMember::Param(location, decl))
    }

    /// What a parameter's type may be in the spec: a scalar, or (in a query) a list of
    /// scalars sent as repeated pairs. Anything else is written as a string, and marked.
    fn parameter_shape(
        &mut self,
        p: &Value,
        at: &str,
        decl: &mut FieldDecl,
        attrs: &mut Attrs,
        location: ParamLocation,
    ) {
        let enums = self.enum_names.clone();
        let is_enum = |n: &str| enums.contains(n);
        constant_as_one_of(decl, attrs);
        let ty = from_expr(&decl.ty);
        let nullable = decl.ty.alternatives.len() > 1
            && matches!(
                decl.ty.alternatives.last().map(|a| &a.kind),
                Some(covenant_codegen::ast::TypeAtomKind::Null)
            );
        let scalar = |t: &Option<Ty>| t.as_ref().is_some_and(|t| t.is_scalar(&is_enum));
        let style = p.get("style").and_then(Value::as_str);
        let explode = p.get("explode").and_then(Value::as_bool);
        // `filter[status]=open`: any value of a query parameter, written in brackets.
        let deep = location == ParamLocation::Query && style == Some("deepObject");
        let fits = match (&ty, location) {
            (t, ParamLocation::Query) if deep => !matches!(t, Some(Ty::Constant(_))),
            (Some(Ty::List(inner)), ParamLocation::Query) => {
                let inner = Some((**inner).clone());
                scalar(&inner)
            }
            (t, _) => scalar(t) && !matches!(t, Some(Ty::Constant(_))),
        };
        if nullable && location != ParamLocation::Query {
            attrs.annotations.push(self.lose(
                at,
                "a parameter that may be null",
                "one that may not",
            ));
        }
        if !fits {
            attrs
                .annotations
                .push(self.lose(at, "a parameter of a structured type", "a string"));
            written_as_text(decl, attrs);
            return;
        }
        if nullable {
            decl.ty.alternatives.pop();
        }
        if deep {
            if !scalar(&ty) {
                attrs
                    .annotations
                    .push(annotation("style", vec![arg(reference("deep"))]));
            }
        } else if let Some(Ty::List(_)) = ty {
            let joined = match (style, explode) {
                (None | Some("form"), None | Some(true)) => Ok(None),
                (None | Some("form"), Some(false)) => Ok(Some("comma")),
                (Some("spaceDelimited"), _) => Ok(Some("spaces")),
                (Some("pipeDelimited"), _) => Ok(Some("pipes")),
                (Some(other), _) => Err(other),
            };
            match joined {
                Ok(Some(encoding)) => attrs
                    .annotations
                    .push(annotation("style", vec![arg(reference(encoding))])),
                Ok(None) => {}
                Err(style) => attrs.annotations.push(self.lose(
                    at,
                    format!("a list sent as one `{style}` value"),
                    "one pair per item",
                )),
            }
        }
        if location == ParamLocation::Path && matches!(style, Some("label" | "matrix")) {
            attrs.annotations.push(self.lose(
                at,
                "a label or matrix path parameter",
                "a simple one",
            ));
        }
    }
}
