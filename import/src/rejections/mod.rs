//! The router's own errors (401, 404, 422, …) in the document's error shape: the error
//! model most operations answer becomes the api's `rejections`, and an operation whose own
//! error model is another (Slack's, one per method) gets `rejections` of its own, when every
//! field it requires can be filled so ([`marks`]).

mod marks;

use crate::build::*;
use crate::importer::Importer;
use crate::losses::{Completeness, Loss};
use crate::operations::Written;
use covenant_codegen::ast::{EndpointMember, ItemKind, StatusForm, TypeAtomKind};
use marks::{Codes, Marked, PickedCode, mark_rejection_fields, model_mut};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

/// Whether a model holds the router's errors, and what that cost.
enum Fit {
    /// It cannot: the endpoints answering in it keep the api's.
    No,
    Exact,
    /// A code picked from a closed list holding none for a refused request: the loss.
    PickedCode(Loss),
}

impl<'d> Importer<'d> {
    /// Gives each endpoint whose own error model is not the api's (`api_model`) that model as
    /// its `rejections`, when the model can hold the router's errors: its `default` error's,
    /// else its 400's, 422's or 4XX's. A code picked from a closed list that holds none for a
    /// refused request is a loss of every operation answering in that model.
    pub fn endpoint_rejections(&mut self, api_model: Option<&str>, operations: &mut [Written]) {
        let codes = Codes::of(&self.type_items);
        let mut fits: HashMap<String, Fit> = HashMap::new();
        for written in operations {
            let Some(ItemKind::Endpoint(decl)) = written.item.as_mut().map(|i| &mut i.kind) else {
                continue;
            };
            let Some((model, status)) = own_error_model(&decl.members) else {
                continue;
            };
            if Some(model.as_str()) == api_model {
                continue;
            }
            if !fits.contains_key(&model) {
                let schema = self.error_schema(&written.report.pointer, &status);
                let fit = self.fit_rejections(&model, &schema, &codes);
                fits.insert(model.clone(), fit);
            }
            match &fits[&model] {
                Fit::No => continue,
                Fit::Exact => {}
                Fit::PickedCode(loss) => {
                    let report = &mut written.report;
                    if !report.losses.contains(loss) {
                        report.losses.push(loss.clone());
                    }
                    report.status = Completeness::WithLosses;
                }
            }
            let clause = EndpointMember::Rejections(ident(model));
            decl.members.push(member(Default::default(), clause));
        }
    }

    /// Where the error body of the operation at `operation` for `status` is written: the
    /// component its schema names (a model several operations share is one loss, there), else
    /// the response, its status spelt as the document spells it (`4XX` or `4xx`).
    fn error_schema(&self, operation: &str, status: &str) -> String {
        let responses = format!("{operation}/responses");
        let listed = self.doc.pointer(responses.trim_start_matches('#'));
        let Some((key, response)) = (listed.and_then(Value::as_object))
            .and_then(|r| r.iter().find(|(k, _)| k.eq_ignore_ascii_case(status)))
        else {
            return format!("{responses}/{status}");
        };
        let content = self
            .follow(response)
            .get("content")
            .and_then(Value::as_object);
        let component = (content.into_iter().flat_map(|c| c.values()))
            .find_map(|media| media.pointer("/schema/$ref").and_then(Value::as_str));
        match component {
            Some(reference) => reference.to_string(),
            None => format!("{responses}/{}", crate::document::escape(key)),
        }
    }

    /// Marks model `name` to hold the router's errors, when it can; a code picked for them
    /// from a closed list of others is marked `@lossy` at the error body's `schema` pointer.
    fn fit_rejections(&mut self, name: &str, schema: &str, codes: &Codes) -> Fit {
        let picked = match mark_rejection_fields(&mut self.type_items, name, codes, true) {
            Marked::No => return Fit::No,
            Marked::Exact => return Fit::Exact,
            Marked::Picked(picked) => picked,
        };
        let PickedCode { field, code } = picked;
        let (marker, loss) = self.as_owner(name, |this| {
            this.lose_kept(
                schema,
                "error codes of a closed list, none of them for a refused request",
                format!("the router's own errors answer `{code}`, a code of the list"),
            )
        });
        if let Some(model) = model_mut(&mut self.type_items, name) {
            model.members[field].attrs.annotations.push(marker);
        }
        Fit::PickedCode(loss)
    }

    /// The model the document's errors are most often written in, marked to hold the
    /// router's own errors; `None` when no error model can.
    pub fn rejections_model(&mut self) -> Option<String> {
        let mut counts: BTreeMap<String, usize> = BTreeMap::new();
        let paths = self.doc.get("paths")?.as_object()?;
        for item in paths.values() {
            let Some(item) = item.as_object() else {
                continue;
            };
            for op in item.values() {
                let Some(responses) = op.get("responses").and_then(Value::as_object) else {
                    continue;
                };
                for (status, response) in responses {
                    let error =
                        status == "default" || status.starts_with('4') || status.starts_with('5');
                    if !error {
                        continue;
                    }
                    let response = self.follow(response);
                    let Some(content) = response.get("content").and_then(Value::as_object) else {
                        continue;
                    };
                    for media in content.values() {
                        let reference = media.pointer("/schema/$ref").and_then(Value::as_str);
                        if let Some(Some(name)) = reference.and_then(|r| self.components.get(r)) {
                            *counts.entry(name.clone()).or_default() += 1;
                        }
                    }
                }
            }
        }
        let (name, _) = counts
            .into_iter()
            .max_by_key(|(name, count)| (*count, std::cmp::Reverse(name.clone())))?;
        let codes = Codes::of(&self.type_items);
        let marked = mark_rejection_fields(&mut self.type_items, &name, &codes, false);
        (!matches!(marked, Marked::No)).then_some(name)
    }
}

/// The model an endpoint's refusals belong in, with the status of the error that gave it:
/// the body of its `default` error, else of its 400, 422 or 4XX, when a model alone.
fn own_error_model(
    members: &[covenant_codegen::ast::Member<EndpointMember>],
) -> Option<(String, String)> {
    let errors: Vec<_> = (members.iter())
        .filter_map(|m| match &m.node {
            EndpointMember::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    let preferred = [
        (StatusForm::Default, 0, "default"),
        (StatusForm::Code, 400, "400"),
        (StatusForm::Code, 422, "422"),
        (StatusForm::Class, 4, "4XX"),
    ];
    let (error, status) = preferred.iter().find_map(|(form, code, status)| {
        let error = (errors.iter()).find(|e| e.status.form == *form && e.status.code == *code)?;
        Some((error, *status))
    })?;
    let model = |e: &covenant_codegen::ast::ErrorDecl| match e.ty.as_ref()?.alternatives.as_slice()
    {
        [atom] => match &atom.kind {
            TypeAtomKind::Named(name) => Some(name.text.clone()),
            _ => None,
        },
        _ => None,
    };
    let chosen = model(error)?;
    // Every refusal goes out in one model: an error of another body (a 401 of the api's
    // model beside a `default` of the operation's) would be answered in the wrong one.
    let all_fit = (errors.iter()).all(|e| e.ty.is_none() || model(e).as_ref() == Some(&chosen));
    all_fit.then(|| (chosen, status.to_string()))
}
