//! Choosing which scenarios run: `--filter` by id, tag or endpoint, `--shard i/n` (by id,
//! or balanced by an earlier run's durations), and `--rerun-failed`.

use crate::cassette::Cassette;
use crate::suggest::{Likeness, closest};

/// One `--filter`: `tag:NAME`, `endpoint:NAME`, or a scenario id; `*` matches any run of
/// characters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Filter {
    Id(String),
    Tag(String),
    Endpoint(String),
}

impl std::str::FromStr for Filter {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let filter = if let Some(t) = s.strip_prefix("tag:") {
            Filter::Tag(t.into())
        } else if let Some(e) = s.strip_prefix("endpoint:") {
            Filter::Endpoint(e.into())
        } else if let Some(i) = s.strip_prefix("id:") {
            Filter::Id(i.into())
        } else {
            Filter::Id(s.into())
        };
        match &filter {
            Filter::Id(p) | Filter::Tag(p) | Filter::Endpoint(p) if p.is_empty() => {
                Err(format!("`{s}` filters on nothing"))
            }
            _ => Ok(filter),
        }
    }
}

impl Filter {
    /// The filter as written on the command line.
    pub fn text(&self) -> String {
        match self {
            Filter::Id(p) => p.clone(),
            Filter::Tag(p) => format!("tag:{p}"),
            Filter::Endpoint(p) => format!("endpoint:{p}"),
        }
    }

    pub fn matches(&self, cassette: &Cassette) -> bool {
        let s = &cassette.scenario;
        match self {
            Filter::Id(p) => glob(p, &s.id),
            Filter::Tag(p) => s.tags.iter().any(|t| glob(p, t)),
            Filter::Endpoint(p) => s.exchanges.iter().any(|e| glob(p, &e.endpoint)),
        }
    }
}

/// Each filter must name something there is: an endpoint of the spec, a tag or an id of
/// the cassettes read. Otherwise a typo would select nothing, or less than meant, in
/// silence; the error names the closest known name.
pub fn check_filters<C: AsRef<Cassette>>(
    filters: &[Filter],
    cassettes: &[C],
    endpoints: &[&str],
) -> Result<(), String> {
    let mut problems = Vec::new();
    for filter in filters {
        let (what, pattern, known): (&str, &str, Vec<&str>) = match filter {
            Filter::Endpoint(p) => ("endpoint of the spec", p, endpoints.to_vec()),
            Filter::Tag(p) => (
                "tag of any scenario",
                p,
                cassettes
                    .iter()
                    .flat_map(|c| c.as_ref().scenario.tags.iter().map(String::as_str))
                    .collect(),
            ),
            Filter::Id(p) => (
                "scenario id",
                p,
                cassettes
                    .iter()
                    .map(|c| c.as_ref().scenario.id.as_str())
                    .collect(),
            ),
        };
        if known.iter().any(|k| glob(pattern, k)) {
            continue;
        }
        let help = closest(pattern, known.iter().copied(), Likeness::Loose)
            .map(|c| format!("; did you mean `{c}`?"))
            .unwrap_or_default();
        problems.push(format!(
            "--filter `{}` matches no {what}{help}",
            filter.text()
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// `--shard i/n`: the i-th (1-based) of n parts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("`{s}` is not a shard: write i/n with 1 <= i <= n, as 2/4");
        let (i, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u32, u32) =
            (i.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl Shard {
    /// Whether a scenario belongs to this shard. It depends on the id alone (FNV-1a), so
    /// every machine agrees, and adding a scenario moves no other.
    pub fn holds(&self, id: &str) -> bool {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in id.bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        hash % u64::from(self.count) == u64::from(self.index - 1)
    }
}

/// How long each scenario took in an earlier run, by id (milliseconds): `--durations FILE`
/// reads them from that run's `report.json`.
pub type Durations = std::collections::HashMap<String, f64>;

/// The cassettes that pass every selection: any filter, the shard, and (when given) the set
/// of ids that failed last time. With durations, the shards are balanced by them.
pub fn select<C: AsRef<Cassette>>(
    cassettes: Vec<C>,
    filters: &[Filter],
    shard: Option<Shard>,
    durations: Option<&Durations>,
    only: Option<&[String]>,
) -> Vec<C> {
    let filtered: Vec<C> = cassettes
        .into_iter()
        .filter(|c| filters.is_empty() || filters.iter().any(|f| f.matches(c.as_ref())))
        .collect();
    let balanced = match (shard, durations) {
        (Some(shard), Some(durations)) => {
            let ids: Vec<&str> = filtered
                .iter()
                .map(|c| c.as_ref().scenario.id.as_str())
                .collect();
            Some(shard.balanced(&ids, durations))
        }
        _ => None,
    };
    filtered
        .into_iter()
        .filter(|c| {
            let id = &c.as_ref().scenario.id;
            match (&balanced, shard) {
                (Some(held), _) => held.contains(id),
                (None, Some(shard)) => shard.holds(id),
                (None, None) => true,
            }
        })
        .filter(|c| only.is_none_or(|ids| ids.contains(&c.as_ref().scenario.id)))
        .collect()
}

impl Shard {
    /// The ids of this shard when the parts are balanced by the durations of an earlier
    /// run: longest first, each to the part with the least time so far (the first such
    /// part on a tie), so every machine given the same report agrees. A scenario the report
    /// does not know counts as the median of those it does.
    pub fn balanced(
        &self,
        ids: &[&str],
        durations: &Durations,
    ) -> std::collections::HashSet<String> {
        let mut known: Vec<f64> = ids
            .iter()
            .filter_map(|id| durations.get(*id).copied())
            .collect();
        known.sort_by(f64::total_cmp);
        let median = known.get(known.len() / 2).copied().unwrap_or(1.0);
        let mut weighed: Vec<(f64, &str)> = ids
            .iter()
            .map(|id| (durations.get(*id).copied().unwrap_or(median).max(0.0), *id))
            .collect();
        weighed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        // Parts past the number of scenarios stay empty.
        let parts = (self.count as usize).min(ids.len()).max(1);
        let mut totals = vec![0.0_f64; parts];
        let mut held = std::collections::HashSet::new();
        for (duration, id) in weighed {
            let (part, _) = totals
                .iter()
                .enumerate()
                .min_by(|a, b| a.1.total_cmp(b.1).then(a.0.cmp(&b.0)))
                .unwrap_or((0, &0.0));
            totals[part] += duration;
            if part + 1 == self.index as usize {
                held.insert(id.to_string());
            }
        }
        held
    }
}

/// Whether `text` matches `pattern`, where `*` matches any run of characters.
fn glob(pattern: &str, text: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == text;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !text.starts_with(first) || !text[first.len()..].ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(i) => rest = &rest[i + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One 20 s scenario and many short ones: by count the long one's shard takes 20 s more
    /// than the others; balanced by the last run's durations, it takes that shard alone.
    #[test]
    fn shards_balanced_by_durations_split_the_time_not_the_count() {
        let mut durations: Durations = (0..30).map(|i| (format!("s{i:02}"), 100.0)).collect();
        durations.insert("slow".into(), 20_000.0);
        let mut ids: Vec<String> = durations.keys().cloned().collect();
        ids.push("new".into());
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let parts: Vec<std::collections::HashSet<String>> = (1..=3)
            .map(|index| Shard { index, count: 3 }.balanced(&ids, &durations))
            .collect();
        let total = |part: &std::collections::HashSet<String>| -> f64 {
            part.iter()
                .map(|id| durations.get(id).copied().unwrap_or(100.0))
                .sum()
        };
        let slow_part = parts.iter().position(|p| p.contains("slow")).unwrap();
        assert_eq!(parts[slow_part].len(), 1, "the slow scenario runs alone");
        let others: Vec<f64> = (0..3)
            .filter(|i| *i != slow_part)
            .map(|i| total(&parts[i]))
            .collect();
        assert!((others[0] - others[1]).abs() <= 100.0, "{others:?}");
        // Every scenario is in exactly one part, the one the report did not know too.
        let all: usize = parts.iter().map(|p| p.len()).sum();
        assert_eq!(all, ids.len());
        assert!(parts.iter().any(|p| p.contains("new")));
        // Every machine agrees.
        assert_eq!(
            Shard { index: 2, count: 3 }.balanced(&ids, &durations),
            parts[1]
        );
    }

    #[test]
    fn globs() {
        assert!(glob("users/*", "users/create"));
        assert!(glob("*conflict*", "users/create-conflict-1"));
        assert!(!glob("users/*", "teams/create"));
        assert!(glob("a*b*c", "axxbyyc"));
        assert!(!glob("a*b*c", "ac"));
    }

    #[test]
    fn a_filter_naming_nothing_is_an_error_with_the_closest_name() {
        let e = check_filters(
            &["endpoint:create_usr".parse().unwrap()],
            &[] as &[Cassette],
            &["create_user"],
        )
        .unwrap_err();
        assert!(e.contains("did you mean `create_user`"), "{e}");
        assert!(
            check_filters(
                &["endpoint:create_*".parse().unwrap()],
                &[] as &[Cassette],
                &["create_user"]
            )
            .is_ok()
        );
    }

    #[test]
    fn shards_split_every_id_exactly_once() {
        let ids: Vec<String> = (0..200).map(|i| format!("scenario-{i}")).collect();
        let shards: Vec<Shard> = (1..=3).map(|i| format!("{i}/3").parse().unwrap()).collect();
        for id in &ids {
            assert_eq!(shards.iter().filter(|s| s.holds(id)).count(), 1);
        }
        assert!(
            shards
                .iter()
                .all(|s| ids.iter().filter(|id| s.holds(id)).count() > 40)
        );
        assert!("0/3".parse::<Shard>().is_err());
        assert!("4/3".parse::<Shard>().is_err());
    }
}
