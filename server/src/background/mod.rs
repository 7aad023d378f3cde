//! Work that outlives the request that asked for it: bulk operations, historical pulls and
//! refreshes, webhook deliveries. Each runs from leased rows, so a crash loses nothing. Uses
//! the domain and the infrastructure, never the handlers.

pub(crate) mod bulk;
pub mod fetches;
pub mod webhooks;
