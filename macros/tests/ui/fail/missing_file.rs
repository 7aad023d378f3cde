covenant_macros::include_spec!("fixtures/no_such_spec.covenant");

fn main() {}
