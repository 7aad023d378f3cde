//! The reference server's behaviour, through the generated client over real HTTP, on SQLite
//! and on PostgreSQL alike.

mod harness;

mod access;
mod bounds;
mod catalogue;
mod change_feed;
mod data;
mod document;
mod key_lifecycle;
mod linking;
mod management;
mod patients;
mod pulls;
mod schema;
mod users;
mod webhook_attacks;
mod webhooks;
mod widget;
mod widget_in_chromium;
