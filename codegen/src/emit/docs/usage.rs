//! Where each model and enum is used, so its page can link back to its users.

use crate::ir::{EndpointId, EventId, ModelId, Spec, Type, UnionId};
use std::collections::BTreeSet;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum User {
    Endpoint(EndpointId),
    Model(ModelId),
    Event(EventId),
}

#[derive(Debug, Default)]
pub struct Usage {
    models: Vec<BTreeSet<User>>,
    enums: Vec<BTreeSet<User>>,
}

impl Usage {
    pub fn of(spec: &Spec) -> Self {
        let mut usage = Usage {
            models: vec![BTreeSet::new(); spec.models.len()],
            enums: vec![BTreeSet::new(); spec.enums.len()],
        };
        for (i, m) in spec.models.iter().enumerate() {
            let user = User::Model(ModelId(i as u32));
            for f in &m.fields {
                usage.note(spec, &f.ty, user);
            }
        }
        for (i, ep) in spec.endpoints.iter().enumerate() {
            let user = User::Endpoint(EndpointId(i as u32));
            let params = ep.params.iter().map(|p| &p.field.ty);
            let bodies = ep.responses.iter().chain(&ep.errors).flat_map(|r| {
                r.body
                    .iter()
                    .chain(r.headers.iter().map(|h| &h.ty))
                    .collect::<Vec<_>>()
            });
            for t in params.chain(ep.body.iter()).chain(bodies) {
                usage.note(spec, t, user);
            }
        }
        for (i, ev) in spec.events.iter().enumerate() {
            let user = User::Event(EventId(i as u32));
            for f in &ev.fields {
                usage.note(spec, &f.ty, user);
            }
            for (_, e) in &ev.placeholders {
                usage.enums[e.index()].insert(user);
            }
        }
        usage
    }

    fn note(&mut self, spec: &Spec, t: &Type, user: User) {
        self.note_within(spec, t, user, &mut Vec::new());
    }

    /// Notes the models and enums `t` holds; a declared union, which may contain itself, is
    /// looked into once.
    fn note_within(&mut self, spec: &Spec, t: &Type, user: User, unions: &mut Vec<UnionId>) {
        match t {
            Type::Model(id) => {
                if user != User::Model(*id) {
                    self.models[id.index()].insert(user);
                }
            }
            Type::Enum(id) => {
                self.enums[id.index()].insert(user);
            }
            Type::List(inner, _) | Type::Map(inner, _) => {
                self.note_within(spec, inner, user, unions)
            }
            Type::Union(members) => {
                for m in members {
                    self.note_within(spec, m, user, unions);
                }
            }
            Type::NamedUnion(id) => {
                if !unions.contains(id) {
                    unions.push(*id);
                    for m in &spec.union(*id).members {
                        self.note_within(spec, m, user, unions);
                    }
                }
            }
            Type::Primitive(_) | Type::NotShown(_) => {}
        }
    }

    pub fn of_model(&self, id: ModelId) -> impl Iterator<Item = User> + '_ {
        self.models[id.index()].iter().copied()
    }

    pub fn of_enum(&self, id: crate::ir::EnumId) -> impl Iterator<Item = User> + '_ {
        self.enums[id.index()].iter().copied()
    }
}

/// The "Used by" section of a model's or enum's page; nothing when unused.
pub fn section(site: &super::Site, root: &str, users: Vec<User>) -> maud::Markup {
    use super::{marks, paths};
    use maud::html;
    if users.is_empty() {
        return html! {};
    }
    let spec = site.spec;
    html! {
        section data-kind="used-by" {
            h2 id="used-by" { "Used by" }
            ul.used-by {
                @for user in users {
                    li {
                        @match user {
                            User::Endpoint(id) => {
                                @let ep = spec.endpoint(id);
                                a href=(paths::href(root, &paths::endpoint(&ep.name), None)) {
                                    (marks::method(ep.method)) " " code { (ep.name) }
                                }
                                " endpoint"
                            }
                            User::Model(id) => {
                                @let m = spec.model(id);
                                a href=(paths::href(root, &paths::model(&m.name), None)) { code { (m.name) } }
                                " model"
                            }
                            User::Event(id) => {
                                @let ev = &spec.events[id.0 as usize];
                                a href=(paths::href(root, &paths::event(&ev.name), None)) { code { (ev.name) } }
                                " event"
                            }
                        }
                    }
                }
            }
        }
    }
}
