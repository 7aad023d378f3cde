//! Webhooks: the management API of a team's endpoints, and the delivery of the outbox to
//! them.

pub mod delivery;
pub mod endpoints;
pub mod targets;
