//! `covenant lsp` as an editor drives it: a real process, a client session over its
//! stdin and stdout, and headless Neovim.

pub mod client;
mod neovim;
mod session;
