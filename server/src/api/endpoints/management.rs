//! The endpoints tagged `management`: the management API: teams, their keys and management keys.

use super::Service;
use crate::domain::auth::Manager;
use crate::domain::key_lifecycle;
use crate::domain::management;
use health_api::operations::*;
use health_api::server::{Answer, Context, ManagementEndpoints};

impl ManagementEndpoints for Service {
    async fn list_teams(
        &self,
        ctx: Context<Manager, Self>,
        input: ListTeamsInput,
    ) -> Answer<ListTeamsResponse> {
        Ok(ListTeamsResponse::Ok(
            management::list_teams(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn create_team(
        &self,
        ctx: Context<Manager, Self>,
        input: CreateTeamInput,
    ) -> Answer<CreateTeamResponse> {
        Ok(CreateTeamResponse::Created(
            management::create_team(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn update_team(
        &self,
        ctx: Context<Manager, Self>,
        input: UpdateTeamInput,
    ) -> Answer<UpdateTeamResponse> {
        Ok(UpdateTeamResponse::Ok(
            management::update_team(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn delete_team(
        &self,
        ctx: Context<Manager, Self>,
        input: DeleteTeamInput,
    ) -> Answer<DeleteTeamResponse> {
        Ok(DeleteTeamResponse::Ok(
            management::delete_team(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn set_team_custom_credentials(
        &self,
        ctx: Context<Manager, Self>,
        input: SetTeamCustomCredentialsInput,
    ) -> Answer<SetTeamCustomCredentialsResponse> {
        Ok(SetTeamCustomCredentialsResponse::Ok(
            management::set_custom_credentials(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn create_team_api_key(
        &self,
        ctx: Context<Manager, Self>,
        input: CreateTeamApiKeyInput,
    ) -> Answer<CreateTeamApiKeyResponse> {
        Ok(CreateTeamApiKeyResponse::Created(
            management::create_team_api_key(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn list_team_api_keys(
        &self,
        ctx: Context<Manager, Self>,
        input: ListTeamApiKeysInput,
    ) -> Answer<ListTeamApiKeysResponse> {
        Ok(ListTeamApiKeysResponse::Ok(
            key_lifecycle::list_team_api_keys(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn revoke_team_api_key(
        &self,
        ctx: Context<Manager, Self>,
        input: RevokeTeamApiKeyInput,
    ) -> Answer<RevokeTeamApiKeyResponse> {
        Ok(RevokeTeamApiKeyResponse::Ok(
            key_lifecycle::revoke_team_api_key(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn create_management_key(
        &self,
        ctx: Context<Manager, Self>,
        input: CreateManagementKeyInput,
    ) -> Answer<CreateManagementKeyResponse> {
        Ok(CreateManagementKeyResponse::Created(
            management::create_management_key(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn list_management_keys(
        &self,
        ctx: Context<Manager, Self>,
        input: ListManagementKeysInput,
    ) -> Answer<ListManagementKeysResponse> {
        Ok(ListManagementKeysResponse::Ok(
            key_lifecycle::list_management_keys(&self.0, &ctx.principal, input).await?,
        ))
    }

    async fn revoke_management_key(
        &self,
        ctx: Context<Manager, Self>,
        input: RevokeManagementKeyInput,
    ) -> Answer<RevokeManagementKeyResponse> {
        Ok(RevokeManagementKeyResponse::Ok(
            key_lifecycle::revoke_management_key(&self.0, &ctx.principal, input).await?,
        ))
    }
}
