//! The generated server trait, implemented: each method finds the caller's team (or
//! management scope) and hands over to the module that holds the behaviour.

use crate::ReferenceServer;
use crate::auth::{self, Principal};
use crate::failure::{Failure, answer};
use crate::{bulk, labs, link, management, orders, patient, users, wire};
use covenant_runtime::server::{AuthError, Unavailable};
use health_api::operations::*;
use health_api::server::{Context, HealthDataServer};
use std::sync::Arc;

/// The team a team API key names. The router admits only team keys on the main API, so any
/// other principal here is refused rather than trusted.
fn team(ctx: &Context<Principal>) -> Result<&str, Failure> {
    match &ctx.principal {
        Some(Principal::Team { team_id, .. }) => Ok(team_id),
        _ => Err(Failure::Forbidden("A team API key is required".to_string())),
    }
}

fn manager(ctx: &Context<Principal>) -> Result<&Principal, Failure> {
    match &ctx.principal {
        Some(p @ Principal::Management { .. }) => Ok(p),
        _ => Err(Failure::Forbidden(
            "A management key is required".to_string(),
        )),
    }
}

/// The trait is implemented on a shared handle, so bulk operations can outlive the request
/// that accepted them.
#[derive(Clone)]
pub struct Service(pub Arc<ReferenceServer>);

impl HealthDataServer for Service {
    type Principal = Principal;

    async fn authenticate(
        &self,
        scheme: AuthScheme,
        credential: &str,
    ) -> Result<Principal, AuthError> {
        auth::authenticate(&self.0.store, &*self.0.clock, scheme, credential).await
    }

    async fn gate_open(
        &self,
        principal: Option<&Principal>,
        gate: Gate,
    ) -> Result<bool, Unavailable> {
        auth::gate_open(&self.0.store, principal, gate).await
    }

    async fn create_user(
        &self,
        ctx: Context<Principal>,
        input: CreateUserInput,
    ) -> CreateUserResponse {
        let result = async { users::create(&self.0, team(&ctx)?, input.body).await };
        answer!(CreateUserResponse, result.await)
    }

    async fn get_user(&self, ctx: Context<Principal>, input: GetUserInput) -> GetUserResponse {
        let result = async { users::get(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await };
        answer!(GetUserResponse, result.await.map(GetUserResponse::Ok))
    }

    async fn delete_user(
        &self,
        ctx: Context<Principal>,
        input: DeleteUserInput,
    ) -> DeleteUserResponse {
        let result =
            async { users::delete(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await };
        answer!(DeleteUserResponse, result.await.map(DeleteUserResponse::Ok))
    }

    async fn undo_delete_user(
        &self,
        ctx: Context<Principal>,
        input: UndoDeleteUserInput,
    ) -> UndoDeleteUserResponse {
        let result = async { users::undo_delete(&self.0, team(&ctx)?, input).await };
        answer!(
            UndoDeleteUserResponse,
            result.await.map(UndoDeleteUserResponse::Ok)
        )
    }

    async fn resolve_user(
        &self,
        ctx: Context<Principal>,
        input: ResolveUserInput,
    ) -> ResolveUserResponse {
        let result = async { users::resolve(&self.0, team(&ctx)?, &input.client_user_id).await };
        answer!(
            ResolveUserResponse,
            result.await.map(ResolveUserResponse::Ok)
        )
    }

    async fn update_user(
        &self,
        ctx: Context<Principal>,
        input: UpdateUserInput,
    ) -> UpdateUserResponse {
        let result = async {
            users::update(
                &self.0,
                team(&ctx)?,
                &input.user_id.0.to_string(),
                input.body,
            )
            .await
        };
        answer!(UpdateUserResponse, result.await)
    }

    async fn refresh_user(
        &self,
        ctx: Context<Principal>,
        input: RefreshUserInput,
    ) -> RefreshUserResponse {
        let result =
            async { users::refresh(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await };
        answer!(
            RefreshUserResponse,
            result.await.map(RefreshUserResponse::Ok)
        )
    }

    async fn update_patient_info(
        &self,
        ctx: Context<Principal>,
        input: UpdatePatientInfoInput,
    ) -> UpdatePatientInfoResponse {
        let result =
            async { patient::update(&self.0, team(&ctx)?, &input.user_id, input.body).await };
        answer!(
            UpdatePatientInfoResponse,
            result.await.map(UpdatePatientInfoResponse::Ok)
        )
    }

    async fn get_latest_patient_info(
        &self,
        ctx: Context<Principal>,
        input: GetLatestPatientInfoInput,
    ) -> GetLatestPatientInfoResponse {
        let result =
            async { patient::latest(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await };
        answer!(
            GetLatestPatientInfoResponse,
            result.await.map(GetLatestPatientInfoResponse::Ok)
        )
    }

    async fn add_insurance(
        &self,
        ctx: Context<Principal>,
        input: AddInsuranceInput,
    ) -> AddInsuranceResponse {
        let result = async {
            patient::add_insurance(&self.0, team(&ctx)?, &input.user_id, input.body).await
        };
        answer!(
            AddInsuranceResponse,
            result.await.map(AddInsuranceResponse::Ok)
        )
    }

    async fn get_latest_insurance(
        &self,
        ctx: Context<Principal>,
        input: GetLatestInsuranceInput,
    ) -> GetLatestInsuranceResponse {
        let result = async {
            patient::latest_insurance(
                &self.0,
                team(&ctx)?,
                &input.user_id.0.to_string(),
                input.is_primary,
            )
            .await
        };
        answer!(
            GetLatestInsuranceResponse,
            result.await.map(GetLatestInsuranceResponse::Ok)
        )
    }

    async fn create_link_token(
        &self,
        ctx: Context<Principal>,
        input: CreateLinkTokenInput,
    ) -> CreateLinkTokenResponse {
        let result = async { link::create_token(&self.0, team(&ctx)?, input.body).await };
        answer!(
            CreateLinkTokenResponse,
            result.await.map(CreateLinkTokenResponse::Ok)
        )
    }

    async fn get_oauth_provider(
        &self,
        ctx: Context<Principal>,
        input: GetOauthProviderInput,
    ) -> GetOauthProviderResponse {
        let result = async {
            let link_token = ctx.also_as(AuthScheme::LinkToken);
            link::oauth_provider(
                &self.0,
                team(&ctx)?,
                link_token,
                &wire::name(&input.oauth_provider),
            )
            .await
        };
        answer!(
            GetOauthProviderResponse,
            result.await.map(GetOauthProviderResponse::Ok)
        )
    }

    async fn bulk_import(
        &self,
        ctx: Context<Principal>,
        input: BulkImportInput,
    ) -> BulkImportResponse {
        let result = async { bulk::import(&self.0, team(&ctx)?, input.body).await };
        answer!(BulkImportResponse, result.await)
    }

    async fn bulk_trigger_historical_pull(
        &self,
        ctx: Context<Principal>,
        input: BulkTriggerHistoricalPullInput,
    ) -> BulkTriggerHistoricalPullResponse {
        let result = async { bulk::historical_pull(&self.0, team(&ctx)?, input.body).await };
        answer!(BulkTriggerHistoricalPullResponse, result.await)
    }

    async fn list_bulk_ops(
        &self,
        ctx: Context<Principal>,
        input: ListBulkOpsInput,
    ) -> ListBulkOpsResponse {
        let result = async { bulk::list(&self.0, team(&ctx)?, input).await };
        answer!(
            ListBulkOpsResponse,
            result.await.map(ListBulkOpsResponse::Ok)
        )
    }

    async fn list_providers(
        &self,
        _ctx: Context<Principal>,
        input: ListProvidersInput,
    ) -> ListProvidersResponse {
        let result = link::providers(&self.0, input.source_type.as_deref()).await;
        answer!(ListProvidersResponse, result.map(ListProvidersResponse::Ok))
    }

    async fn list_markers(
        &self,
        _ctx: Context<Principal>,
        input: ListMarkersInput,
    ) -> ListMarkersResponse {
        answer!(
            ListMarkersResponse,
            labs::list(&self.0, input)
                .await
                .map(ListMarkersResponse::Ok)
        )
    }

    async fn list_lab_test_markers(
        &self,
        _ctx: Context<Principal>,
        input: ListLabTestMarkersInput,
    ) -> ListLabTestMarkersResponse {
        let result = labs::of_lab_test(&self.0, input).await;
        answer!(
            ListLabTestMarkersResponse,
            result.map(ListLabTestMarkersResponse::Ok)
        )
    }

    async fn list_order_set_markers(
        &self,
        _ctx: Context<Principal>,
        input: ListOrderSetMarkersInput,
    ) -> ListOrderSetMarkersResponse {
        let result = labs::of_order_set(&self.0, input).await;
        answer!(
            ListOrderSetMarkersResponse,
            result.map(ListOrderSetMarkersResponse::Ok)
        )
    }

    async fn list_psc_info(
        &self,
        ctx: Context<Principal>,
        input: ListPscInfoInput,
    ) -> ListPscInfoResponse {
        let result = async { orders::service_centers(&self.0, team(&ctx)?, input).await };
        answer!(
            ListPscInfoResponse,
            result.await.map(ListPscInfoResponse::Ok)
        )
    }

    async fn list_teams(
        &self,
        ctx: Context<Principal>,
        input: ListTeamsInput,
    ) -> ListTeamsResponse {
        let result = async { management::list_teams(&self.0, manager(&ctx)?, input).await };
        answer!(ListTeamsResponse, result.await.map(ListTeamsResponse::Ok))
    }

    async fn create_team(
        &self,
        ctx: Context<Principal>,
        input: CreateTeamInput,
    ) -> CreateTeamResponse {
        let result = async { management::create_team(&self.0, manager(&ctx)?, input).await };
        answer!(
            CreateTeamResponse,
            result.await.map(CreateTeamResponse::Created)
        )
    }

    async fn update_team(
        &self,
        ctx: Context<Principal>,
        input: UpdateTeamInput,
    ) -> UpdateTeamResponse {
        let result = async { management::update_team(&self.0, manager(&ctx)?, input).await };
        answer!(UpdateTeamResponse, result.await.map(UpdateTeamResponse::Ok))
    }

    async fn create_team_api_key(
        &self,
        ctx: Context<Principal>,
        input: CreateTeamApiKeyInput,
    ) -> CreateTeamApiKeyResponse {
        let result =
            async { management::create_team_api_key(&self.0, manager(&ctx)?, input).await };
        answer!(
            CreateTeamApiKeyResponse,
            result.await.map(CreateTeamApiKeyResponse::Created)
        )
    }

    async fn create_management_key(
        &self,
        ctx: Context<Principal>,
        input: CreateManagementKeyInput,
    ) -> CreateManagementKeyResponse {
        let result =
            async { management::create_management_key(&self.0, manager(&ctx)?, input).await };
        answer!(
            CreateManagementKeyResponse,
            result.await.map(CreateManagementKeyResponse::Created)
        )
    }

    async fn create_lab_order(
        &self,
        ctx: Context<Principal>,
        input: CreateLabOrderInput,
    ) -> CreateLabOrderResponse {
        let result = async { orders::create(&self.0, team(&ctx)?, input.body).await };
        answer!(CreateLabOrderResponse, result.await)
    }

    async fn list_orders(
        &self,
        ctx: Context<Principal>,
        input: ListOrdersInput,
    ) -> ListOrdersResponse {
        let result =
            async { orders::list(&self.0, team(&ctx)?, input.interpretation.as_ref()).await };
        answer!(ListOrdersResponse, result.await.map(ListOrdersResponse::Ok))
    }

    async fn get_workout_stream(
        &self,
        ctx: Context<Principal>,
        input: GetWorkoutStreamInput,
    ) -> GetWorkoutStreamResponse {
        let result: Result<GetWorkoutStreamResponse, Failure> = team(&ctx).and_then(|_| {
            // The reference server receives no workouts, so it holds no streams.
            Err(Failure::NotFound(format!(
                "Workout {} not found",
                input.workout_id.0
            )))
        });
        answer!(GetWorkoutStreamResponse, result)
    }
}
