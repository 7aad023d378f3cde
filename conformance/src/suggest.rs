//! Did-you-mean: the known name closest to a misspelt one, by Jaro-Winkler similarity.

/// How alike a known name must be to a misspelt one to be offered: names a user picks
/// (tags, ids, keys of a cassette, bases) are offered more readily than the spec's own
/// names (endpoints, matchers, types), which share long prefixes and would be offered
/// for nearly anything.
#[derive(Clone, Copy, Debug)]
pub enum Likeness {
    Loose,
    Close,
}

impl Likeness {
    fn least(self) -> f64 {
        match self {
            Likeness::Loose => 0.7,
            Likeness::Close => 0.8,
        }
    }
}

/// The candidate most like `name`, when one is alike enough.
pub fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
    likeness: Likeness,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > likeness.least())
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}
