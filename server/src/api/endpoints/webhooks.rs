//! The endpoints tagged `webhooks`: webhook endpoints, their secrets and delivery attempts.

use super::Service;
use crate::background::webhooks::endpoints as webhooks;
use crate::domain::auth::Team;
use health_api::operations::*;
use health_api::server::{Answer, Context, WebhooksEndpoints};

impl WebhooksEndpoints for Service {
    async fn create_webhook_endpoint(
        &self,
        ctx: Context<Team, Self>,
        input: CreateWebhookEndpointInput,
    ) -> Answer<CreateWebhookEndpointResponse> {
        Ok(webhooks::create(&self.0, &ctx.principal.team_id, input.body).await?)
    }

    async fn list_webhook_endpoints(
        &self,
        ctx: Context<Team, Self>,
        _input: ListWebhookEndpointsInput,
    ) -> Answer<ListWebhookEndpointsResponse> {
        Ok(ListWebhookEndpointsResponse::Ok(
            webhooks::list(&self.0, &ctx.principal.team_id).await?,
        ))
    }

    async fn get_webhook_endpoint(
        &self,
        ctx: Context<Team, Self>,
        input: GetWebhookEndpointInput,
    ) -> Answer<GetWebhookEndpointResponse> {
        Ok(GetWebhookEndpointResponse::Ok(
            webhooks::get(&self.0, &ctx.principal.team_id, &input.endpoint_id).await?,
        ))
    }

    async fn update_webhook_endpoint(
        &self,
        ctx: Context<Team, Self>,
        input: UpdateWebhookEndpointInput,
    ) -> Answer<UpdateWebhookEndpointResponse> {
        let team_id = &ctx.principal.team_id;
        let updated = webhooks::update(&self.0, team_id, &input.endpoint_id, input.body).await?;
        Ok(UpdateWebhookEndpointResponse::Ok(updated))
    }

    async fn delete_webhook_endpoint(
        &self,
        ctx: Context<Team, Self>,
        input: DeleteWebhookEndpointInput,
    ) -> Answer<DeleteWebhookEndpointResponse> {
        Ok(DeleteWebhookEndpointResponse::Ok(
            webhooks::delete(&self.0, &ctx.principal.team_id, &input.endpoint_id).await?,
        ))
    }

    async fn get_webhook_secret(
        &self,
        ctx: Context<Team, Self>,
        input: GetWebhookSecretInput,
    ) -> Answer<GetWebhookSecretResponse> {
        Ok(GetWebhookSecretResponse::Ok(
            webhooks::secret(&self.0, &ctx.principal.team_id, &input.endpoint_id).await?,
        ))
    }

    async fn rotate_webhook_secret(
        &self,
        ctx: Context<Team, Self>,
        input: RotateWebhookSecretInput,
    ) -> Answer<RotateWebhookSecretResponse> {
        Ok(RotateWebhookSecretResponse::Ok(
            webhooks::rotate(&self.0, &ctx.principal.team_id, &input.endpoint_id).await?,
        ))
    }

    async fn list_webhook_attempts(
        &self,
        ctx: Context<Team, Self>,
        input: ListWebhookAttemptsInput,
    ) -> Answer<ListWebhookAttemptsResponse> {
        Ok(ListWebhookAttemptsResponse::Ok(
            webhooks::attempts(&self.0, &ctx.principal.team_id, input).await?,
        ))
    }
}
