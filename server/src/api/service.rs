//! The generated server trait's core: each kind of credential becomes the principal the
//! endpoints of its kind receive, and gates are judged for the caller. The endpoints
//! themselves are in [`super::endpoints`], one module per part of the trait.

use crate::ReferenceServer;
use crate::domain::auth::{self, GateSubject, LinkGrant, Manager, Team};
use covenant_runtime::server::{AuthError, Unavailable};
use health_api::operations::*;
use health_api::server::{Caller, HealthDataServer};
use std::sync::Arc;

/// The trait is implemented on a shared handle, so bulk operations can outlive the request
/// that accepted them.
#[derive(Clone)]
pub struct Service(pub Arc<ReferenceServer>);

impl HealthDataServer for Service {
    type Team = Team;
    type Link = LinkGrant;
    type Management = Manager;

    async fn authenticate_team(&self, _: AuthScheme, credential: &str) -> Result<Team, AuthError> {
        auth::team_key(&self.0.store, &self.0.auth, credential).await
    }

    async fn authenticate_link(
        &self,
        _: AuthScheme,
        credential: &str,
    ) -> Result<LinkGrant, AuthError> {
        auth::link_grant(&self.0.store, &*self.0.clock, credential).await
    }

    async fn authenticate_management(
        &self,
        _: AuthScheme,
        credential: &str,
    ) -> Result<Manager, AuthError> {
        auth::management_key(&self.0.store, &self.0.auth, credential).await
    }

    async fn gate_open(
        &self,
        caller: Option<&Caller<Self>>,
        gate: Gate,
    ) -> Result<bool, Unavailable> {
        let subject = match caller {
            Some(Caller::Team(team)) => Some(GateSubject {
                org_id: &team.org_id,
                team_id: Some(&team.team_id),
            }),
            Some(Caller::Management(manager)) => Some(GateSubject {
                org_id: &manager.org_id,
                team_id: None,
            }),
            Some(Caller::Link(_)) | None => None,
        };
        auth::gate_open(&self.0.store, &self.0.auth, subject, gate).await
    }
}
