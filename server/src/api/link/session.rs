//! A link token as the widget sees it: the settings its request gave, whether it can still
//! link, and where an outcome that leaves the widget goes.

use crate::ReferenceServer;
use crate::infra::clock::to_micros;
use crate::infra::columns::from_json;
use crate::infra::failure::Failure;
use crate::infra::keys;

/// A link token's widget settings, read by the token a browser presents.
pub struct Session {
    pub token_hash: String,
    pub team_id: String,
    pub team_name: String,
    pub user_id: String,
    /// The provider the token was issued for: the widget goes straight to it.
    pub provider: Option<String>,
    /// The allowlist of providers the widget shows (`filter_on_providers`).
    pub filter: Option<Vec<String>>,
    /// Where an outcome goes, when the token gave a usable address.
    pub redirect: Option<url::Url>,
    /// `on_error: redirect`: a refused password or e-mail sign-in goes to `redirect`.
    pub errors_redirect: bool,
    /// `on_close: redirect`: the Close button goes to `redirect`.
    pub close_redirects: bool,
    /// Unused, unexpired, and its user not deleted: it can still link.
    pub live: bool,
}

#[derive(sqlx::FromRow)]
struct SessionRow {
    team_id: String,
    team_name: String,
    user_id: String,
    provider: Option<String>,
    redirect_url: Option<String>,
    filter_on_providers: Option<String>,
    on_error: Option<String>,
    on_close: Option<String>,
    expires_at: i64,
    used_at: Option<i64>,
    user_deleted_at: Option<i64>,
}

impl Session {
    /// The session of `token`, live or not; `None` for a token never issued.
    pub async fn find(s: &ReferenceServer, token: &str) -> Result<Option<Session>, Failure> {
        let token_hash = keys::digest(token);
        let row = s
            .store
            .autocommit()
            .optional::<SessionRow, _>(
                sqlx::query(
                    "SELECT t.team_id, tm.name AS team_name, t.user_id, t.provider, \
                     t.redirect_url, t.filter_on_providers, t.on_error, t.on_close, \
                     t.expires_at, t.used_at, u.deleted_at AS user_deleted_at \
                     FROM link_tokens t JOIN teams tm ON tm.id = t.team_id \
                     JOIN users u ON u.id = t.user_id WHERE t.token_hash = $1",
                )
                .bind(&token_hash),
            )
            .await?;
        let Some(row) = row else {
            return Ok(None);
        };
        let now = to_micros(s.clock.now());
        Ok(Some(Session {
            token_hash,
            live: row.used_at.is_none() && row.expires_at > now && row.user_deleted_at.is_none(),
            filter: row
                .filter_on_providers
                .as_deref()
                .map(from_json)
                .transpose()?,
            redirect: row.redirect_url.as_deref().and_then(usable_redirect),
            errors_redirect: row.on_error.as_deref() == Some("redirect"),
            close_redirects: row.on_close.as_deref() == Some("redirect"),
            team_id: row.team_id,
            team_name: row.team_name,
            user_id: row.user_id,
            provider: row.provider,
        }))
    }

    /// The token's `redirect_url` with the outcome's query parameters added to its own.
    pub fn redirect_with(&self, outcome: &[(&str, &str)]) -> Option<String> {
        let mut url = self.redirect.clone()?;
        url.query_pairs_mut().extend_pairs(outcome);
        Some(url.into())
    }
}

/// Schemes a browser would run or read locally rather than go to: never followed. An app's
/// own scheme (`myapp://linked`) is, as mobile apps receive outcomes by it.
const REFUSED_SCHEMES: &[&str] = &[
    "javascript",
    "data",
    "vbscript",
    "file",
    "blob",
    "about",
    "view-source",
    "filesystem",
];

/// `redirect_url` as an absolute address the widget may send a browser to.
fn usable_redirect(text: &str) -> Option<url::Url> {
    url::Url::parse(text)
        .ok()
        .filter(|url| !REFUSED_SCHEMES.contains(&url.scheme()))
}

#[cfg(test)]
mod tests {
    use super::usable_redirect;

    #[test]
    fn only_addresses_a_browser_goes_to_are_followed() {
        assert!(usable_redirect("https://app.example/linked?from=widget").is_some());
        assert!(usable_redirect("myapp://linked").is_some());
        for refused in [
            "javascript:alert(1)",
            "JavaScript:alert(1)",
            "data:text/html,<p>hi</p>",
            "file:///etc/passwd",
            "/relative/path",
            "",
        ] {
            assert!(usable_redirect(refused).is_none(), "{refused}");
        }
    }
}
