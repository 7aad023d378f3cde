//! The generated server trait, implemented: each method finds the caller's team (or
//! management scope) and hands over to the module that holds the behaviour.

use crate::ReferenceServer;
use crate::background::webhooks::endpoints as webhooks;
use crate::domain::auth::{self, Principal};
use crate::infra::failure::Failure;
use crate::{
    api::link, background::bulk, background::fetches, domain::key_lifecycle, domain::labs,
    domain::management, domain::orders, domain::patient, domain::readings, domain::users,
};
use covenant_runtime::server::{AuthError, Unavailable};
use health_api::operations::*;
use health_api::server::{Answer, Context, HealthDataServer};
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

/// The endpoint's response, or its failure as a rejection (which the router writes at a
/// declared status, in the API's shape).
async fn answer<R>(
    ctx: &Context<Principal>,
    work: impl Future<Output = Result<R, Failure>>,
) -> Answer<R> {
    work.await
        .map_err(|failure| failure.into_rejection(&ctx.request_id))
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
        auth::authenticate(
            &self.0.store,
            &self.0.auth,
            &*self.0.clock,
            scheme,
            credential,
        )
        .await
    }

    async fn gate_open(
        &self,
        principal: Option<&Principal>,
        gate: Gate,
    ) -> Result<bool, Unavailable> {
        auth::gate_open(&self.0.store, &self.0.auth, principal, gate).await
    }

    async fn create_user(
        &self,
        ctx: Context<Principal>,
        input: CreateUserInput,
    ) -> Answer<CreateUserResponse> {
        answer(&ctx, async {
            users::create(&self.0, team(&ctx)?, input.body).await
        })
        .await
    }

    async fn get_user(
        &self,
        ctx: Context<Principal>,
        input: GetUserInput,
    ) -> Answer<GetUserResponse> {
        answer(&ctx, async {
            Ok(GetUserResponse::Ok(
                users::get(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await?,
            ))
        })
        .await
    }

    async fn delete_user(
        &self,
        ctx: Context<Principal>,
        input: DeleteUserInput,
    ) -> Answer<DeleteUserResponse> {
        answer(&ctx, async {
            Ok(DeleteUserResponse::Ok(
                users::delete(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await?,
            ))
        })
        .await
    }

    async fn undo_delete_user(
        &self,
        ctx: Context<Principal>,
        input: UndoDeleteUserInput,
    ) -> Answer<UndoDeleteUserResponse> {
        answer(&ctx, async {
            Ok(UndoDeleteUserResponse::Ok(
                users::undo_delete(&self.0, team(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn resolve_user(
        &self,
        ctx: Context<Principal>,
        input: ResolveUserInput,
    ) -> Answer<ResolveUserResponse> {
        answer(&ctx, async {
            Ok(ResolveUserResponse::Ok(
                users::resolve(&self.0, team(&ctx)?, &input.client_user_id).await?,
            ))
        })
        .await
    }

    async fn update_user(
        &self,
        ctx: Context<Principal>,
        input: UpdateUserInput,
    ) -> Answer<UpdateUserResponse> {
        answer(&ctx, async {
            users::update(
                &self.0,
                team(&ctx)?,
                &input.user_id.0.to_string(),
                input.body,
            )
            .await
        })
        .await
    }

    async fn refresh_user(
        &self,
        ctx: Context<Principal>,
        input: RefreshUserInput,
    ) -> Answer<RefreshUserResponse> {
        answer(&ctx, async {
            let user = input.user_id.0.to_string();
            // The router has checked the bounds (5 to 60 seconds).
            let timeout = std::time::Duration::from_secs_f64(input.timeout.clamp(0.0, 60.0));
            Ok(RefreshUserResponse::Ok(
                fetches::refresh::refresh(&self.0, team(&ctx)?, &user, timeout).await?,
            ))
        })
        .await
    }

    async fn update_patient_info(
        &self,
        ctx: Context<Principal>,
        input: UpdatePatientInfoInput,
    ) -> Answer<UpdatePatientInfoResponse> {
        answer(&ctx, async {
            Ok(UpdatePatientInfoResponse::Ok(
                patient::update(&self.0, team(&ctx)?, &input.user_id, input.body).await?,
            ))
        })
        .await
    }

    async fn get_latest_patient_info(
        &self,
        ctx: Context<Principal>,
        input: GetLatestPatientInfoInput,
    ) -> Answer<GetLatestPatientInfoResponse> {
        answer(&ctx, async {
            Ok(GetLatestPatientInfoResponse::Ok(
                patient::latest(&self.0, team(&ctx)?, &input.user_id.0.to_string()).await?,
            ))
        })
        .await
    }

    async fn add_insurance(
        &self,
        ctx: Context<Principal>,
        input: AddInsuranceInput,
    ) -> Answer<AddInsuranceResponse> {
        answer(&ctx, async {
            Ok(AddInsuranceResponse::Ok(
                patient::add_insurance(&self.0, team(&ctx)?, &input.user_id, input.body).await?,
            ))
        })
        .await
    }

    async fn get_latest_insurance(
        &self,
        ctx: Context<Principal>,
        input: GetLatestInsuranceInput,
    ) -> Answer<GetLatestInsuranceResponse> {
        answer(&ctx, async {
            Ok(GetLatestInsuranceResponse::Ok(
                patient::latest_insurance(
                    &self.0,
                    team(&ctx)?,
                    &input.user_id.0.to_string(),
                    input.is_primary,
                )
                .await?,
            ))
        })
        .await
    }

    async fn create_link_token(
        &self,
        ctx: Context<Principal>,
        input: CreateLinkTokenInput,
    ) -> Answer<CreateLinkTokenResponse> {
        answer(&ctx, async {
            Ok(CreateLinkTokenResponse::Ok(
                link::create_token(&self.0, team(&ctx)?, input.body).await?,
            ))
        })
        .await
    }

    async fn get_oauth_provider(
        &self,
        ctx: Context<Principal>,
        input: GetOauthProviderInput,
    ) -> Answer<GetOauthProviderResponse> {
        answer(&ctx, async {
            let link_token = ctx.also_as(AuthScheme::LinkToken);
            let provider = input.oauth_provider.as_str();
            let redirect = link::oauth_provider(&self.0, team(&ctx)?, link_token, provider).await?;
            Ok(GetOauthProviderResponse::Ok(redirect))
        })
        .await
    }

    async fn open_link_widget(
        &self,
        ctx: Context<Principal>,
        input: OpenLinkWidgetInput,
    ) -> Answer<OpenLinkWidgetResponse> {
        answer(&ctx, link::widget::open(&self.0, input)).await
    }

    async fn open_link_provider(
        &self,
        ctx: Context<Principal>,
        input: OpenLinkProviderInput,
    ) -> Answer<OpenLinkProviderResponse> {
        answer(&ctx, link::widget::provider(&self.0, input)).await
    }

    async fn sign_in_link_provider(
        &self,
        ctx: Context<Principal>,
        input: SignInLinkProviderInput,
    ) -> Answer<SignInLinkProviderResponse> {
        answer(&ctx, link::widget::submit(&self.0, input)).await
    }

    async fn close_link_widget(
        &self,
        ctx: Context<Principal>,
        input: CloseLinkWidgetInput,
    ) -> Answer<CloseLinkWidgetResponse> {
        answer(&ctx, link::widget::close(&self.0, input)).await
    }

    async fn bulk_import(
        &self,
        ctx: Context<Principal>,
        input: BulkImportInput,
    ) -> Answer<BulkImportResponse> {
        answer(&ctx, async {
            bulk::import(&self.0, team(&ctx)?, input.body).await
        })
        .await
    }

    async fn bulk_trigger_historical_pull(
        &self,
        ctx: Context<Principal>,
        input: BulkTriggerHistoricalPullInput,
    ) -> Answer<BulkTriggerHistoricalPullResponse> {
        answer(&ctx, async {
            bulk::historical_pull(&self.0, team(&ctx)?, input.body).await
        })
        .await
    }

    async fn list_bulk_ops(
        &self,
        ctx: Context<Principal>,
        input: ListBulkOpsInput,
    ) -> Answer<ListBulkOpsResponse> {
        answer(&ctx, async {
            Ok(ListBulkOpsResponse::Ok(
                bulk::list(&self.0, team(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn list_providers(
        &self,
        ctx: Context<Principal>,
        input: ListProvidersInput,
    ) -> Answer<ListProvidersResponse> {
        answer(&ctx, async {
            Ok(ListProvidersResponse::Ok(
                link::providers(&self.0, input.source_type.as_deref()).await?,
            ))
        })
        .await
    }

    async fn list_markers(
        &self,
        ctx: Context<Principal>,
        input: ListMarkersInput,
    ) -> Answer<ListMarkersResponse> {
        answer(&ctx, async {
            Ok(ListMarkersResponse::Ok(labs::list(&self.0, input).await?))
        })
        .await
    }

    async fn list_lab_test_markers(
        &self,
        ctx: Context<Principal>,
        input: ListLabTestMarkersInput,
    ) -> Answer<ListLabTestMarkersResponse> {
        answer(&ctx, async {
            Ok(ListLabTestMarkersResponse::Ok(
                labs::of_lab_test(&self.0, input).await?,
            ))
        })
        .await
    }

    async fn list_order_set_markers(
        &self,
        ctx: Context<Principal>,
        input: ListOrderSetMarkersInput,
    ) -> Answer<ListOrderSetMarkersResponse> {
        answer(&ctx, async {
            Ok(ListOrderSetMarkersResponse::Ok(
                labs::of_order_set(&self.0, input).await?,
            ))
        })
        .await
    }

    async fn list_psc_info(
        &self,
        ctx: Context<Principal>,
        input: ListPscInfoInput,
    ) -> Answer<ListPscInfoResponse> {
        answer(&ctx, async {
            Ok(ListPscInfoResponse::Ok(
                orders::service_centers(&self.0, team(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn list_teams(
        &self,
        ctx: Context<Principal>,
        input: ListTeamsInput,
    ) -> Answer<ListTeamsResponse> {
        answer(&ctx, async {
            Ok(ListTeamsResponse::Ok(
                management::list_teams(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn create_team(
        &self,
        ctx: Context<Principal>,
        input: CreateTeamInput,
    ) -> Answer<CreateTeamResponse> {
        answer(&ctx, async {
            Ok(CreateTeamResponse::Created(
                management::create_team(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn update_team(
        &self,
        ctx: Context<Principal>,
        input: UpdateTeamInput,
    ) -> Answer<UpdateTeamResponse> {
        answer(&ctx, async {
            Ok(UpdateTeamResponse::Ok(
                management::update_team(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn create_team_api_key(
        &self,
        ctx: Context<Principal>,
        input: CreateTeamApiKeyInput,
    ) -> Answer<CreateTeamApiKeyResponse> {
        answer(&ctx, async {
            Ok(CreateTeamApiKeyResponse::Created(
                management::create_team_api_key(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn delete_team(
        &self,
        ctx: Context<Principal>,
        input: DeleteTeamInput,
    ) -> Answer<DeleteTeamResponse> {
        answer(&ctx, async {
            Ok(DeleteTeamResponse::Ok(
                management::delete_team(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn list_team_api_keys(
        &self,
        ctx: Context<Principal>,
        input: ListTeamApiKeysInput,
    ) -> Answer<ListTeamApiKeysResponse> {
        answer(&ctx, async {
            Ok(ListTeamApiKeysResponse::Ok(
                key_lifecycle::list_team_api_keys(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn revoke_team_api_key(
        &self,
        ctx: Context<Principal>,
        input: RevokeTeamApiKeyInput,
    ) -> Answer<RevokeTeamApiKeyResponse> {
        answer(&ctx, async {
            Ok(RevokeTeamApiKeyResponse::Ok(
                key_lifecycle::revoke_team_api_key(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn list_management_keys(
        &self,
        ctx: Context<Principal>,
        input: ListManagementKeysInput,
    ) -> Answer<ListManagementKeysResponse> {
        answer(&ctx, async {
            Ok(ListManagementKeysResponse::Ok(
                key_lifecycle::list_management_keys(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn revoke_management_key(
        &self,
        ctx: Context<Principal>,
        input: RevokeManagementKeyInput,
    ) -> Answer<RevokeManagementKeyResponse> {
        answer(&ctx, async {
            Ok(RevokeManagementKeyResponse::Ok(
                key_lifecycle::revoke_management_key(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn set_team_custom_credentials(
        &self,
        ctx: Context<Principal>,
        input: SetTeamCustomCredentialsInput,
    ) -> Answer<SetTeamCustomCredentialsResponse> {
        answer(&ctx, async {
            Ok(SetTeamCustomCredentialsResponse::Ok(
                management::set_custom_credentials(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn create_management_key(
        &self,
        ctx: Context<Principal>,
        input: CreateManagementKeyInput,
    ) -> Answer<CreateManagementKeyResponse> {
        answer(&ctx, async {
            Ok(CreateManagementKeyResponse::Created(
                management::create_management_key(&self.0, manager(&ctx)?, input).await?,
            ))
        })
        .await
    }

    async fn create_lab_order(
        &self,
        ctx: Context<Principal>,
        input: CreateLabOrderInput,
    ) -> Answer<CreateLabOrderResponse> {
        answer(&ctx, async {
            orders::create(&self.0, team(&ctx)?, input.body).await
        })
        .await
    }

    async fn list_orders(
        &self,
        ctx: Context<Principal>,
        input: ListOrdersInput,
    ) -> Answer<ListOrdersResponse> {
        answer(&ctx, async {
            Ok(ListOrdersResponse::Ok(
                orders::list(&self.0, team(&ctx)?, input.interpretation.as_ref()).await?,
            ))
        })
        .await
    }

    async fn get_workout_stream(
        &self,
        ctx: Context<Principal>,
        input: GetWorkoutStreamInput,
    ) -> Answer<GetWorkoutStreamResponse> {
        answer(&ctx, async {
            let workout = input.workout_id.0.to_string();
            Ok(GetWorkoutStreamResponse::Ok(
                readings::workout_stream(&self.0, team(&ctx)?, &workout).await?,
            ))
        })
        .await
    }

    async fn get_summaries(
        &self,
        ctx: Context<Principal>,
        input: GetSummariesInput,
    ) -> Answer<GetSummariesResponse> {
        answer(&ctx, async {
            let days = (input.start_date.0, input.end_date.map(|d| d.0));
            let read = readings::summaries(
                &self.0,
                team(&ctx)?,
                &input.user_id.0.to_string(),
                input.resource.as_str(),
                days,
                input.provider.as_deref(),
            )
            .await?;
            Ok(match read {
                Ok(list) => GetSummariesResponse::Ok(list),
                Err(refused) => GetSummariesResponse::BadRequest(refused),
            })
        })
        .await
    }

    async fn get_timeseries(
        &self,
        ctx: Context<Principal>,
        input: GetTimeseriesInput,
    ) -> Answer<GetTimeseriesResponse> {
        answer(&ctx, async {
            let days = (input.start_date.0, input.end_date.map(|d| d.0));
            let read = readings::timeseries(
                &self.0,
                team(&ctx)?,
                &input.user_id.0.to_string(),
                input.resource.as_str(),
                days,
                input.provider.as_deref(),
            )
            .await?;
            Ok(match read {
                Ok(list) => GetTimeseriesResponse::Ok(list),
                Err(refused) => GetTimeseriesResponse::BadRequest(refused),
            })
        })
        .await
    }

    async fn get_historical_pulls(
        &self,
        ctx: Context<Principal>,
        input: GetHistoricalPullsInput,
    ) -> Answer<GetHistoricalPullsResponse> {
        answer(&ctx, async {
            let user = input.user_id.0.to_string();
            Ok(GetHistoricalPullsResponse::Ok(
                fetches::historical::list(&self.0, team(&ctx)?, &user).await?,
            ))
        })
        .await
    }

    async fn create_webhook_endpoint(
        &self,
        ctx: Context<Principal>,
        input: CreateWebhookEndpointInput,
    ) -> Answer<CreateWebhookEndpointResponse> {
        answer(&ctx, async {
            webhooks::create(&self.0, team(&ctx)?, input.body).await
        })
        .await
    }

    async fn list_webhook_endpoints(
        &self,
        ctx: Context<Principal>,
        _input: ListWebhookEndpointsInput,
    ) -> Answer<ListWebhookEndpointsResponse> {
        answer(&ctx, async {
            Ok(ListWebhookEndpointsResponse::Ok(
                webhooks::list(&self.0, team(&ctx)?).await?,
            ))
        })
        .await
    }

    async fn get_webhook_endpoint(
        &self,
        ctx: Context<Principal>,
        input: GetWebhookEndpointInput,
    ) -> Answer<GetWebhookEndpointResponse> {
        answer(&ctx, async {
            Ok(GetWebhookEndpointResponse::Ok(
                webhooks::get(&self.0, team(&ctx)?, &input.endpoint_id).await?,
            ))
        })
        .await
    }

    async fn update_webhook_endpoint(
        &self,
        ctx: Context<Principal>,
        input: UpdateWebhookEndpointInput,
    ) -> Answer<UpdateWebhookEndpointResponse> {
        answer(&ctx, async {
            let team_id = team(&ctx)?;
            let updated =
                webhooks::update(&self.0, team_id, &input.endpoint_id, input.body).await?;
            Ok(UpdateWebhookEndpointResponse::Ok(updated))
        })
        .await
    }

    async fn delete_webhook_endpoint(
        &self,
        ctx: Context<Principal>,
        input: DeleteWebhookEndpointInput,
    ) -> Answer<DeleteWebhookEndpointResponse> {
        answer(&ctx, async {
            Ok(DeleteWebhookEndpointResponse::Ok(
                webhooks::delete(&self.0, team(&ctx)?, &input.endpoint_id).await?,
            ))
        })
        .await
    }

    async fn get_webhook_secret(
        &self,
        ctx: Context<Principal>,
        input: GetWebhookSecretInput,
    ) -> Answer<GetWebhookSecretResponse> {
        answer(&ctx, async {
            Ok(GetWebhookSecretResponse::Ok(
                webhooks::secret(&self.0, team(&ctx)?, &input.endpoint_id).await?,
            ))
        })
        .await
    }

    async fn rotate_webhook_secret(
        &self,
        ctx: Context<Principal>,
        input: RotateWebhookSecretInput,
    ) -> Answer<RotateWebhookSecretResponse> {
        answer(&ctx, async {
            Ok(RotateWebhookSecretResponse::Ok(
                webhooks::rotate(&self.0, team(&ctx)?, &input.endpoint_id).await?,
            ))
        })
        .await
    }

    async fn list_webhook_attempts(
        &self,
        ctx: Context<Principal>,
        input: ListWebhookAttemptsInput,
    ) -> Answer<ListWebhookAttemptsResponse> {
        answer(&ctx, async {
            Ok(ListWebhookAttemptsResponse::Ok(
                webhooks::attempts(&self.0, team(&ctx)?, input).await?,
            ))
        })
        .await
    }
}
