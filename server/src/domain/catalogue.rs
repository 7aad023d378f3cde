//! The catalogue the server ships: reviewed data files under `catalogue/`, compiled in and
//! loaded into the database at start. Catalogue reads go through the database like every
//! other read, so all processes of a service answer from one copy; a start with changed
//! files (another digest) reloads them in one transaction.

use crate::infra::columns::json;
use crate::infra::store::{Store, flag};
use serde::Deserialize;
use sha2::{Digest, Sha256};

const PROVIDERS: &str = include_str!("../../catalogue/providers.json");
const LABS: &str = include_str!("../../catalogue/labs.json");
const LOINC: &str = include_str!("../../catalogue/loinc.json");
const MARKERS: &str = include_str!("../../catalogue/markers.json");
const LAB_TESTS: &str = include_str!("../../catalogue/lab_tests.json");
const SERVICE_CENTERS: &str = include_str!("../../catalogue/patient_service_centers.json");
const PAYORS: &str = include_str!("../../catalogue/payors.json");
const ZIP_CODES: &str = include_str!("../../catalogue/zip_codes.json");

#[derive(Deserialize)]
struct ProviderEntry {
    slug: String,
    name: String,
    description: String,
    logo: String,
    auth_type: String,
    source_type: String,
    supported_resources: Vec<String>,
    oauth: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct LabEntry {
    id: i64,
    slug: String,
    name: String,
}

#[derive(Deserialize)]
struct LoincEntry {
    id: i64,
    code: String,
    name: String,
    slug: String,
    unit: Option<String>,
}

#[derive(Deserialize)]
struct MarkerEntry {
    id: i64,
    lab_slug: String,
    name: String,
    slug: String,
    description: String,
    provider_id: String,
    #[serde(rename = "type")]
    marker_type: String,
    unit: Option<String>,
    price: String,
    a_la_carte_enabled: bool,
    results: Vec<ResultEntry>,
}

#[derive(Deserialize)]
struct ResultEntry {
    name: String,
    slug: String,
    provider_id: String,
    loinc: String,
    required: bool,
}

#[derive(Deserialize)]
struct LabTestEntry {
    id: String,
    lab_slug: String,
    name: String,
    slug: String,
    markers: Vec<String>,
}

#[derive(Deserialize)]
struct ServiceCenterEntry {
    lab_slug: String,
    site_code: String,
    lat: f64,
    lng: f64,
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

#[derive(Deserialize)]
struct PayorEntry {
    payor_code: String,
    name: String,
    address: serde_json::Value,
}

#[derive(Deserialize)]
struct ZipEntry {
    zip_code: String,
    lat: f64,
    lng: f64,
}

/// One lab account per lab, with fixed identifiers, so `lab_account_id` filters have
/// something to name; the lab account of a lab is derived from the lab's slug.
pub fn lab_account_id(lab_slug: &str) -> String {
    uuid::Uuid::new_v5(&LAB_ACCOUNT_NAMESPACE, lab_slug.as_bytes()).to_string()
}

const LAB_ACCOUNT_NAMESPACE: uuid::Uuid =
    uuid::Uuid::from_u128(0x6c61_625f_6163_636f_756e_745f_6e73_0001);

/// The digest of the shipped files: what the database's copy was loaded from.
fn digest() -> String {
    let mut hash = Sha256::new();
    for file in [
        PROVIDERS,
        LABS,
        LOINC,
        MARKERS,
        LAB_TESTS,
        SERVICE_CENTERS,
        PAYORS,
        ZIP_CODES,
    ] {
        hash.update(file.as_bytes());
        hash.update([0]);
    }
    crate::infra::keys::hex(&hash.finalize())
}

/// Loads the catalogue unless the database already holds this version of it. Several
/// processes starting at once agree through the `meta` row: the first to claim the new
/// digest loads, the others find it claimed.
pub async fn load(store: &Store) -> Result<(), String> {
    let fail = |e: sqlx::Error| format!("cannot load the catalogue: {e}");
    let version = digest();
    let mut tx = store.write().await.map_err(fail)?;
    let claimed = sqlx::query(
        "INSERT INTO meta (name, value) VALUES ('catalogue_version', $1) \
         ON CONFLICT (name) DO UPDATE SET value = excluded.value \
         WHERE meta.value <> excluded.value",
    )
    .bind(&version)
    .execute(&mut **tx)
    .await
    .map_err(fail)?
    .rows_affected();
    if claimed == 0 {
        return Ok(());
    }
    let data = Data::parse()?;
    data.replace(&mut tx).await.map_err(fail)?;
    tx.commit().await.map_err(fail)?;
    tracing::info!(
        providers = data.providers.len(),
        markers = data.markers.len(),
        lab_tests = data.lab_tests.len(),
        service_centers = data.centers.len(),
        "loaded the catalogue"
    );
    Ok(())
}

struct Data {
    providers: Vec<ProviderEntry>,
    labs: Vec<LabEntry>,
    loinc: Vec<LoincEntry>,
    markers: Vec<MarkerEntry>,
    lab_tests: Vec<LabTestEntry>,
    centers: Vec<ServiceCenterEntry>,
    payors: Vec<PayorEntry>,
    zips: Vec<ZipEntry>,
}

fn parse<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Result<T, String> {
    serde_json::from_str(text).map_err(|e| format!("catalogue/{name}: {e}"))
}

impl Data {
    fn parse() -> Result<Data, String> {
        Ok(Data {
            providers: parse("providers.json", PROVIDERS)?,
            labs: parse("labs.json", LABS)?,
            loinc: parse("loinc.json", LOINC)?,
            markers: parse("markers.json", MARKERS)?,
            lab_tests: parse("lab_tests.json", LAB_TESTS)?,
            centers: parse("patient_service_centers.json", SERVICE_CENTERS)?,
            payors: parse("payors.json", PAYORS)?,
            zips: parse("zip_codes.json", ZIP_CODES)?,
        })
    }

    fn lab_id(&self, slug: &str) -> Result<i64, sqlx::Error> {
        self.labs
            .iter()
            .find(|lab| lab.slug == slug)
            .map(|lab| lab.id)
            .ok_or_else(|| sqlx::Error::Protocol(format!("catalogue names unknown lab `{slug}`")))
    }

    async fn replace(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        for table in [
            "lab_test_markers",
            "lab_tests",
            "markers",
            "lab_accounts",
            "service_centers",
            "labs",
            "providers",
            "payors",
            "zip_codes",
        ] {
            sqlx::query(&format!("DELETE FROM {table}"))
                .execute(&mut ***tx)
                .await?;
        }
        self.insert_providers(tx).await?;
        self.insert_labs(tx).await?;
        self.insert_markers(tx).await?;
        self.insert_lab_tests(tx).await?;
        self.insert_places(tx).await
    }

    async fn insert_providers(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        for (position, p) in self.providers.iter().enumerate() {
            sqlx::query(
                "INSERT INTO providers (slug, position, name, description, logo, auth_type, \
                 source_type, supported_resources, oauth) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
            )
            .bind(&p.slug)
            .bind(position as i64)
            .bind(&p.name)
            .bind(&p.description)
            .bind(&p.logo)
            .bind(&p.auth_type)
            .bind(&p.source_type)
            .bind(json(&p.supported_resources)?)
            .bind(p.oauth.as_ref().map(json).transpose()?)
            .execute(&mut ***tx)
            .await?;
        }
        Ok(())
    }

    async fn insert_labs(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        for lab in &self.labs {
            sqlx::query("INSERT INTO labs (id, slug, name) VALUES ($1, $2, $3)")
                .bind(lab.id)
                .bind(&lab.slug)
                .bind(&lab.name)
                .execute(&mut ***tx)
                .await?;
            sqlx::query("INSERT INTO lab_accounts (id, lab_id) VALUES ($1, $2)")
                .bind(lab_account_id(&lab.slug))
                .bind(lab.id)
                .execute(&mut ***tx)
                .await?;
        }
        Ok(())
    }

    async fn insert_markers(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        let mut result_id = 0;
        for m in &self.markers {
            let lab_id = self.lab_id(&m.lab_slug)?;
            let mut search = vec![m.name.to_lowercase(), m.provider_id.to_lowercase()];
            let mut results = Vec::new();
            for r in &m.results {
                result_id += 1;
                let loinc = self
                    .loinc
                    .iter()
                    .find(|l| l.code == r.loinc)
                    .ok_or_else(|| {
                        sqlx::Error::Protocol(format!(
                            "marker {} names unknown LOINC {}",
                            m.id, r.loinc
                        ))
                    })?;
                search.push(loinc.code.to_lowercase());
                results.push(serde_json::json!({
                    "id": result_id,
                    "name": r.name,
                    "slug": r.slug,
                    "lab_id": lab_id,
                    "provider_id": r.provider_id,
                    "required": r.required,
                    "loinc": {
                        "id": loinc.id,
                        "name": loinc.name,
                        "slug": loinc.slug,
                        "code": loinc.code,
                        "unit": loinc.unit,
                    },
                }));
            }
            sqlx::query(
                "INSERT INTO markers (id, lab_id, name, slug, description, provider_id, marker_type, \
                 unit, price, a_la_carte_enabled, search_text, expected_results) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
            )
            .bind(m.id)
            .bind(lab_id)
            .bind(&m.name)
            .bind(&m.slug)
            .bind(&m.description)
            .bind(&m.provider_id)
            .bind(&m.marker_type)
            .bind(&m.unit)
            .bind(&m.price)
            .bind(flag(m.a_la_carte_enabled))
            .bind(format!("\n{}\n", search.join("\n")))
            .bind(json(&results)?)
            .execute(&mut ***tx)
            .await?;
        }
        Ok(())
    }

    async fn insert_lab_tests(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        for test in &self.lab_tests {
            let lab_id = self.lab_id(&test.lab_slug)?;
            sqlx::query("INSERT INTO lab_tests (id, lab_id, name, slug) VALUES ($1, $2, $3, $4)")
                .bind(&test.id)
                .bind(lab_id)
                .bind(&test.name)
                .bind(&test.slug)
                .execute(&mut ***tx)
                .await?;
            for (position, code) in test.markers.iter().enumerate() {
                let marker = self
                    .markers
                    .iter()
                    .find(|m| m.lab_slug == test.lab_slug && &m.provider_id == code)
                    .ok_or_else(|| {
                        sqlx::Error::Protocol(format!(
                            "lab test {} names unknown marker {code}",
                            test.id
                        ))
                    })?;
                sqlx::query(
                    "INSERT INTO lab_test_markers (lab_test_id, marker_id, position) VALUES ($1, $2, $3)",
                )
                .bind(&test.id)
                .bind(marker.id)
                .bind(position as i64)
                .execute(&mut ***tx)
                .await?;
            }
        }
        Ok(())
    }

    async fn insert_places(&self, tx: &mut crate::infra::store::Tx) -> Result<(), sqlx::Error> {
        for c in &self.centers {
            sqlx::query(
                "INSERT INTO service_centers (site_code, lab_id, record, lat, lng) VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(&c.site_code)
            .bind(self.lab_id(&c.lab_slug)?)
            .bind(json(&c.rest)?)
            .bind(c.lat)
            .bind(c.lng)
            .execute(&mut ***tx)
            .await?;
        }
        for p in &self.payors {
            sqlx::query("INSERT INTO payors (payor_code, name, address) VALUES ($1, $2, $3)")
                .bind(&p.payor_code)
                .bind(&p.name)
                .bind(json(&p.address)?)
                .execute(&mut ***tx)
                .await?;
        }
        for z in &self.zips {
            sqlx::query("INSERT INTO zip_codes (zip_code, lat, lng) VALUES ($1, $2, $3)")
                .bind(&z.zip_code)
                .bind(z.lat)
                .bind(z.lng)
                .execute(&mut ***tx)
                .await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_files_parse_and_agree() {
        let data = Data::parse().expect("the catalogue parses");
        assert_eq!(data.providers.len(), 39);
        assert_eq!(
            data.providers.iter().filter(|p| p.oauth.is_some()).count(),
            16
        );
        assert_eq!(data.labs.len(), 14);
        assert!(data.markers.len() >= 200);
        assert!(data.centers.len() >= 50);
        for m in &data.markers {
            assert!(data.lab_id(&m.lab_slug).is_ok(), "marker {}", m.id);
            for r in &m.results {
                assert!(
                    data.loinc.iter().any(|l| l.code == r.loinc),
                    "marker {} LOINC {}",
                    m.id,
                    r.loinc
                );
            }
        }
        let glucose = data
            .loinc
            .iter()
            .find(|l| l.code == "2345-7")
            .expect("glucose");
        assert!(glucose.name.to_lowercase().contains("glucose"));
    }
}
