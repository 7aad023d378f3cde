covenant_macros::include_spec!("fixtures/unknown_type.covenant");

fn main() {}
