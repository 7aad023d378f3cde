//! Where each model and enum travels: in requests (clients write it), in responses and event
//! deliveries (servers write it), or both; and the endpoints whose traffic carries it, so a
//! change to a type is judged by the direction it travels and names the traffic it touches.

use crate::ir::{Field, Spec, Type, Visibility};
use std::collections::{BTreeSet, HashMap};

/// Which way a value travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    /// Written by clients, read by servers.
    Request,
    /// Written by servers (answers and event deliveries), read by clients.
    Response,
}

impl Direction {
    /// Whether a field belongs to the shape of a model that travels this way.
    pub fn shows(self, field: &Field) -> bool {
        match self {
            Direction::Request => field.visibility != Visibility::ResponseOnly,
            Direction::Response => field.visibility != Visibility::RequestOnly,
        }
    }
}

/// The endpoints (by name) and events (as `event <name>`) carrying a type one way.
pub type Carriers = BTreeSet<String>;

/// Every model's and enum's uses, by name.
#[derive(Debug, Default)]
pub struct Usage {
    pub types: HashMap<(String, Direction), Carriers>,
}

impl Usage {
    pub fn of(spec: &Spec) -> Usage {
        let mut walker = Walker {
            spec,
            usage: Usage::default(),
        };
        for ep in &spec.endpoints {
            for p in &ep.params {
                walker.walk(&p.field.ty, Direction::Request, &ep.name);
            }
            if let Some(body) = &ep.body {
                walker.walk(body, Direction::Request, &ep.name);
            }
            let api_errors = &spec.api(ep.api).errors;
            for r in ep.responses.iter().chain(&ep.errors).chain(api_errors) {
                if let Some(body) = &r.body {
                    walker.walk(body, Direction::Response, &ep.name);
                }
                for header in &r.headers {
                    walker.walk(&header.ty, Direction::Response, &ep.name);
                }
            }
        }
        for ev in &spec.events {
            let carrier = format!("event {}", ev.name);
            for f in &ev.fields {
                walker.walk(&f.ty, Direction::Response, &carrier);
            }
            if let Some(envelope) = spec.envelope {
                walker.walk(&Type::Model(envelope), Direction::Response, &carrier);
            }
            for (_, id) in &ev.placeholders {
                walker.walk(&Type::Enum(*id), Direction::Response, &carrier);
            }
        }
        walker.usage
    }

    /// The directions a type travels; both for a type nothing carries, whose Rust code is
    /// still there for anyone to use.
    pub fn directions(&self, name: &str) -> Vec<Direction> {
        let used: Vec<Direction> = [Direction::Request, Direction::Response]
            .into_iter()
            .filter(|d| self.types.contains_key(&(name.to_string(), *d)))
            .collect();
        if used.is_empty() {
            vec![Direction::Request, Direction::Response]
        } else {
            used
        }
    }

    /// The endpoints and events carrying a type one way.
    pub fn carriers(&self, name: &str, direction: Direction) -> Carriers {
        self.types
            .get(&(name.to_string(), direction))
            .cloned()
            .unwrap_or_default()
    }
}

struct Walker<'a> {
    spec: &'a Spec,
    usage: Usage,
}

impl Walker<'_> {
    fn walk(&mut self, ty: &Type, direction: Direction, carrier: &str) {
        match ty {
            Type::Model(id) => {
                let model = self.spec.model(*id);
                if self.mark(&model.name, direction, carrier) {
                    for f in model.fields.iter().filter(|f| direction.shows(f)) {
                        self.walk(&f.ty, direction, carrier);
                    }
                }
            }
            Type::Enum(id) => {
                self.mark(&self.spec.enum_(*id).name, direction, carrier);
            }
            Type::List(inner, _) | Type::Map(inner, _) => self.walk(inner, direction, carrier),
            Type::Union(members) => {
                for m in members {
                    self.walk(m, direction, carrier);
                }
            }
            Type::NamedUnion(id) => {
                let union = self.spec.union(*id);
                if self.mark(&union.name, direction, carrier) {
                    for m in &union.members {
                        self.walk(m, direction, carrier);
                    }
                }
            }
            Type::Primitive(_) | Type::NotShown(_) => {}
        }
    }

    /// Records one use; whether it is new, so recursive models are walked once per carrier.
    fn mark(&mut self, name: &str, direction: Direction, carrier: &str) -> bool {
        self.usage
            .types
            .entry((name.to_string(), direction))
            .or_default()
            .insert(carrier.to_string())
    }
}
