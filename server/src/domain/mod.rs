//! What the service knows and decides: users and their details, lab tests and orders,
//! organizations, teams and keys, who is calling (`auth`), the provider data a fetch finds,
//! the events owed. Uses the infrastructure only.

pub mod admin;
pub(crate) mod auth;
pub mod bootstrap;
pub(crate) mod catalogue;
pub mod events;
pub(crate) mod gates;
pub(crate) mod key_lifecycle;
pub(crate) mod labs;
pub(crate) mod management;
pub(crate) mod orders;
pub(crate) mod patient;
pub(crate) mod provider_data;
pub(crate) mod readings;
pub mod simulator;
pub(crate) mod sources;
pub(crate) mod users;
