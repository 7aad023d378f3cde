covenant_macros::include_spec!("fixtures/syntax.covenant");

fn main() {}
