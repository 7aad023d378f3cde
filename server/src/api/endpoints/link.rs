//! The endpoints tagged `link`: link tokens, a provider's OAuth start, and bulk import and historical pulls.

use super::Service;
use crate::api::link;
use crate::background::bulk;
use crate::domain::auth::Team;
use health_api::operations::*;
use health_api::server::{Answer, Caller, Context, LinkEndpoints};

impl LinkEndpoints for Service {
    async fn create_link_token(
        &self,
        ctx: Context<Team, Self>,
        input: CreateLinkTokenInput,
    ) -> Answer<CreateLinkTokenResponse> {
        Ok(CreateLinkTokenResponse::Ok(
            link::create_token(&self.0, &ctx.principal.team_id, input.body).await?,
        ))
    }

    async fn get_oauth_provider(
        &self,
        ctx: Context<Team, Self>,
        input: GetOauthProviderInput,
    ) -> Answer<GetOauthProviderResponse> {
        // The link token sent beside the key, which the router has checked.
        let link_token = match ctx.also_as(AuthScheme::LinkToken) {
            Some(Caller::Link(grant)) => Some(grant),
            _ => None,
        };
        let provider = input.oauth_provider.as_str();
        let redirect =
            link::oauth_provider(&self.0, &ctx.principal.team_id, link_token, provider).await?;
        Ok(GetOauthProviderResponse::Ok(redirect))
    }

    async fn bulk_import(
        &self,
        ctx: Context<Team, Self>,
        input: BulkImportInput,
    ) -> Answer<BulkImportResponse> {
        Ok(bulk::import(&self.0, &ctx.principal.team_id, input.body).await?)
    }

    async fn bulk_trigger_historical_pull(
        &self,
        ctx: Context<Team, Self>,
        input: BulkTriggerHistoricalPullInput,
    ) -> Answer<BulkTriggerHistoricalPullResponse> {
        Ok(bulk::historical_pull(&self.0, &ctx.principal.team_id, input.body).await?)
    }

    async fn list_bulk_ops(
        &self,
        ctx: Context<Team, Self>,
        input: ListBulkOpsInput,
    ) -> Answer<ListBulkOpsResponse> {
        Ok(ListBulkOpsResponse::Ok(
            bulk::list(&self.0, &ctx.principal.team_id, input).await?,
        ))
    }
}
