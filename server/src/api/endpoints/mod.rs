//! The generated server trait's parts, one module per tag, each implemented on [`Service`].
//! A method is the HTTP edge of its behaviour: the caller's principal and typed input in,
//! the domain's answer out at its declared status, a failure answered through `?`.

use super::service::Service;

mod data;
mod lab_testing;
mod link;
mod link_widget;
mod management;
mod providers;
mod users;
mod webhooks;
