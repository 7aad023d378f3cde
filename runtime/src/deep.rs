//! Brackets: lists and objects written as text pairs (`filter[status]=open`,
//! `items[0][price]=5`, `tags[]=a`), the way Rails, PHP and Stripe write them in forms and
//! queries (OpenAPI's `deepObject`). Writing needs no types; reading is led by the type the
//! value is declared as, so `5` reads as a number only where a number is expected.

use crate::desc::TypeDesc;
use crate::issue::{Issue, IssueKind, LocPart};
use indexmap::IndexMap;
use serde_json::{Map, Value};

/// The most keys in brackets one name may carry (`a[b][c]…`): deeper keys are refused, so
/// a hostile query or form cannot nest the reader past its stack.
pub const MAX_KEYS: usize = 32;

/// Writes `value` under `name`: an object's entries as `name[key]`, a list's items as
/// `name[0]`, `name[1]`…, a scalar as its text; null is left out, and so is an empty list or
/// object (brackets have no way to say "empty").
pub fn flatten(name: &str, value: &Value, out: &mut Vec<(String, String)>) {
    match value {
        Value::Null => {}
        Value::Object(entries) => {
            for (key, item) in entries {
                flatten(&format!("{name}[{key}]"), item, out);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten(&format!("{name}[{i}]"), item, out);
            }
        }
        scalar => out.push((name.to_string(), crate::text::plain(scalar))),
    }
}

/// The issue for a key nested deeper than [`MAX_KEYS`], located at its name.
pub fn too_deep(loc: &[LocPart]) -> Issue {
    let msg = format!("Input should be nested at most {MAX_KEYS} keys deep in brackets");
    Issue::new(loc, IssueKind::Value, msg)
}

/// The name before the first bracket and the keys inside the brackets:
/// `items[0][price]` → `("items", ["0", "price"])`, `tags[]` → `("tags", [""])`. `None` when
/// the key holds no brackets or they do not close, so the whole key is a name.
pub fn split_key(key: &str) -> Option<(&str, Vec<&str>)> {
    let open = key.find('[')?;
    let (name, mut rest) = key.split_at(open);
    let mut keys = Vec::new();
    while !rest.is_empty() {
        let inner = rest.strip_prefix('[')?;
        let close = inner.find(']')?;
        keys.push(&inner[..close]);
        rest = &inner[close + 1..];
    }
    Some((name, keys))
}

/// Values sent under one name, before their type reads them: text, or keys in brackets
/// (in the order first sent, found by hash: a form may send many).
#[derive(Debug)]
pub enum Node<'a> {
    Text(Vec<&'a str>),
    Keys(IndexMap<&'a str, Node<'a>>),
}

impl<'a> Node<'a> {
    pub fn new() -> Self {
        Node::Keys(IndexMap::new())
    }

    /// Adds one pair: `keys` are the bracketed keys after the name. A place given both a
    /// value and keys keeps the keys; a value sent under `[]` becomes a list's next item.
    pub fn insert(&mut self, keys: &[&'a str], value: &'a str) {
        let Some((first, rest)) = keys.split_first() else {
            match self {
                Node::Text(values) => values.push(value),
                Node::Keys(children) if children.is_empty() => *self = Node::Text(vec![value]),
                Node::Keys(_) => {}
            }
            return;
        };
        if let Node::Text(_) = self {
            *self = Node::new();
        }
        let Node::Keys(children) = self else {
            return;
        };
        children.entry(first).or_default().insert(rest, value);
    }
}

impl Default for Node<'_> {
    fn default() -> Self {
        Node::new()
    }
}

/// Reads `node` as `ty` asks: every problem is pushed to `issues`, and what reads is kept.
/// `one_value`: a value that is no list, sent twice, is a mistake (a form) rather than a
/// choice of the last (a query).
pub fn read(
    ty: &'static TypeDesc,
    node: &Node<'_>,
    one_value: bool,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) -> Option<Value> {
    match (ty.resolved(), node) {
        (TypeDesc::Model(model), Node::Keys(children)) => {
            let mut out = Map::new();
            for (key, child) in children {
                let field = model.fields.iter().find(|f| f.name == *key);
                loc.push(LocPart::Key(key.to_string().into()));
                let value = match field {
                    Some(f) => read(&f.ty, child, one_value, loc, issues),
                    None => Some(untyped(child)),
                };
                loc.pop();
                if let Some(value) = value {
                    out.insert(key.to_string(), value);
                }
            }
            Some(Value::Object(out))
        }
        (TypeDesc::Map(values), Node::Keys(children)) => {
            let mut out = Map::new();
            for (key, child) in children {
                loc.push(LocPart::Key(key.to_string().into()));
                if let Some(value) = read(values, child, one_value, loc, issues) {
                    out.insert(key.to_string(), value);
                }
                loc.pop();
            }
            Some(Value::Object(out))
        }
        (TypeDesc::List(item), node) => read_list(item, node, one_value, loc, issues),
        (TypeDesc::Object | TypeDesc::Any | TypeDesc::NotShown, node) => Some(untyped(node)),
        (TypeDesc::Union(members), Node::Keys(_)) => read_union(members, node, loc, issues),
        (TypeDesc::NamedUnion(u), Node::Keys(_)) => read_union(u.members, node, loc, issues),
        (TypeDesc::Model(_) | TypeDesc::Map(_), Node::Text(_)) => {
            let msg = "Input should be an object, written with brackets (`name[key]=value`)";
            issues.push(Issue::new(loc, IssueKind::ModelType, msg));
            None
        }
        (_, Node::Keys(_)) => {
            let msg = "Input should be a single value, not keys in brackets";
            issues.push(Issue::new(loc, IssueKind::Value, msg));
            None
        }
        (scalar, Node::Text(values)) => {
            if one_value && values.len() > 1 {
                let msg = format!(
                    "Input should be one value; the field was sent {} times",
                    values.len()
                );
                issues.push(Issue::new(loc, IssueKind::Value, msg));
                return None;
            }
            let raw = values.last().copied().unwrap_or_default();
            crate::walk::coerce_scalar(scalar, raw, loc)
                .map_err(|issue| issues.push(issue))
                .ok()
        }
    }
}

/// A list: repeated values (`tags=a&tags=b`, `tags[]=a`), or items keyed by their index
/// (`items[0][price]=5`), in the order of the indices.
fn read_list(
    item: &'static TypeDesc,
    node: &Node<'_>,
    one_value: bool,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) -> Option<Value> {
    let mut items = Vec::new();
    let mut read_text = |values: &[&str], loc: &mut Vec<LocPart>, issues: &mut Vec<Issue>| {
        for value in values {
            loc.push(LocPart::Index(items.len()));
            let text = Node::Text(vec![value]);
            if let Some(v) = read(item, &text, one_value, loc, issues) {
                items.push(v);
            }
            loc.pop();
        }
    };
    let mut indexed: Vec<(usize, &Node<'_>)> = Vec::new();
    match node {
        Node::Text(values) => read_text(values, loc, issues),
        Node::Keys(children) => {
            for (key, child) in children {
                match (key.is_empty(), key.parse::<usize>(), child) {
                    (true, _, Node::Text(values)) => read_text(values, loc, issues),
                    (_, Ok(index), _) => indexed.push((index, child)),
                    _ => {
                        loc.push(LocPart::Key(key.to_string().into()));
                        let msg = "Input should be a list item's index (`name[0]`) or `[]`";
                        issues.push(Issue::new(loc, IssueKind::ListType, msg));
                        loc.pop();
                    }
                }
            }
        }
    }
    indexed.sort_by_key(|(index, _)| *index);
    for (_, child) in indexed {
        loc.push(LocPart::Index(items.len()));
        if let Some(v) = read(item, child, one_value, loc, issues) {
            items.push(v);
        }
        loc.pop();
    }
    Some(Value::Array(items))
}

/// An object written in brackets where a union is declared: read as its first member that
/// is an object.
fn read_union(
    members: &'static [TypeDesc],
    node: &Node<'_>,
    loc: &mut Vec<LocPart>,
    issues: &mut Vec<Issue>,
) -> Option<Value> {
    let object = members.iter().find(|m| {
        matches!(
            m.resolved(),
            TypeDesc::Model(_) | TypeDesc::Map(_) | TypeDesc::List(_) | TypeDesc::Object
        )
    });
    match object {
        Some(member) => read(member, node, false, loc, issues),
        None => Some(untyped(node)),
    }
}

/// A value of no declared type: text stays text, keys make an object.
fn untyped(node: &Node<'_>) -> Value {
    match node {
        Node::Text(values) if values.len() > 1 => Value::Array(
            values
                .iter()
                .map(|v| Value::String(v.to_string()))
                .collect(),
        ),
        Node::Text(values) => Value::String(values.last().copied().unwrap_or_default().into()),
        Node::Keys(children) => Value::Object(
            children
                .iter()
                .map(|(k, child)| (k.to_string(), untyped(child)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn flat(value: Value) -> Vec<(String, String)> {
        let mut out = Vec::new();
        flatten("p", &value, &mut out);
        out
    }

    #[test]
    fn objects_and_lists_are_written_in_brackets() {
        let pairs = flat(json!({"items": [{"price": "a", "n": 2}], "meta": {"k": "v"}, "x": null}));
        let pairs: Vec<(&str, &str)> = pairs
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("p[items][0][price]", "a"),
                ("p[items][0][n]", "2"),
                ("p[meta][k]", "v"),
            ]
        );
    }

    #[test]
    fn keys_split_at_their_brackets() {
        assert_eq!(
            split_key("items[0][price]"),
            Some(("items", vec!["0", "price"]))
        );
        assert_eq!(split_key("tags[]"), Some(("tags", vec![""])));
        assert_eq!(split_key("plain"), None);
        assert_eq!(split_key("open[0"), None);
        assert_eq!(split_key("a[0]x"), None);
    }

    #[test]
    fn a_list_reads_by_index_and_by_empty_brackets() {
        static LIST: TypeDesc = TypeDesc::List(&TypeDesc::Int);
        let ty = &LIST;
        let mut node = Node::new();
        node.insert(&["1"], "20");
        node.insert(&["0"], "10");
        let mut issues = Vec::new();
        let value = read(ty, &node, true, &mut Vec::new(), &mut issues);
        assert_eq!(value, Some(json!([10, 20])));
        let mut node = Node::new();
        node.insert(&[""], "1");
        node.insert(&[""], "x");
        let value = read(ty, &node, true, &mut Vec::new(), &mut issues);
        assert_eq!(value, Some(json!([1])));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].loc, [LocPart::Index(1)]);
    }
}
