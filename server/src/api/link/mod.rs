//! Linking: link tokens, OAuth provider detail, the provider catalogue, and the hosted
//! link widget the tokens open.

mod pages;
mod session;
mod sign_in;
pub mod widget;

use crate::ReferenceServer;
use crate::domain::auth::LinkGrant;
use crate::domain::users::ensure_visible;
use crate::infra::clock::to_micros;
use crate::infra::columns::{self, from_json};
use crate::infra::failure::{Failure, unknown_value};
use crate::infra::keys::{self, SecretKind};
use crate::infra::store::Tx;
use covenant_runtime::Tristate;
use covenant_runtime::issue::{Issue, LocPart};
use health_api::models::*;

/// Link tokens are good for one use within ten minutes (the deployed client's fact).
pub const LINK_TOKEN_LIFETIME: chrono::Duration = chrono::Duration::minutes(10);

pub async fn create_token(
    s: &ReferenceServer,
    team_id: &str,
    body: CreateLinkTokenRequest,
) -> Result<LinkTokenResult, Failure> {
    let user_id = body.user_id.0.to_string();
    let provider = match &body.provider {
        Tristate::Value(p) => Some(p.as_str().to_string()),
        _ => None,
    };
    #[allow(deprecated)]
    let filter = match &body.filter_on_providers {
        Tristate::Value(list) => Some(columns::json(
            &list.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
        )?),
        _ => None,
    };
    let text = |value: &Tristate<String>| match value {
        Tristate::Value(v) => Some(v.clone()),
        _ => None,
    };
    let token = keys::generate(SecretKind::LinkToken);
    let now = s.clock.now();
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, &user_id).await?;
    let unknown = unknown_providers(&body);
    if !unknown.is_empty() {
        return Err(Failure::Invalid(unknown));
    }
    sqlx::query(
        "INSERT INTO link_tokens (token_hash, team_id, user_id, provider, created_at, expires_at, \
         redirect_url, filter_on_providers, on_error, on_close) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(keys::digest(&token))
    .bind(team_id)
    .bind(&user_id)
    .bind(&provider)
    .bind(to_micros(now))
    .bind(to_micros(now + LINK_TOKEN_LIFETIME))
    .bind(text(&body.redirect_url))
    .bind(filter)
    .bind(text(&body.on_error))
    .bind(text(&body.on_close))
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    // The token is URL-safe as generated; the widget reads everything else from its row.
    let link_web_url = format!("{}/link?token={token}", s.public_url);
    Ok(LinkTokenResult {
        link_token: token,
        link_web_url,
    })
}

/// Providers the request names that the catalogue lacks: a token for one would open a widget
/// with nothing to link.
fn unknown_providers(body: &CreateLinkTokenRequest) -> Vec<Issue> {
    let unknown = |p: &LinkProvider| matches!(p, LinkProvider::UnknownValue(_));
    let problem = |path: &[LocPart], p: &LinkProvider| {
        unknown_value("body", path, "provider", p.as_str(), LinkProvider::KNOWN)
    };
    let mut problems = Vec::new();
    if let Tristate::Value(p) = &body.provider
        && unknown(p)
    {
        problems.push(problem(&[LocPart::key("provider")], p));
    }
    #[allow(deprecated)]
    if let Tristate::Value(list) = &body.filter_on_providers {
        for (i, p) in list.iter().enumerate().filter(|(_, p)| unknown(p)) {
            problems.push(problem(
                &[LocPart::key("filter_on_providers"), LocPart::Index(i)],
                p,
            ));
        }
    }
    problems
}

/// Uses up a link token in `tx` if it is still good: unused, unexpired, its user not
/// deleted. Only one transaction can: another racing it answers false.
pub(crate) async fn use_up(tx: &mut Tx, token_hash: &str, now: i64) -> Result<bool, sqlx::Error> {
    let used = sqlx::query(
        "UPDATE link_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL \
         AND expires_at > $1 AND EXISTS (SELECT 1 FROM users u WHERE u.id = user_id \
         AND u.deleted_at IS NULL)",
    )
    .bind(now)
    .bind(token_hash)
    .execute(&mut ***tx)
    .await?;
    Ok(used.rows_affected() == 1)
}

/// A link token sent beside the team key was checked by the router; it must have been
/// issued to the same team, and this request uses it up when it succeeds.
pub async fn oauth_provider(
    s: &ReferenceServer,
    team_id: &str,
    link: Option<&LinkGrant>,
    slug: &str,
) -> Result<OAuthProviderDetail, Failure> {
    if let Some(grant) = link
        && grant.team_id != team_id
    {
        return Err(Failure::Forbidden(
            "The link token was issued to another team".to_string(),
        ));
    }
    let row = catalogue_entry(s, slug)
        .await?
        .ok_or_else(|| Failure::NotFound(format!("Provider {slug} not found")))?;
    let oauth: serde_json::Value = match &row.oauth {
        Some(text) => from_json(text)?,
        None => {
            return Err(Failure::NotFound(format!(
                "Provider {slug} has no OAuth flow"
            )));
        }
    };
    let text = |key: &str| oauth.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let detail = OAuthProviderDetail {
        name: row.name,
        slug: row.slug,
        description: row.description,
        id: oauth.get("id").and_then(|v| v.as_i64()).unwrap_or_default(),
        group: text("group").map_or(Tristate::Null, Tristate::Value),
        oauth_url: text("oauth_url").map_or(Tristate::Null, Tristate::Value),
        auth_type: columns::stored(&row.auth_type)?,
        source_type: columns::stored(&row.source_type)?,
        is_active: Some(true),
        backfill_num_days: oauth
            .get("backfill_num_days")
            .and_then(|v| v.as_i64())
            .map_or(Tristate::Null, Tristate::Value),
        logo: row.logo,
    };
    if let Some(grant) = link {
        let mut tx = s.store.write().await?;
        if !use_up(&mut tx, &grant.token_hash, to_micros(s.clock.now())).await? {
            return Err(Failure::Forbidden(
                "The link token was used by another request, expired or lost its user meanwhile"
                    .to_string(),
            ));
        }
        tx.commit().await?;
    }
    Ok(detail)
}

const PROVIDER_COLUMNS: &str =
    "slug, name, description, logo, auth_type, source_type, supported_resources, oauth";

/// A provider of the catalogue, as [`PROVIDER_COLUMNS`] read it.
#[derive(sqlx::FromRow)]
pub(super) struct ProviderRow {
    pub slug: String,
    pub name: String,
    pub description: String,
    pub logo: String,
    pub auth_type: String,
    pub source_type: String,
    pub supported_resources: String,
    pub oauth: Option<String>,
}

/// The catalogue's providers in its order, of one source type when one is given.
pub(super) async fn catalogue(
    s: &ReferenceServer,
    source_type: Option<&str>,
) -> Result<Vec<ProviderRow>, sqlx::Error> {
    let of_type = match source_type {
        Some(_) => " WHERE source_type = $1",
        None => "",
    };
    let statement = format!("SELECT {PROVIDER_COLUMNS} FROM providers{of_type} ORDER BY position");
    let mut query = sqlx::query(&statement);
    if let Some(source_type) = source_type {
        query = query.bind(source_type);
    }
    s.store.autocommit().all::<ProviderRow, _>(query).await
}

/// The catalogue's entry for `slug`.
pub(super) async fn catalogue_entry(
    s: &ReferenceServer,
    slug: &str,
) -> Result<Option<ProviderRow>, sqlx::Error> {
    let statement = format!("SELECT {PROVIDER_COLUMNS} FROM providers WHERE slug = $1");
    s.store
        .autocommit()
        .optional::<ProviderRow, _>(sqlx::query(&statement).bind(slug))
        .await
}

pub async fn providers(
    s: &ReferenceServer,
    source_type: Option<&str>,
) -> Result<Vec<Provider>, Failure> {
    let rows = catalogue(s, source_type).await?;
    Ok(rows.into_iter().map(provider).collect::<Result<_, _>>()?)
}

fn provider(row: ProviderRow) -> Result<Provider, sqlx::Error> {
    Ok(Provider {
        auth_type: Tristate::Value(columns::stored(&row.auth_type)?),
        supported_resources: Some(from_json(&row.supported_resources)?),
        name: row.name,
        slug: row.slug,
        description: row.description,
        logo: Some(row.logo),
    })
}
