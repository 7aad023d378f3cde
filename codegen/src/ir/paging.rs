//! How a listing's next page is asked for (`@paginated`), and the paths into its answer.

use super::*;

/// A field of a listing's answer by its path from the body: `["metadata", "continue"]` is the
/// `continue` field of the body's `metadata`.
pub type FieldPath = Vec<String>;

#[derive(Clone, Debug, PartialEq)]
pub enum Paging {
    /// Page-number paging: request params for page and size, the items field.
    Page {
        page: String,
        size: String,
        items: FieldPath,
    },
    /// Offset paging: the next request's `offset` is this one's plus the items it got; a page
    /// without items, or with fewer than `limit` asked, is the last.
    Offset {
        offset: String,
        limit: Option<String>,
        items: FieldPath,
    },
    /// Cursor paging: the request param, the response field with the next cursor (absent,
    /// null or `""` on the last page), items.
    Cursor {
        param: String,
        next: FieldPath,
        items: FieldPath,
    },
    /// The next page is the URL in a field of the body (Twilio's `next_page_uri`), resolved
    /// against the page's own; absent, null or `""` on the last page.
    NextUrl { next: FieldPath, items: FieldPath },
    /// The next page is the URL of the 200's `Link` header with `rel="next"` (RFC 8288);
    /// the last page has none. `items` names the field holding the items, `None` when the
    /// body is the list.
    Link {
        header: String,
        items: Option<FieldPath>,
    },
    /// The next request names the last item seen: `param` takes the `id` field of the last
    /// of `items`, while the boolean field `more` says there are more (or, without it, while
    /// a page has items).
    After {
        param: String,
        items: FieldPath,
        id: String,
        more: Option<FieldPath>,
    },
}

/// The fields a path names from `model`, each step but the last a model.
pub fn path_fields<'s>(
    spec: &'s Spec,
    model: &'s Model,
    path: &[String],
) -> Option<Vec<&'s Field>> {
    let mut model = Some(model);
    let mut out = Vec::with_capacity(path.len());
    for name in path {
        let field = model?.field(name)?;
        model = match &field.ty {
            Type::Model(id) => Some(spec.model(*id)),
            _ => None,
        };
        out.push(field);
    }
    Some(out)
}

impl Paging {
    /// The path to the response field holding a page's items; `None` when the body is the
    /// list.
    pub fn items(&self) -> Option<&FieldPath> {
        match self {
            Paging::Page { items, .. }
            | Paging::Offset { items, .. }
            | Paging::Cursor { items, .. }
            | Paging::NextUrl { items, .. }
            | Paging::After { items, .. } => Some(items),
            Paging::Link { items, .. } => items.as_ref(),
        }
    }
}
