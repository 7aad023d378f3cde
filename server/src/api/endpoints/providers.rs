//! The endpoints tagged `providers`: the provider catalogue.

use super::Service;
use crate::api::link;
use crate::domain::auth::Team;
use health_api::operations::*;
use health_api::server::{Answer, Context, ProvidersEndpoints};

impl ProvidersEndpoints for Service {
    async fn list_providers(
        &self,
        _ctx: Context<Team, Self>,
        input: ListProvidersInput,
    ) -> Answer<ListProvidersResponse> {
        Ok(ListProvidersResponse::Ok(
            link::providers(&self.0, input.source_type.as_deref()).await?,
        ))
    }
}
