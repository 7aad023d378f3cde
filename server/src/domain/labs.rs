//! Lab test markers: filtered and paged listings, the markers of a lab test, and of an
//! order set.

use crate::ReferenceServer;
use crate::infra::columns::{self, from_json};
use crate::infra::failure::{Failure, issue};
use crate::infra::query::{Bind, Filter, contains_pattern};
use crate::infra::store::flag;
use covenant_runtime::issue::IssueKind;
use health_api::models::*;
use health_api::operations::*;
use sqlx::FromRow;
use sqlx::any::AnyRow;

const MARKER_COLUMNS: &str = "m.id, m.lab_id, m.name, m.slug, m.description, m.provider_id, \
     m.marker_type, m.unit, m.price, m.expected_results";

pub async fn list(s: &ReferenceServer, input: ListMarkersInput) -> Result<MarkerList, Failure> {
    let mut filter = Filter::default();
    // `lab_slug` takes precedence over `lab_id` when both are given.
    if let Some(slug) = &input.lab_slug {
        let p = filter.placeholder(Bind::Text(slug.clone()));
        filter.clause(format!(
            "m.lab_id IN (SELECT id FROM labs WHERE slug = {p})"
        ));
    } else if let Some(ids) = &input.lab_id {
        filter.one_of("m.lab_id", ids.iter().map(|id| Bind::Int(*id)));
    }
    let name = input.name.trim();
    if !name.is_empty() {
        let p = filter.placeholder(Bind::Text(contains_pattern(name)));
        filter.clause(format!("m.search_text LIKE {p} ESCAPE '\\'"));
    }
    if let Some(enabled) = input.a_la_carte_enabled {
        let p = filter.placeholder(Bind::Int(flag(enabled)));
        filter.clause(format!("m.a_la_carte_enabled = {p}"));
    }
    if let Some(account) = &input.lab_account_id {
        let lab_id = lab_of_account(s, &account.0.to_string()).await?;
        let p = filter.placeholder(Bind::Int(lab_id));
        filter.clause(format!("m.lab_id = {p}"));
    }
    page(s, "markers m", &filter, "m.id", input.page, input.size).await
}

/// The lab whose markers a lab account makes available.
async fn lab_of_account(s: &ReferenceServer, account: &str) -> Result<i64, Failure> {
    s.store
        .autocommit()
        .optional_value(sqlx::query("SELECT lab_id FROM lab_accounts WHERE id = $1").bind(account))
        .await?
        .ok_or_else(|| Failure::NotFound(format!("Lab account {account} not found")))
}

/// One page of markers and the paging figures of the whole listing.
async fn page(
    s: &ReferenceServer,
    from: &str,
    filter: &Filter,
    order: &str,
    page: i64,
    size: i64,
) -> Result<MarkerList, Failure> {
    let mut tx = s.store.read().await?;
    let count_sql = format!("SELECT COUNT(*) AS total FROM {from}{}", filter.sql());
    let (total,): (i64,) = FromRow::from_row(
        &filter
            .bind(sqlx::query(&count_sql))
            .fetch_one(&mut **tx)
            .await?,
    )?;
    let offset = (page - 1).saturating_mul(size);
    let rows_sql = format!(
        "SELECT {MARKER_COLUMNS} FROM {from}{} ORDER BY {order} LIMIT {size} OFFSET {offset}",
        filter.sql()
    );
    let rows = filter
        .bind(sqlx::query(&rows_sql))
        .fetch_all(&mut **tx)
        .await?;
    let markers = rows.iter().map(marker).collect::<Result<Vec<_>, _>>()?;
    Ok(paged(markers, total, page, size))
}

fn paged(markers: Vec<Marker>, total: i64, page: i64, size: i64) -> MarkerList {
    MarkerList {
        markers,
        total: Some(total),
        page: Some(page),
        size: Some(size),
        pages: Some((total + size - 1) / size),
    }
}

/// A marker as [`MARKER_COLUMNS`] read it.
#[derive(sqlx::FromRow)]
struct MarkerRow {
    id: i64,
    lab_id: i64,
    name: String,
    slug: String,
    description: String,
    provider_id: String,
    marker_type: String,
    unit: Option<String>,
    price: String,
    expected_results: String,
}

fn marker(row: &AnyRow) -> Result<Marker, sqlx::Error> {
    let row = MarkerRow::from_row(row)?;
    Ok(Marker {
        r#type: columns::stored(&row.marker_type)?,
        expected_results: from_json(&row.expected_results)?,
        id: row.id,
        name: row.name,
        slug: row.slug,
        description: row.description,
        lab_id: row.lab_id,
        provider_id: row.provider_id,
        unit: row.unit,
        price: row.price,
    })
}

pub async fn of_lab_test(
    s: &ReferenceServer,
    input: ListLabTestMarkersInput,
) -> Result<MarkerList, Failure> {
    let lab_test_id = input.lab_test_id.0.to_string();
    let lab_id: i64 = s
        .store
        .autocommit()
        .optional_value(
            sqlx::query("SELECT lab_id FROM lab_tests WHERE id = $1").bind(&lab_test_id),
        )
        .await?
        .ok_or_else(|| Failure::NotFound(format!("Lab test {lab_test_id} not found")))?;
    if let Some(account) = &input.lab_account_id
        && lab_of_account(s, &account.0.to_string()).await? != lab_id
    {
        return Err(Failure::NotFound(format!(
            "Lab test {lab_test_id} is not available to lab account {}",
            account.0
        )));
    }
    let mut filter = Filter::default();
    let p = filter.placeholder(Bind::Text(lab_test_id));
    filter.clause(format!("t.lab_test_id = {p}"));
    page(
        s,
        "lab_test_markers t JOIN markers m ON m.id = t.marker_id",
        &filter,
        "t.position",
        input.page,
        input.size,
    )
    .await
}

/// The markers of some lab tests plus add-on marker codes, each marker once, in the order
/// of the request. Add-on codes are looked up in the labs of the lab tests (any lab when no
/// lab test is named).
pub async fn of_order_set(
    s: &ReferenceServer,
    input: ListOrderSetMarkersInput,
) -> Result<MarkerList, Failure> {
    let mut tx = s.store.read().await?;
    let mut problems = Vec::new();
    let mut markers: Vec<Marker> = Vec::new();
    let mut labs: Vec<i64> = Vec::new();
    for (i, id) in input.body.lab_test_ids.iter().enumerate() {
        let lab: Option<i64> = sqlx::query_scalar("SELECT lab_id FROM lab_tests WHERE id = $1")
            .bind(id)
            .fetch_optional(&mut **tx)
            .await?;
        let Some(lab) = lab else {
            problems.push(issue(
                "body",
                &["lab_test_ids".into(), i.into()],
                format!("Unknown lab test `{id}`"),
                IssueKind::Value,
            ));
            continue;
        };
        labs.push(lab);
        let rows = sqlx::query(&format!(
            "SELECT {MARKER_COLUMNS} FROM lab_test_markers t JOIN markers m ON m.id = t.marker_id \
             WHERE t.lab_test_id = $1 ORDER BY t.position"
        ))
        .bind(id)
        .fetch_all(&mut **tx)
        .await?;
        for row in &rows {
            push_unique(&mut markers, marker(row)?);
        }
    }
    for (i, code) in input.body.add_on.provider_ids.iter().enumerate() {
        let rows = sqlx::query(&format!(
            "SELECT {MARKER_COLUMNS} FROM markers m WHERE m.provider_id = $1 ORDER BY m.lab_id"
        ))
        .bind(code)
        .fetch_all(&mut **tx)
        .await?;
        let mut found = false;
        for row in &rows {
            let m = marker(row)?;
            if labs.is_empty() || labs.contains(&m.lab_id) {
                found = true;
                push_unique(&mut markers, m);
                if labs.is_empty() {
                    break;
                }
            }
        }
        if !found {
            problems.push(issue(
                "body",
                &["add_on".into(), "provider_ids".into(), i.into()],
                format!("No marker with code `{code}` in the labs of the order set"),
                IssueKind::Value,
            ));
        }
    }
    if !problems.is_empty() {
        return Err(Failure::Invalid(problems));
    }
    let total = markers.len() as i64;
    let start = ((input.page - 1).saturating_mul(input.size)).min(total) as usize;
    let end = (start + input.size as usize).min(markers.len());
    let page_items = markers.drain(start..end).collect();
    Ok(paged(page_items, total, input.page, input.size))
}

fn push_unique(markers: &mut Vec<Marker>, marker: Marker) {
    if !markers.iter().any(|m| m.id == marker.id) {
        markers.push(marker);
    }
}
