//! The macro as users meet it: a spec that expands and compiles, and broken specs whose
//! compile errors quote the spec's file:line:col. Expected messages are in tests/ui/fail/*.stderr;
//! update them only deliberately with TRYBUILD=overwrite, then review the diff.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass/*.rs");
    t.compile_fail("tests/ui/fail/*.rs");
}
