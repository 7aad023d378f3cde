//! The endpoints tagged `users`: users, their patient details and insurance, and refreshing their data.

use super::Service;
use crate::background::fetches;
use crate::domain::auth::Team;
use crate::domain::patient;
use crate::domain::users;
use health_api::operations::*;
use health_api::server::{Answer, Context, UsersEndpoints};

impl UsersEndpoints for Service {
    async fn create_user(
        &self,
        ctx: Context<Team, Self>,
        input: CreateUserInput,
    ) -> Answer<CreateUserResponse> {
        Ok(users::create(&self.0, &ctx.principal.team_id, input.body).await?)
    }

    async fn get_user(
        &self,
        ctx: Context<Team, Self>,
        input: GetUserInput,
    ) -> Answer<GetUserResponse> {
        Ok(GetUserResponse::Ok(
            users::get(
                &self.0,
                &ctx.principal.team_id,
                &input.user_id.0.to_string(),
            )
            .await?,
        ))
    }

    async fn delete_user(
        &self,
        ctx: Context<Team, Self>,
        input: DeleteUserInput,
    ) -> Answer<DeleteUserResponse> {
        Ok(DeleteUserResponse::Ok(
            users::delete(
                &self.0,
                &ctx.principal.team_id,
                &input.user_id.0.to_string(),
            )
            .await?,
        ))
    }

    async fn undo_delete_user(
        &self,
        ctx: Context<Team, Self>,
        input: UndoDeleteUserInput,
    ) -> Answer<UndoDeleteUserResponse> {
        Ok(UndoDeleteUserResponse::Ok(
            users::undo_delete(&self.0, &ctx.principal.team_id, input).await?,
        ))
    }

    async fn resolve_user(
        &self,
        ctx: Context<Team, Self>,
        input: ResolveUserInput,
    ) -> Answer<ResolveUserResponse> {
        Ok(ResolveUserResponse::Ok(
            users::resolve(&self.0, &ctx.principal.team_id, &input.client_user_id).await?,
        ))
    }

    async fn update_user(
        &self,
        ctx: Context<Team, Self>,
        input: UpdateUserInput,
    ) -> Answer<UpdateUserResponse> {
        Ok(users::update(
            &self.0,
            &ctx.principal.team_id,
            &input.user_id.0.to_string(),
            input.body,
        )
        .await?)
    }

    async fn refresh_user(
        &self,
        ctx: Context<Team, Self>,
        input: RefreshUserInput,
    ) -> Answer<RefreshUserResponse> {
        let user = input.user_id.0.to_string();
        // The router has checked the bounds (5 to 60 seconds).
        let timeout = std::time::Duration::from_secs_f64(input.timeout.clamp(0.0, 60.0));
        Ok(RefreshUserResponse::Ok(
            fetches::refresh::refresh(&self.0, &ctx.principal.team_id, &user, timeout).await?,
        ))
    }

    async fn update_patient_info(
        &self,
        ctx: Context<Team, Self>,
        input: UpdatePatientInfoInput,
    ) -> Answer<UpdatePatientInfoResponse> {
        Ok(UpdatePatientInfoResponse::Ok(
            patient::update(&self.0, &ctx.principal.team_id, &input.user_id, input.body).await?,
        ))
    }

    async fn get_latest_patient_info(
        &self,
        ctx: Context<Team, Self>,
        input: GetLatestPatientInfoInput,
    ) -> Answer<GetLatestPatientInfoResponse> {
        Ok(GetLatestPatientInfoResponse::Ok(
            patient::latest(
                &self.0,
                &ctx.principal.team_id,
                &input.user_id.0.to_string(),
            )
            .await?,
        ))
    }

    async fn add_insurance(
        &self,
        ctx: Context<Team, Self>,
        input: AddInsuranceInput,
    ) -> Answer<AddInsuranceResponse> {
        Ok(AddInsuranceResponse::Ok(
            patient::add_insurance(&self.0, &ctx.principal.team_id, &input.user_id, input.body)
                .await?,
        ))
    }

    async fn get_latest_insurance(
        &self,
        ctx: Context<Team, Self>,
        input: GetLatestInsuranceInput,
    ) -> Answer<GetLatestInsuranceResponse> {
        Ok(GetLatestInsuranceResponse::Ok(
            patient::latest_insurance(
                &self.0,
                &ctx.principal.team_id,
                &input.user_id.0.to_string(),
                input.is_primary,
            )
            .await?,
        ))
    }
}
