//! Where data comes from: a provider of the catalogue, as events and reads name it.

use crate::infra::columns;
use crate::infra::store::Tx;
use health_api::models::SourceContext;

/// Where data comes from, as events and reads name it.
pub struct Source {
    pub provider: String,
    pub source_type: String,
    /// The provider's number: its place in the catalogue.
    pub source_id: i64,
    pub name: String,
    pub logo: String,
    pub supported_resources: Vec<String>,
}

impl Source {
    pub async fn read(tx: &mut Tx, provider: &str) -> Result<Source, sqlx::Error> {
        let (source_type, position, name, logo, supported): (String, i64, String, String, String) =
            sqlx::query_as(
                "SELECT source_type, position, name, logo, supported_resources FROM providers \
                 WHERE slug = $1",
            )
            .bind(provider)
            .fetch_one(&mut ***tx)
            .await?;
        Ok(Source {
            provider: provider.to_string(),
            source_type,
            source_id: position,
            name,
            logo,
            supported_resources: columns::from_json(&supported)?,
        })
    }

    /// The source context, with the deprecated `name`, `logo` and `slug` beside the
    /// `provider` and `type` that replace them.
    #[allow(deprecated)]
    pub fn context(&self) -> SourceContext {
        SourceContext {
            provider: Some(self.provider.clone()),
            r#type: Some(self.source_type.clone()),
            name: Some(self.name.clone()),
            logo: Some(self.logo.clone()),
            slug: Some(self.provider.clone()),
            extra: serde_json::Map::new(),
        }
    }

    /// Whether the provider's data includes `resource` (`workout_stream`, …).
    pub fn supports(&self, resource: &str) -> bool {
        self.supported_resources.iter().any(|r| r == resource)
    }
}
