//! Compiles the generated parser: C, committed, so only a C compiler is needed.

fn main() {
    let src = std::path::Path::new("src");
    cc::Build::new()
        .include(src)
        .file(src.join("parser.c"))
        .warnings(false)
        .std("c11")
        .compile("tree-sitter-covenant");
    println!("cargo:rerun-if-changed=src/parser.c");
}
