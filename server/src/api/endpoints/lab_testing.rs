//! The endpoints tagged `lab_testing`: lab test markers, orders and patient service centers.

use super::Service;
use crate::domain::auth::Team;
use crate::domain::labs;
use crate::domain::orders;
use health_api::operations::*;
use health_api::server::{Answer, Context, LabTestingEndpoints};

impl LabTestingEndpoints for Service {
    async fn list_markers(
        &self,
        _ctx: Context<Team, Self>,
        input: ListMarkersInput,
    ) -> Answer<ListMarkersResponse> {
        Ok(ListMarkersResponse::Ok(labs::list(&self.0, input).await?))
    }

    async fn list_lab_test_markers(
        &self,
        _ctx: Context<Team, Self>,
        input: ListLabTestMarkersInput,
    ) -> Answer<ListLabTestMarkersResponse> {
        Ok(ListLabTestMarkersResponse::Ok(
            labs::of_lab_test(&self.0, input).await?,
        ))
    }

    async fn list_order_set_markers(
        &self,
        _ctx: Context<Team, Self>,
        input: ListOrderSetMarkersInput,
    ) -> Answer<ListOrderSetMarkersResponse> {
        Ok(ListOrderSetMarkersResponse::Ok(
            labs::of_order_set(&self.0, input).await?,
        ))
    }

    async fn list_psc_info(
        &self,
        ctx: Context<Team, Self>,
        input: ListPscInfoInput,
    ) -> Answer<ListPscInfoResponse> {
        Ok(ListPscInfoResponse::Ok(
            orders::service_centers(&self.0, &ctx.principal.team_id, input).await?,
        ))
    }

    async fn create_lab_order(
        &self,
        ctx: Context<Team, Self>,
        input: CreateLabOrderInput,
    ) -> Answer<CreateLabOrderResponse> {
        Ok(orders::create(&self.0, &ctx.principal.team_id, input.body).await?)
    }

    async fn list_orders(
        &self,
        ctx: Context<Team, Self>,
        input: ListOrdersInput,
    ) -> Answer<ListOrdersResponse> {
        Ok(ListOrdersResponse::Ok(
            orders::list(
                &self.0,
                &ctx.principal.team_id,
                input.interpretation.as_ref(),
            )
            .await?,
        ))
    }
}
