//! The parser fuzzer's promise carried through to rustc: valid specs made by mutating real
//! ones (cutting, duplicating and splicing spans of text) generate code that compiles,
//! warning-free, with both halves. A bounded, seeded sample is checked by `cargo check` in a
//! scratch crate, so CI time stays fixed; `FUZZ_COMPILE_SAMPLES` and `FUZZ_COMPILE_SEED` widen
//! or move the search locally.

use covenant_codegen::emit::rust::{RustBackend, RustSettings};
use covenant_codegen::{SourceFile, check_source};
use std::path::{Path, PathBuf};
use std::process::Command;

const SPECS: &[&str] = &[
    include_str!("../../specs/petstore.covenant"),
    include_str!("../../specs/github.covenant"),
    include_str!("../../specs/payments.covenant"),
    include_str!("../../../spec/examples/bookshop.covenant"),
];

/// Text spliced in at a cut, so mutations reach declarations, members and annotations.
const FRAGMENTS: &[&str] = &[
    "",
    "",
    "",
    "\n",
    "?",
    " | null",
    "[]",
    "\n@deprecated(\"old\")\n",
    "\n/// Doc.\n",
    "\nmodel Extra { id: int }\n",
    "\n    extra?: string\n",
    "\n    query extra?: int\n",
];

/// A small, seeded generator: the sample is the same on every machine.
struct XorShift(u64);

impl XorShift {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn boundary(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// A mutation of a spec: a span cut out, or moved, or replaced by a fragment.
fn mutate(rng: &mut XorShift, text: &str) -> String {
    let mut out = text.to_string();
    for _ in 0..=rng.below(2) {
        let start = boundary(&out, rng.below(out.len()));
        let end = boundary(&out, start + rng.below(120));
        let insert = if rng.below(3) == 0 {
            let from = boundary(&out, rng.below(out.len()));
            out[from..boundary(&out, from + rng.below(80))].to_string()
        } else {
            FRAGMENTS[rng.below(FRAGMENTS.len())].to_string()
        };
        out.replace_range(start..end, &insert);
    }
    out
}

/// The generated modules of a spec as one Rust module, or `None` when it does not check.
fn generated_module(text: &str) -> Option<String> {
    let checked = check_source(&SourceFile::new("mutated.covenant", text));
    let spec = checked.spec?;
    let modules = RustBackend::new(&spec, &RustSettings::default()).modules();
    let mut out = String::new();
    for m in modules {
        out.push_str(&format!(
            "#[allow(deprecated)]\npub mod {} {{\n{}\n}}\n",
            m.name,
            prettyplease::unparse(&m.file)
        ));
    }
    Some(out)
}

fn scratch_crate(samples: &[(String, String)]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-compile");
    let src = dir.join("src");
    let _ = std::fs::remove_dir_all(&src);
    std::fs::create_dir_all(&src).unwrap();
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let runtime = workspace.join("runtime").canonicalize().unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"fuzz-compile\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\ncovenant-runtime = {{ path = {runtime:?}, features = [\"server\", \"client\"] }}\n\
             serde = {{ version = \"1\", features = [\"derive\"] }}\nserde_json = {{ version = \"1\", features = [\"preserve_order\"] }}\n\
             regex = \"1\"\n\n[workspace]\n"
        ),
    )
    .unwrap();
    // The workspace's lock, so the sample builds against the versions CI already fetched.
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut lib = String::from("#![deny(warnings)]\n");
    for (i, (origin, module)) in samples.iter().enumerate() {
        lib.push_str(&format!(
            "/// Mutated from {origin}.\npub mod sample_{i} {{\n{module}}}\n"
        ));
    }
    std::fs::write(src.join("lib.rs"), lib).unwrap();
    dir
}

#[test]
fn valid_mutations_of_real_specs_compile() {
    let wanted: usize = std::env::var("FUZZ_COMPILE_SAMPLES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(6);
    let seed: u64 = std::env::var("FUZZ_COMPILE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_c0de);
    let mut rng = XorShift(seed);
    let mut samples: Vec<(String, String)> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    for attempt in 0..200_000 {
        if samples.len() >= wanted {
            break;
        }
        let origin = attempt % SPECS.len();
        let text = mutate(&mut rng, SPECS[origin]);
        if SPECS.contains(&text.as_str()) || texts.contains(&text) {
            continue;
        }
        if let Some(module) = generated_module(&text) {
            samples.push((format!("corpus spec {origin}, attempt {attempt}"), module));
            texts.push(text);
        }
    }
    assert_eq!(samples.len(), wanted, "too few valid mutations");
    let dir = scratch_crate(&samples);
    let output = Command::new(env!("CARGO"))
        .args(["check", "--offline", "--quiet", "--message-format", "short"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo check");
    if !output.status.success() {
        for (i, text) in texts.iter().enumerate() {
            std::fs::write(dir.join(format!("sample_{i}.covenant")), text).unwrap();
        }
        panic!(
            "generated code of a valid spec does not compile (specs and crate in {}):\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}
