//! Patient info and insurance: stored as the records the API echoes, latest first.

use crate::ReferenceServer;
use crate::domain::users::ensure_visible;
use crate::infra::clock::to_micros;
use crate::infra::columns::{self, from_json};
use crate::infra::failure::{Failure, issue};
use crate::infra::store::flag;
use covenant_runtime::issue::{IssueKind, LocPart};
use health_api::models::*;

/// Stores the patient info and echoes it. Addresses arrive as `zip_code` (the document) or
/// `zip` with `country` (deployed clients); the stored record carries both spellings.
pub async fn update(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    body: PatientInfoRequest,
) -> Result<PatientInfo, Failure> {
    let record = PatientInfo {
        first_name: body.first_name,
        last_name: body.last_name,
        email: body.email,
        phone_number: body.phone_number,
        gender: body.gender,
        dob: body.dob,
        address: both_spellings(body.address),
        medical_proxy: body.medical_proxy.map(guarantor),
        race: body.race,
        ethnicity: body.ethnicity,
        sexual_orientation: body.sexual_orientation,
        gender_identity: body.gender_identity,
    };
    let zip = record.address.zip_code.clone().unwrap_or_default();
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    sqlx::query(
        "INSERT INTO patient_infos (user_id, record, zip_code, updated_at) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (user_id) DO UPDATE SET record = excluded.record, \
         zip_code = excluded.zip_code, updated_at = excluded.updated_at",
    )
    .bind(user_id)
    .bind(columns::json(&record)?)
    .bind(zip)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(record)
}

pub async fn latest(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
) -> Result<PatientInfo, Failure> {
    let mut tx = s.store.read().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let record: String = sqlx::query_scalar("SELECT record FROM patient_infos WHERE user_id = $1")
        .bind(user_id)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| Failure::NotFound(format!("User {user_id} has no patient info")))?;
    Ok(from_json(&record)?)
}

fn both_spellings(mut address: UserAddress) -> UserAddress {
    if address.zip_code.is_none() {
        address.zip_code = address.zip.clone();
    }
    if address.zip.is_none() {
        address.zip = address.zip_code.clone();
    }
    address
}

/// An address as records carry it: every part a string.
fn full_address(address: UserAddress) -> Address {
    let address = both_spellings(address);
    Address {
        first_line: address.first_line.unwrap_or_default(),
        second_line: address.second_line.into_option().unwrap_or_default(),
        city: address.city.unwrap_or_default(),
        state: address.state.unwrap_or_default(),
        zip: address.zip.unwrap_or_default(),
        country: address.country.unwrap_or_else(|| "US".to_string()),
        access_notes: String::new(),
    }
}

fn guarantor(g: GuarantorDetailsRequest) -> GuarantorDetails {
    GuarantorDetails {
        first_name: g.first_name,
        last_name: g.last_name,
        address: full_address(g.address),
        phone_number: g.phone_number,
        household_income: g.household_income,
        household_size: g.household_size,
        email: g.email,
    }
}

/// Adds an insurance record; `company` comes from the payor table by `payor_code`.
pub async fn add_insurance(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    body: InsuranceRecordRequest,
) -> Result<InsuranceRecord, Failure> {
    let now = to_micros(s.clock.now());
    let mut tx = s.store.write().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    // A payor by its code or its name, in any case: clients send either. The record keeps
    // the code as it was written.
    let (name, address): (String, String) = sqlx::query_as(
        "SELECT name, address FROM payors \
         WHERE UPPER(payor_code) = UPPER($1) OR UPPER(name) = UPPER($1) \
         ORDER BY payor_code LIMIT 1",
    )
    .bind(body.payor_code.trim())
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| {
        Failure::Invalid(vec![issue(
            "body",
            &[LocPart::key("payor_code")],
            format!(
                "Unknown payor code `{}`: send a code or name of the payor catalogue, \
                 such as 60054 (Aetna), 87726 (UnitedHealthcare) or 62308 (Cigna)",
                crate::infra::failure::quoted(&body.payor_code)
            ),
            IssueKind::Value,
        )])
    })?;
    let record = InsuranceRecord {
        company: CompanyDetails {
            name,
            address: from_json(&address)?,
        },
        payor_code: body.payor_code,
        member_id: body.member_id,
        group_id: body.group_id,
        relationship: body.relationship,
        insured: PersonDetails {
            first_name: body.insured.first_name,
            last_name: body.insured.last_name,
            gender: body.insured.gender,
            address: full_address(body.insured.address),
            dob: body.insured.dob,
            email: body.insured.email,
            phone_number: body.insured.phone_number,
        },
        guarantor: body.guarantor.map(guarantor),
        is_primary: body.is_primary,
    };
    sqlx::query(
        "INSERT INTO insurances (user_id, is_primary, record, created_at) VALUES ($1, $2, $3, $4)",
    )
    .bind(user_id)
    .bind(flag(record.is_primary))
    .bind(columns::json(&record)?)
    .bind(now)
    .execute(&mut **tx)
    .await?;
    tx.commit().await?;
    Ok(record)
}

pub async fn latest_insurance(
    s: &ReferenceServer,
    team_id: &str,
    user_id: &str,
    is_primary: bool,
) -> Result<InsuranceRecord, Failure> {
    let mut tx = s.store.read().await?;
    ensure_visible(&mut tx, team_id, user_id).await?;
    let record: String = sqlx::query_scalar(
        "SELECT record FROM insurances WHERE user_id = $1 AND is_primary = $2 \
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(user_id)
    .bind(flag(is_primary))
    .fetch_optional(&mut **tx)
    .await?
    .ok_or_else(|| {
        let which = if is_primary { "primary" } else { "secondary" };
        Failure::NotFound(format!("User {user_id} has no {which} insurance record"))
    })?;
    Ok(from_json(&record)?)
}
