//! What any service of this kind needs beneath its domain: the store and its connections, the
//! caches kept between writes, time, columns, keys and digests, the errors a request can meet.
//! Uses nothing above it.

pub(crate) mod autocommit;
pub(crate) mod change_feed;
pub mod clock;
pub(crate) mod columns;
pub(crate) mod failure;
pub(crate) mod kept;
pub(crate) mod keys;
pub(crate) mod query;
pub mod store;
pub(crate) mod user_cache;
