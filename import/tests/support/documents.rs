//! The published documents of `corpus/openapi/`, decompressed: shared by the corpus test and
//! the import bench.

use std::io::Read;
use std::path::{Path, PathBuf};

/// The folder of the compressed documents.
pub fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/openapi")
}

/// Every document of the corpus, by file name, decompressed.
pub fn documents() -> Vec<(String, String)> {
    let mut names: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".gz"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|name| {
            let bytes = std::fs::read(corpus().join(&name)).unwrap();
            let mut text = String::new();
            flate2::read::GzDecoder::new(&bytes[..])
                .read_to_string(&mut text)
                .unwrap();
            (name.trim_end_matches(".gz").to_string(), text)
        })
        .collect()
}
