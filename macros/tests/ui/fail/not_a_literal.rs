const PATH: &str = "spec.covenant";
covenant_macros::include_spec!(PATH);

fn main() {}
