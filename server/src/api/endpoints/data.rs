//! The endpoints tagged `data`: readings: summaries, timeseries, workout streams and historical pulls.

use super::Service;
use crate::background::fetches;
use crate::domain::auth::Team;
use crate::domain::readings;
use health_api::operations::*;
use health_api::server::{Answer, Context, DataEndpoints};

impl DataEndpoints for Service {
    async fn get_workout_stream(
        &self,
        ctx: Context<Team, Self>,
        input: GetWorkoutStreamInput,
    ) -> Answer<GetWorkoutStreamResponse> {
        let workout = input.workout_id.0.to_string();
        Ok(GetWorkoutStreamResponse::Ok(
            readings::workout_stream(&self.0, &ctx.principal.team_id, &workout).await?,
        ))
    }

    async fn get_summaries(
        &self,
        ctx: Context<Team, Self>,
        input: GetSummariesInput,
    ) -> Answer<GetSummariesResponse> {
        let days = (input.start_date.0, input.end_date.map(|d| d.0));
        let read = readings::summaries(
            &self.0,
            &ctx.principal.team_id,
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
    }

    async fn get_timeseries(
        &self,
        ctx: Context<Team, Self>,
        input: GetTimeseriesInput,
    ) -> Answer<GetTimeseriesResponse> {
        let days = (input.start_date.0, input.end_date.map(|d| d.0));
        let read = readings::timeseries(
            &self.0,
            &ctx.principal.team_id,
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
    }

    async fn get_historical_pulls(
        &self,
        ctx: Context<Team, Self>,
        input: GetHistoricalPullsInput,
    ) -> Answer<GetHistoricalPullsResponse> {
        let user = input.user_id.0.to_string();
        Ok(GetHistoricalPullsResponse::Ok(
            fetches::historical::list(&self.0, &ctx.principal.team_id, &user).await?,
        ))
    }
}
