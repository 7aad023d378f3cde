//! Lab orders (the reference server's own way to make one), the patient service centers near
//! an order's patient, and the order listing.

use crate::ReferenceServer;
use crate::domain::users::ensure_visible;
use crate::infra::clock::{to_micros, wire_time};
use crate::infra::columns::{self, from_json};
use crate::infra::failure::Failure;
use health_api::models::*;
use health_api::operations::*;

const EARTH_RADIUS_MILES: f64 = 3958.8;

/// Great-circle distance between two points, in miles.
pub fn haversine_miles((lat1, lng1): (f64, f64), (lat2, lng2): (f64, f64)) -> f64 {
    let (phi1, phi2) = (lat1.to_radians(), lat2.to_radians());
    let dphi = (lat2 - lat1).to_radians();
    let dlambda = (lng2 - lng1).to_radians();
    let a = (dphi / 2.0).sin().powi(2) + phi1.cos() * phi2.cos() * (dlambda / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_MILES * a.sqrt().asin()
}

pub async fn create(
    s: &ReferenceServer,
    team_id: &str,
    body: CreateLabOrderRequest,
) -> Result<CreateLabOrderResponse, Failure> {
    let user_id = body.user_id.0.to_string();
    let lab_test_id = body.lab_test_id.0.to_string();
    let interpretation = body.interpretation.into_option();
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, &user_id).await?;
    let (lab_id, lab_slug): (i64, String) = sqlx::query_as(
        "SELECT t.lab_id, l.slug FROM lab_tests t JOIN labs l ON l.id = t.lab_id WHERE t.id = $1",
    )
    .bind(&lab_test_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| Failure::NotFound(format!("Lab test {lab_test_id} not found")))?;
    let zip_code: Option<String> =
        sqlx::query_scalar("SELECT zip_code FROM patient_infos WHERE user_id = $1")
            .bind(&user_id)
            .fetch_optional(&mut **tx)
            .await?;
    let Some(zip_code) = zip_code else {
        return Ok(CreateLabOrderResponse::BadRequest(ErrorMessage {
            detail: format!(
                "User {user_id} has no patient info: send PATCH /v2/user/{user_id}/info first, \
                 so the order has an address to be drawn near"
            ),
        }));
    };
    let id = uuid::Uuid::new_v4().to_string();
    sqlx::query(
        "INSERT INTO lab_orders (id, team_id, user_id, lab_test_id, lab_id, zip_code, \
         interpretation, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(&id)
    .bind(team_id)
    .bind(&user_id)
    .bind(&lab_test_id)
    .bind(lab_id)
    .bind(zip_code)
    .bind(interpretation.as_ref().map(Interpretation::as_str))
    .bind(now)
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(CreateLabOrderResponse::Created(LabOrder {
        id: columns::uuid(&id)?,
        user_id: body.user_id,
        lab_test_id: body.lab_test_id,
        lab_id,
        lab_slug: columns::stored(&lab_slug)?,
        interpretation,
        created_on: wire_time(now),
    }))
}

/// The centers of the order's lab within the radius of the patient's address, nearest first,
/// keeping only those with every requested capability.
pub async fn service_centers(
    s: &ReferenceServer,
    team_id: &str,
    input: ListPscInfoInput,
) -> Result<PscListing, Failure> {
    let order_id = input.order_id.0.to_string();
    let mut tx = s.store.read().await?;
    let (lab_id, zip, slug): (i64, String, String) = sqlx::query_as(
        "SELECT o.lab_id, o.zip_code, l.slug FROM lab_orders o \
         JOIN labs l ON l.id = o.lab_id \
         JOIN users u ON u.id = o.user_id \
         WHERE o.id = $1 AND o.team_id = $2 AND u.deleted_at IS NULL",
    )
    .bind(&order_id)
    .bind(team_id)
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| Failure::NotFound(format!("Order {order_id} not found")))?;
    let origin = locate(&mut tx, &zip).await?.ok_or_else(|| {
        Failure::NotFound(format!(
            "No coordinates are known for ZIP code `{zip}` of the order's patient address"
        ))
    })?;
    let rows: Vec<CenterRow> =
        sqlx::query_as("SELECT site_code, record, lat, lng FROM service_centers WHERE lab_id = $1")
            .bind(lab_id)
            .fetch_all(&mut **tx)
            .await?;
    let wanted = input.capabilities.unwrap_or_default();
    let mut found = Vec::new();
    for row in rows {
        let place = (row.lat, row.lng);
        let miles = haversine_miles(origin, place);
        if miles > input.radius as f64 {
            continue;
        }
        let center = service_center(row, place, miles)?;
        if wanted.iter().all(|c| center.capabilities.contains(c)) {
            found.push((miles, center));
        }
    }
    found.sort_by(|a, b| {
        a.0.total_cmp(&b.0)
            .then_with(|| a.1.site_code.cmp(&b.1.site_code))
    });
    Ok(PscListing {
        lab_id,
        slug: columns::stored(&slug)?,
        patient_service_centers: found.into_iter().map(|(_, c)| c).collect(),
    })
}

/// Where a ZIP code is: its own centroid, or else that of the known ZIP code sharing the
/// longest prefix with it (ZIP codes are numbered by region).
async fn locate(
    tx: &mut crate::infra::store::Tx,
    zip: &str,
) -> Result<Option<(f64, f64)>, sqlx::Error> {
    let zip: String = zip.chars().take(5).collect();
    for len in (1..=zip.len()).rev() {
        let prefix = &zip[..len];
        if !prefix.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let place: Option<(f64, f64)> = sqlx::query_as(
            "SELECT lat, lng FROM zip_codes WHERE zip_code LIKE $1 ORDER BY zip_code LIMIT 1",
        )
        .bind(format!("{prefix}%"))
        .fetch_optional(&mut ***tx)
        .await?;
        if place.is_some() {
            return Ok(place);
        }
    }
    Ok(None)
}

/// A patient service center as stored.
#[derive(sqlx::FromRow)]
struct CenterRow {
    site_code: String,
    record: String,
    lat: f64,
    lng: f64,
}

fn service_center(
    row: CenterRow,
    (lat, lng): (f64, f64),
    miles: f64,
) -> Result<PatientServiceCenter, sqlx::Error> {
    let record: serde_json::Map<String, serde_json::Value> = from_json(&row.record)?;
    let text = |key: &str| {
        record
            .get(key)
            .and_then(|v| v.as_str())
            .unwrap_or_default()
            .to_string()
    };
    // Stored lists of enum names, read through the enums' `FromStr`.
    let names = |key: &str| -> Result<Vec<&str>, sqlx::Error> {
        let unreadable = || sqlx::Error::Decode(format!("`{key}` is not a list of names").into());
        match record.get(key) {
            None | Some(serde_json::Value::Null) => Ok(Vec::new()),
            Some(serde_json::Value::Array(items)) => items
                .iter()
                .map(|item| item.as_str().ok_or_else(unreadable))
                .collect(),
            Some(_) => Err(unreadable()),
        }
    };
    Ok(PatientServiceCenter {
        metadata: PscMetadata {
            name: text("name"),
            state: text("state"),
            city: text("city"),
            zip_code: text("zip_code"),
            first_line: text("first_line"),
            second_line: text("second_line"),
            phone_number: text("phone_number"),
            fax_number: text("fax_number"),
            hours: record.get("hours").cloned().filter(|h| !h.is_null()),
        },
        // Deployed clients parse the distance as an integer.
        distance: format!("{}", miles.round() as i64),
        capabilities: names("capabilities")?
            .into_iter()
            .map(columns::stored)
            .collect::<Result<_, _>>()?,
        site_code: row.site_code,
        supported_bill_types: names("supported_bill_types")?
            .into_iter()
            .map(columns::stored)
            .collect::<Result<_, _>>()?,
        location: GeoLocation { lat, lng },
    })
}

pub async fn list(
    s: &ReferenceServer,
    team_id: &str,
    interpretation: Option<&Interpretation>,
) -> Result<LabOrderList, Failure> {
    let rows: Vec<OrderRow> = s.store.autocommit().all(sqlx::query(
        "SELECT o.id, o.user_id, o.lab_test_id, o.lab_id, o.interpretation, o.created_at, l.slug \
         FROM lab_orders o JOIN labs l ON l.id = o.lab_id JOIN users u ON u.id = o.user_id \
         WHERE o.team_id = $1 AND u.deleted_at IS NULL ORDER BY o.created_at, o.id",
    )
    .bind(team_id))
    .await?;
    let wanted = interpretation.map(Interpretation::as_str);
    let mut orders = Vec::new();
    for row in rows {
        if wanted.is_some() && row.interpretation.as_deref() != wanted {
            continue;
        }
        orders.push(LabOrder {
            id: columns::uuid(&row.id)?,
            user_id: columns::uuid(&row.user_id)?,
            lab_test_id: columns::uuid(&row.lab_test_id)?,
            lab_id: row.lab_id,
            lab_slug: columns::stored(&row.slug)?,
            interpretation: row
                .interpretation
                .as_deref()
                .map(columns::stored)
                .transpose()?,
            created_on: wire_time(row.created_at),
        });
    }
    Ok(LabOrderList { orders })
}

/// A lab order as its listing reads it.
#[derive(sqlx::FromRow)]
struct OrderRow {
    id: String,
    user_id: String,
    lab_test_id: String,
    lab_id: i64,
    interpretation: Option<String>,
    created_at: i64,
    slug: String,
}

#[cfg(test)]
mod tests {
    use super::haversine_miles;

    #[test]
    fn distances_are_great_circle_miles() {
        // New York City Hall to Los Angeles City Hall: about 2,445 miles.
        let miles = haversine_miles((40.7128, -74.0060), (34.0537, -118.2428));
        assert!((miles - 2445.0).abs() < 10.0, "{miles}");
        assert_eq!(haversine_miles((1.0, 2.0), (1.0, 2.0)), 0.0);
    }
}
