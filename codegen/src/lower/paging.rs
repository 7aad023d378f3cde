//! `@paginated(…)`: how a listing's next page is asked for.

use super::Lowerer;
use crate::ast::{self, ValueKind};
use crate::diagnostic_codes;
use crate::ir::*;

const STYLES: &str = "`page: p, size: s, items: f`, `cursor: p, next: f, items: f`, \
                      `link: Header` (with `items: f` when the body is no list) or \
                      `after: p, items: f` (with `more: f`, `id: f`)";

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
                "page", "size", "cursor", "next", "items", "link", "after", "more", "id",
            ],
        );
        let get = |k: &str| {
            args.iter()
                .find(|(n, _)| *n == k)
                .and_then(|(_, v)| match &v.kind {
                    ValueKind::Ref(p) if p.len() == 1 => Some(p[0].clone()),
                    _ => None,
                })
        };
        // `next: meta.next`: the names are fields of the body itself, not paths into it.
        if let Some((name, path)) = args.iter().find_map(|(n, v)| match &v.kind {
            ValueKind::Ref(p) if p.len() > 1 => Some((*n, p)),
            _ => None,
        }) {
            let dotted: Vec<&str> = path.iter().map(|i| i.text.as_str()).collect();
            let span = path[0].span.to(path[path.len() - 1].span);
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                span,
                format!(
                    "`@paginated` names fields of the response body itself, not `{}`",
                    dotted.join(".")
                ),
            )
            .label(format!("`{name}` is a path into a nested model"))
            .help("a cursor or items field inside a nested model cannot be paged by yet; leave `@paginated` out, and the endpoint is a plain call whose answer holds the cursor");
            return None;
        }
        let given: Vec<&str> = args.iter().map(|(n, _)| *n).collect();
        let only = |names: &[&str]| given.iter().all(|g| names.contains(g));
        let items = get("items");
        let style = (get("page"), get("cursor"), get("link"), get("after"));
        let paging = match style {
            (Some(page), None, None, None)
                if only(&["page", "size", "items"]) && given.len() == 3 =>
            {
                let (Some(size), Some(items)) = (get("size"), items.clone()) else {
                    self.bad_args(a, STYLES);
                    return None;
                };
                self.param_exists(ep, &page);
                self.param_exists(ep, &size);
                Paging::Page {
                    page: page.text,
                    size: size.text,
                    items: items.text,
                }
            }
            (None, Some(cursor), None, None)
                if only(&["cursor", "next", "items"]) && given.len() == 3 =>
            {
                let (Some(next), Some(items)) = (get("next"), items.clone()) else {
                    self.bad_args(a, STYLES);
                    return None;
                };
                self.param_exists(ep, &cursor);
                self.response_field_exists(ep, &next, models);
                Paging::Cursor {
                    param: cursor.text,
                    next: next.text,
                    items: items.text,
                }
            }
            (None, None, Some(link), None) if only(&["link", "items"]) => {
                let header = self.link_header(ep, &link)?;
                Paging::Link {
                    header,
                    items: items.as_ref().map(|i| i.text.clone()),
                }
            }
            (None, None, None, Some(after)) if only(&["after", "items", "more", "id"]) => {
                let Some(items) = items.clone() else {
                    self.bad_args(a, STYLES);
                    return None;
                };
                self.param_exists(ep, &after);
                let more = get("more");
                if let Some(more) = &more {
                    self.more_field(ep, more, models);
                }
                let id = get("id").map_or_else(|| "id".to_string(), |i| i.text);
                self.last_item_id(ep, &after, &items, &id, models);
                Paging::After {
                    param: after.text,
                    items: items.text,
                    id,
                    more: more.map(|m| m.text),
                }
            }
            _ => {
                self.bad_args(a, STYLES);
                return None;
            }
        };
        if let Some(items) = items {
            self.response_field_exists(ep, &items, models);
        }
        Some(paging)
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

    /// `after` takes the `id` of the last item: the items must be models with that field,
    /// of the parameter's type.
    fn last_item_id(
        &mut self,
        ep: &Endpoint,
        after: &ast::Ident,
        items: &ast::Ident,
        id: &str,
        models: &[Model],
    ) {
        let item = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))
            .and_then(|r| match &r.body {
                Some(Type::Model(page)) => models.get(page.index())?.field(&items.text),
                _ => None,
            })
            .and_then(|f| match &f.ty {
                Type::List(item, _) => match item.as_ref() {
                    Type::Model(m) => models.get(m.index()),
                    _ => None,
                },
                _ => None,
            });
        let param = ep.params.iter().find(|p| p.field.name == after.text);
        let Some(param) = param else {
            return;
        };
        let Some(item) = item else {
            self.error(
                diagnostic_codes::BAD_ANNOTATION,
                items.span,
                format!(
                    "`{}` must be a list of models in the 200's body",
                    items.text
                ),
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

    /// `more`: a boolean field of the 200's body.
    fn more_field(&mut self, ep: &Endpoint, more: &ast::Ident, models: &[Model]) {
        let field = ep
            .responses
            .iter()
            .find(|r| r.status == StatusPattern::Exact(200))
            .and_then(|r| match &r.body {
                Some(Type::Model(id)) => models.get(id.index())?.field(&more.text),
                _ => None,
            });
        match field {
            None => self.response_field_exists(ep, more, models),
            Some(f) if f.ty == Type::Primitive(Primitive::Bool) => {}
            Some(_) => {
                self.error(
                    diagnostic_codes::BAD_ANNOTATION,
                    more.span,
                    format!("`{}` must be a boolean saying more pages follow", more.text),
                )
                .label("not a bool");
            }
        }
    }

    pub(super) fn response_field_exists(
        &mut self,
        ep: &Endpoint,
        name: &ast::Ident,
        models: &[Model],
    ) {
        let ok = ep.responses.iter().any(|r| match &r.body {
            Some(Type::Model(id)) => models
                .get(id.index())
                .is_some_and(|m| m.field(&name.text).is_some()),
            _ => false,
        });
        if !ok {
            self.error(
                diagnostic_codes::UNKNOWN_REFERENCE,
                name.span,
                format!("the response of `{}` has no field `{}`", ep.name, name.text),
            )
            .label("unknown response field");
        }
    }
}
