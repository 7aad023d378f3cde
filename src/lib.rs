//! The library half of the `covenant` command: what a benchmark or another tool can use
//! without the command line.

pub mod mock;
