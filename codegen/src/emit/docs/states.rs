//! State machines: each machine's states, and the transitions between them with what
//! triggers each.

use super::ids::{self, Ids};
use super::layout::{self, Group, Meta};
use super::{Site, marks, paths, text};
use crate::ir::{StateMachine, Trigger};
use maud::{Markup, html};

const ROOT: &str = "";

pub fn page(site: &Site) -> String {
    let mut ids = Ids::default();
    let main = html! {
        h1 { "State machines" }
        @for sm in &site.spec.state_machines { (machine(site, &mut ids, sm)) }
    };
    let meta = Meta {
        path: paths::STATES,
        title: "State machines",
        group: Group::States,
        kind: "states",
        name: None,
    };
    layout::page(site, &meta, main)
}

fn machine(site: &Site, ids: &mut Ids, sm: &StateMachine) -> Markup {
    let state = |i: usize| -> Markup {
        match sm.states.get(i) {
            Some(s) => {
                html! { a href=(format!("#{}", ids::state(&sm.name, &s.name))) { code { (s.name) } } }
            }
            None => html! {},
        }
    };
    html! {
        section.machine id=(ids.take(ids::states(&sm.name))) data-kind="states" data-name=(sm.name) {
            h2 { code { (sm.name) } }
            (text::doc(sm.doc.as_deref()))
            (marks::not_shown(&sm.not_shown))
            div.table-wrap {
                table {
                    caption { "States of " code { (sm.name) } }
                    thead { tr { th scope="col" { "State" } th scope="col" { "Description" } } }
                    tbody {
                        @for s in &sm.states {
                            tr id=(ids.take(ids::state(&sm.name, &s.name))) data-kind="state" data-name=(s.name) {
                                th scope="row" { code { (s.name) } (marks::provenance(s.provenance)) }
                                td { (text::doc(s.doc.as_deref())) }
                            }
                        }
                    }
                }
            }
            @if !sm.transitions.is_empty() {
                div.table-wrap {
                    table {
                        caption { "Transitions of " code { (sm.name) } }
                        thead { tr {
                            th scope="col" { "From" }
                            th scope="col" { "To" }
                            th scope="col" { "On" }
                            th scope="col" { "Description" }
                        } }
                        tbody {
                            @for t in &sm.transitions {
                                tr {
                                    th scope="row" { (state(t.from)) }
                                    td { (state(t.to)) }
                                    td {
                                        @match &t.trigger {
                                            Some(Trigger::Endpoint(id)) => {
                                                @let ep = site.spec.endpoint(*id);
                                                "a call of "
                                                a href=(paths::href(ROOT, &paths::endpoint(&ep.name), None)) { code { (ep.name) } }
                                            }
                                            Some(Trigger::Named(n)) => { code { (n) } }
                                            None => "",
                                        }
                                        @if let Some(c) = &t.condition {
                                            @if t.trigger.is_some() { ", " }
                                            "when " (text::inline(c))
                                        }
                                    }
                                    td { (text::doc(t.doc.as_deref())) (marks::provenance(t.provenance)) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
