//! `@paginated(…)`: how a listing's next page is asked for.

use super::Lowerer;
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;

const STYLES: &str = "`page: p, size: s, items: f`, `offset: p, items: f` (with `limit: p`), \
                      `cursor: p, next: f, items: f`, `next_url: f, items: f`, \
                      `link: Header` (with `items: f` when the body is no list) or \
                      `after: p, items: f` (with `more: f`, `id: f`)";

/// Arguments that name a field of the answer, by a path into it (`metadata.continue`).
const ANSWER_FIELDS: [&str; 4] = ["next", "items", "more", "next_url"];

/// What names a style, and the arguments it takes beside: (required, optional).
const STYLE_ARGS: [(&str, &[&str], &[&str]); 6] = [
    ("page", &["size", "items"], &[]),
    ("offset", &["items"], &["limit"]),
    ("cursor", &["next", "items"], &[]),
    ("next_url", &["items"], &[]),
    ("link", &[], &["items"]),
    ("after", &["items"], &["more", "id"]),
];

impl Lowerer<'_> {
    pub(super) fn paging(
        &mut self,
        a: &ast::Annotation,
        ep: &Endpoint,
        models: &[Model],
    ) -> Option<Paging> {
        let args = self.named_args(
            a,
            &[
                "page", "size", "offset", "limit", "cursor", "next", "next_url", "items", "link",
                "after", "more", "id",
            ],
        );
        let mut paths: Vec<(&str, &[ast::Ident])> = Vec::new();
        for (name, value) in &args {
            let ValueKind::Ref(path) = &value.kind else {
                self.bad_args(a, STYLES);
                return None;
            };
            if path.len() > 1 && !ANSWER_FIELDS.contains(name) {
                let span = path[0].span.to(path[path.len() - 1].span);
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    span,
                    format!("`{name}` names a parameter, which is no path"),
                )
                .label("a parameter of the endpoint, by its name");
                return None;
            }
            paths.push((name, path));
        }
        let get = |k: &str| paths.iter().find(|(n, _)| *n == k).map(|(_, p)| *p);
        let styles: Vec<&(&str, &[&str], &[&str])> = STYLE_ARGS
            .iter()
            .filter(|(key, _, _)| get(key).is_some())
            .collect();
        let [(style, required, optional)] = styles.as_slice() else {
            self.bad_args(a, STYLES);
            return None;
        };
        let fits = required.iter().all(|r| get(r).is_some())
            && paths
                .iter()
                .all(|(n, _)| n == style || required.contains(n) || optional.contains(n));
        if !fits {
            self.bad_args(a, STYLES);
            return None;
        }
        let param = |k: &str| get(k).map(|p| p[0].clone());
        // Read before the style's own arguments, and reported with theirs.
        let read_items =
            get("items").map(|path| self.answer_of(ep, path, models, AnswerKind::Items));
        let items = read_items.clone().flatten();
        let items_or_none = || items.clone().unwrap_or_default();
        let paging = match *style {
            "page" => {
                let (page, size) = (param("page")?, param("size")?);
                self.param_exists(ep, &page);
                self.param_exists(ep, &size);
                Paging::Page {
                    page: page.text,
                    size: size.text,
                    items: items_or_none(),
                }
            }
            "offset" => {
                let offset = param("offset")?;
                self.whole_number_param(ep, &offset);
                let limit = param("limit");
                if let Some(limit) = &limit {
                    self.whole_number_param(ep, limit);
                }
                Paging::Offset {
                    offset: offset.text,
                    limit: limit.map(|l| l.text),
                    items: items_or_none(),
                }
            }
            "cursor" => {
                let cursor = param("cursor")?;
                self.param_exists(ep, &cursor);
                let next = self.answer_of(
                    ep,
                    get("next")?,
                    models,
                    AnswerKind::Text("the next cursor"),
                )?;
                Paging::Cursor {
                    param: cursor.text,
                    next,
                    items: items_or_none(),
                }
            }
            "next_url" => {
                let next = self.answer_of(
                    ep,
                    get("next_url")?,
                    models,
                    AnswerKind::Text("the next page's URL"),
                )?;
                Paging::NextUrl {
                    next,
                    items: items_or_none(),
                }
            }
            "link" => Paging::Link {
                header: self.link_header(ep, &param("link")?)?,
                items,
            },
            _ => {
                let after = param("after")?;
                self.param_exists(ep, &after);
                let more = match get("more") {
                    Some(path) => Some(self.answer_of(ep, path, models, AnswerKind::More)?),
                    None => None,
                };
                let id = param("id").map_or_else(|| "id".to_string(), |i| i.text);
                let items_path = get("items")?;
                self.last_item_id(ep, &after, items_path, &id, models);
                Paging::After {
                    param: after.text,
                    items: items_or_none(),
                    id,
                    more,
                }
            }
        };
        match read_items {
            Some(None) => None,
            _ => Some(paging),
        }
    }

    /// The header a `link` listing pages by, as its 200 declares it.
    fn link_header(&mut self, ep: &Endpoint, link: &ast::Ident) -> Option<String> {
        let ok = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200));
        let declared = ok.and_then(|r| {
            r.headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(&link.text))
        });
        match declared {
            Some(h) if h.ty == Type::Primitive(Primitive::String) => Some(h.name.clone()),
            _ => {
                self.error(
                    diagnostic_codes::UNKNOWN_REFERENCE,
                    link.span,
                    format!(
                        "the 200 of `{}` has no string header `{}`",
                        ep.name, link.text
                    ),
                )
                .label("unknown response header")
                .help(format!(
                    "declare it: `response 200: … headers {{ {}?: string }}`",
                    link.text
                ));
                None
            }
        }
    }

    /// An offset or a limit: a whole-number parameter of the endpoint.
    fn whole_number_param(&mut self, ep: &Endpoint, name: &ast::Ident) {
        self.param_exists(ep, name);
        let param = ep.params.iter().find(|p| p.field.name == name.text);
        if param.is_some_and(|p| p.field.ty != Type::Primitive(Primitive::Int)) {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                name.span,
                format!(
                    "`{}` counts items: it must be an `int` parameter",
                    name.text
                ),
            )
            .label("not an int");
        }
    }

    /// The field a path names in the 200's body, each step but the last a model.
    fn answer_field<'m>(
        &mut self,
        ep: &Endpoint,
        path: &[ast::Ident],
        models: &'m [Model],
    ) -> Option<(FieldPath, &'m Field)> {
        let body = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))
            .and_then(|r| r.body.as_ref());
        let mut model = match body {
            Some(Type::Model(id)) => models.get(id.index()),
            _ => None,
        };
        let mut names = Vec::new();
        let mut found = None;
        for (depth, step) in path.iter().enumerate() {
            let Some(field) = model.and_then(|m| m.field(&step.text)) else {
                let whole: Vec<&str> = path.iter().map(|i| i.text.as_str()).collect();
                self.error(
                    diagnostic_codes::UNKNOWN_REFERENCE,
                    step.span,
                    format!(
                        "the 200 of `{}` has no field `{}`",
                        ep.name,
                        whole[..=depth].join(".")
                    ),
                )
                .label("unknown response field");
                return None;
            };
            names.push(field.name.clone());
            model = match &field.ty {
                Type::Model(id) => models.get(id.index()),
                _ => None,
            };
            found = Some(field);
        }
        Some((names, found?))
    }

    /// A path into the 200's body whose field is of the kind the style reads (`expected`,
    /// holding `what`).
    fn answer_of(
        &mut self,
        ep: &Endpoint,
        path: &[ast::Ident],
        models: &[Model],
        kind: AnswerKind,
    ) -> Option<FieldPath> {
        let (names, field) = self.answer_field(ep, path, models)?;
        let (fits, what, expected) = match kind {
            AnswerKind::Items => (
                matches!(field.ty, Type::List(..)),
                "the page's items",
                "a list",
            ),
            AnswerKind::Text(what) => (
                matches!(
                    field.ty,
                    Type::Primitive(Primitive::String | Primitive::Uri)
                ),
                what,
                "a string",
            ),
            AnswerKind::More => (
                field.ty == Type::Primitive(Primitive::Bool),
                "whether more pages follow",
                "a bool",
            ),
        };
        if fits {
            return Some(names);
        }
        let span = path[0].span.to(path[path.len() - 1].span);
        let whole: Vec<&str> = path.iter().map(|i| i.text.as_str()).collect();
        self.error(
            diagnostic_codes::BAD_ANNOTATION,
            span,
            format!("`{}` must be {expected}, holding {what}", whole.join(".")),
        )
        .label(format!("not {expected}"));
        None
    }

    /// `after` takes the `id` of the last item: the items must be models with that field,
    /// of the parameter's type.
    fn last_item_id(
        &mut self,
        ep: &Endpoint,
        after: &ast::Ident,
        items: &[ast::Ident],
        id: &str,
        models: &[Model],
    ) {
        let Some((_, list)) = self.answer_field(ep, items, models) else {
            return;
        };
        let item = match &list.ty {
            Type::List(item, _) => match item.as_ref() {
                Type::Model(m) => models.get(m.index()),
                _ => None,
            },
            _ => None,
        };
        let param = ep.params.iter().find(|p| p.field.name == after.text);
        let Some(param) = param else {
            return;
        };
        let Some(item) = item else {
            let span = items[0].span.to(items[items.len() - 1].span);
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                span,
                "the items must be a list of models in the 200's body",
            )
            .label("no list of models with ids")
            .help("the next request names the last item by its id");
            return;
        };
        let fits = item
            .field(id)
            .is_some_and(|f| f.ty == param.field.ty && f.presence == Presence::Required);
        if !fits {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                after.span,
                format!(
                    "`{}` takes the `{id}` of the last item, which `{}` items lack",
                    after.text, item.name
                ),
            )
            .label("no such required field of the parameter's type")
            .help("name the items' identifying field with `id: field`");
        }
    }
}

/// What a path into a listing's answer must reach.
#[derive(Clone, Copy)]
enum AnswerKind {
    /// The page's items: a list.
    Items,
    /// A cursor or a URL: a string, holding what is said.
    Text(&'static str),
    /// Whether more pages follow: a bool.
    More,
}
