//! The state of one import: the document, the names given, the items written so far, the
//! losses met, and which type or endpoint is being written (a loss belongs to it).

use crate::build::{annotation, arg, str_value};
use crate::document::Dialect;
use crate::losses::Loss;
use crate::names::Names;
use covenant_codegen::ast::{Annotation, Item};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

pub struct Importer<'d> {
    pub doc: &'d Value,
    pub dialect: Dialect,
    pub types: Names,
    pub endpoints: Names,
    pub schemes: Names,
    /// Models and enums, in the order they were written.
    pub type_items: Vec<Item>,
    /// The name each component schema has, by its `$ref`; `None` for one written in place
    /// at each use (an alias of a built-in type, a list or a union).
    pub components: HashMap<String, Option<String>>,
    /// The named type declared for the items of a constrained component written in place
    /// (`SnowflakeType`), by the component's `$ref`.
    pub item_types: HashMap<String, String>,
    /// Component schemas written in place, being written: a cycle of them is cut.
    pub inlining: Vec<String>,
    /// The type written for a tuple (`items` as a list of schemas), by its pointer and use:
    /// a component's is written once, not at each reference.
    pub tuples: HashMap<(String, crate::schemas::FieldUse), (crate::types::Ty, bool)>,
    /// Every loss, in order, with the type or endpoint it belongs to.
    pub losses: Vec<(String, Loss)>,
    /// Which types each type or endpoint uses.
    pub uses: HashMap<String, BTreeSet<String>>,
    /// The type or endpoint being written.
    pub owner: String,
    /// Names of the enums written.
    pub enum_names: BTreeSet<String>,
    /// Each operation's endpoint name, by the operation's pointer.
    pub endpoint_names: HashMap<String, String>,
    /// Routes written (method and path, placeholders alike), with their endpoint.
    pub routes: HashMap<String, String>,
}

impl<'d> Importer<'d> {
    pub fn new(doc: &'d Value, dialect: Dialect) -> Self {
        Importer {
            doc,
            dialect,
            types: Names::default(),
            endpoints: Names::default(),
            schemes: Names::default(),
            type_items: Vec::new(),
            components: HashMap::new(),
            item_types: HashMap::new(),
            inlining: Vec::new(),
            tuples: HashMap::new(),
            losses: Vec::new(),
            uses: HashMap::new(),
            owner: String::new(),
            enum_names: BTreeSet::new(),
            endpoint_names: HashMap::new(),
            routes: HashMap::new(),
        }
    }

    /// Records a loss of the current owner, and answers the annotation that marks it in place.
    pub fn lose(
        &mut self,
        pointer: &str,
        construct: impl Into<String>,
        written: impl Into<String>,
    ) -> Annotation {
        self.lose_kept(pointer, construct, written).0
    }

    /// As [`Self::lose`], with the loss recorded, for a caller that reports it elsewhere too.
    pub fn lose_kept(
        &mut self,
        pointer: &str,
        construct: impl Into<String>,
        written: impl Into<String>,
    ) -> (Annotation, Loss) {
        let loss = Loss::new(&self.source_pointer(pointer), construct, written);
        (self.record(loss.clone()), loss)
    }

    /// Records a fault of the document: a part no answer can satisfy, or that breaks
    /// OpenAPI's own rules. The spec states one reading of it exactly, so nothing is marked
    /// there; the report lists it.
    pub fn fault(
        &mut self,
        pointer: &str,
        construct: impl Into<String>,
        written: impl Into<String>,
    ) {
        let loss = Loss::fault(&self.source_pointer(pointer), construct, written);
        self.losses.push((self.owner.clone(), loss));
    }

    fn record(&mut self, loss: Loss) -> Annotation {
        let marker = annotation(
            "lossy",
            vec![
                arg(str_value(loss.pointer.clone())),
                arg(str_value(loss.note())),
            ],
        );
        self.losses.push((self.owner.clone(), loss));
        marker
    }

    /// The pointer into the document as its author wrote it: a Swagger document's
    /// definitions were read as components.
    fn source_pointer(&self, pointer: &str) -> String {
        if self.dialect != Dialect::Swagger2 {
            return pointer.to_string();
        }
        for (read_as, written) in [
            ("#/components/schemas/", "#/definitions/"),
            ("#/components/parameters/", "#/parameters/"),
            ("#/components/responses/", "#/responses/"),
            ("#/components/securitySchemes/", "#/securityDefinitions/"),
        ] {
            if let Some(rest) = pointer.strip_prefix(read_as) {
                return format!("{written}{rest}");
            }
        }
        pointer.to_string()
    }

    /// Notes that the current owner uses the type `name`.
    pub fn uses_type(&mut self, name: &str) {
        self.uses
            .entry(self.owner.clone())
            .or_default()
            .insert(name.to_string());
    }

    /// Runs `write` as `owner`, restoring the previous owner after.
    pub fn as_owner<T>(&mut self, owner: &str, write: impl FnOnce(&mut Self) -> T) -> T {
        let previous = std::mem::replace(&mut self.owner, owner.to_string());
        let result = write(self);
        self.owner = previous;
        result
    }

    /// The value a local `$ref` names, with the ref's pointer; `None` for a remote or
    /// dangling one.
    pub fn deref(&self, schema: &'d Value) -> Option<(&'d Value, String)> {
        let reference = schema.get("$ref")?.as_str()?;
        let target = crate::document::resolve(self.doc, reference)?;
        Some((target, reference.to_string()))
    }

    /// `value` with `$ref`s followed (at most a few, against cycles).
    pub fn follow(&self, mut value: &'d Value) -> &'d Value {
        for _ in 0..8 {
            match self.deref(value) {
                Some((target, _)) => value = target,
                None => break,
            }
        }
        value
    }

    /// Every loss (and fault) of `owner` and of the types it reaches.
    pub fn losses_reached(&self, owner: &str) -> Vec<Loss> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![owner.to_string()];
        while let Some(next) = stack.pop() {
            if !seen.insert(next.clone()) {
                continue;
            }
            if let Some(used) = self.uses.get(&next) {
                stack.extend(used.iter().cloned());
            }
        }
        self.losses
            .iter()
            .filter(|(o, _)| seen.contains(o))
            .map(|(_, l)| l.clone())
            .collect()
    }
}
