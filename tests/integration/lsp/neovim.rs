//! Headless Neovim.
