//! Where deliveries may go. A webhook endpoint is an address a team chooses and the server
//! then POSTs to, so without a rule it is a way into the server's own network: loopback,
//! private ranges, link-local metadata services. Addresses are checked when an endpoint is
//! registered (its host resolved) and again when each delivery connects (the addresses the
//! name resolves to then, so a name that later points inside is refused too). Local
//! development opts in to private receivers with [`Targets::AnyAddress`].

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

/// Which addresses deliveries may reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Targets {
    /// Public addresses only: the default of every server.
    #[default]
    PublicOnly,
    /// Loopback and private addresses too: a receiver on the developer's own machine, such
    /// as the conformance runner's (`serve --allow-private-webhooks`).
    AnyAddress,
}

impl Targets {
    /// Why deliveries may not go to `ip`; `None` when they may.
    pub fn refusal(self, ip: IpAddr) -> Option<String> {
        match self {
            Targets::AnyAddress => None,
            Targets::PublicOnly => {
                (!is_public(ip)).then(|| format!("{ip} is not a public address"))
            }
        }
    }

    /// Why deliveries may not go to `url`: not http(s), no host, or a host that is (or
    /// resolves to) an address [`Targets::refusal`] refuses. A name that does not resolve
    /// now is let through: the check at connect time holds it.
    pub async fn check_url(self, url: &str) -> Option<String> {
        let parsed = match url::Url::parse(url) {
            Ok(parsed) => parsed,
            Err(e) => return Some(format!("not a web address ({e})")),
        };
        if !matches!(parsed.scheme(), "http" | "https") {
            return Some("not an http or https address".to_string());
        }
        let port = parsed.port_or_known_default().unwrap_or(80);
        let addresses: Vec<IpAddr> = match parsed.host() {
            None => return Some("a web address needs a host".to_string()),
            Some(url::Host::Ipv4(ip)) => vec![IpAddr::V4(ip)],
            Some(url::Host::Ipv6(ip)) => vec![IpAddr::V6(ip)],
            Some(url::Host::Domain(name)) => {
                if self == Targets::AnyAddress {
                    return None;
                }
                // RFC 6761: these names are this machine's, whatever a resolver says.
                let name_lower = name.trim_end_matches('.').to_ascii_lowercase();
                if name_lower == "localhost" || name_lower.ends_with(".localhost") {
                    return Some(format!("{name} names this machine"));
                }
                // What a name resolves to is not told: only that it is refused.
                let found: Vec<IpAddr> = match tokio::net::lookup_host((name, port)).await {
                    Ok(found) => found.map(|a| a.ip()).collect(),
                    Err(_) => return None,
                };
                return found
                    .into_iter()
                    .any(|ip| self.refusal(ip).is_some())
                    .then(|| format!("{name} resolves to an address that is not public"));
            }
        };
        addresses.into_iter().find_map(|ip| self.refusal(ip))
    }
}

impl Targets {
    /// Why a delivery may not connect to `url` as written: an address it names itself that
    /// is refused. Names are left to [`GuardedResolver`], which sees what they resolve to.
    pub fn literal_refusal(self, url: &str) -> Option<String> {
        match url::Url::parse(url).ok()?.host()? {
            url::Host::Ipv4(ip) => self.refusal(IpAddr::V4(ip)),
            url::Host::Ipv6(ip) => self.refusal(IpAddr::V6(ip)),
            url::Host::Domain(_) => None,
        }
    }
}

/// Whether `ip` is on the public internet: not loopback, private, link-local, shared
/// (carrier-grade NAT), unspecified, broadcast, multicast, documentation, benchmarking or
/// reserved, and, for IPv6, no IPv4 address of those kinds inside (mapped, compatible,
/// NAT64, 6to4).
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && c == 0)
        || (a == 192 && b == 88 && c == 99)
        || (a == 198 && (18..20).contains(&b))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    let first = ip.segments()[0];
    !(ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first & 0xffc0) == 0xfec0
        || (first == 0x2001 && ip.segments()[1] == 0x0db8)
        // Teredo carries an IPv4 address obscured; NAT64 for local use carries one too.
        || (first == 0x2001 && ip.segments()[1] == 0)
        || (first == 0x64 && ip.segments()[1] == 0xff9b && ip.segments()[2] == 1)
        || (first == 0x0100 && ip.segments()[1..4] == [0, 0, 0]))
}

/// The IPv4 address an IPv6 address carries: mapped (`::ffff:a.b.c.d`), translated
/// (`::ffff:0:a.b.c.d`), compatible (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) or 6to4
/// (`2002:aabb:ccdd::`).
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let tail = Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    match s {
        [0, 0, 0, 0, 0, 0xffff, _, _] => Some(tail),
        [0, 0, 0, 0, 0xffff, 0, _, _] => Some(tail),
        [0, 0, 0, 0, 0, 0, _, _] if !ip.is_loopback() && !ip.is_unspecified() => Some(tail),
        [0x64, 0xff9b, 0, 0, 0, 0, _, _] => Some(tail),
        [0x2002, hi, lo, ..] => Some(Ipv4Addr::new(
            (hi >> 8) as u8,
            hi as u8,
            (lo >> 8) as u8,
            lo as u8,
        )),
        _ => None,
    }
}

/// What a refused name's resolution says; [`refused_by_resolver`] looks for it.
const NO_PUBLIC_ADDRESS: &str = "resolves to no public address";

/// Whether a send failed because its name resolves only to refused addresses.
pub fn refused_by_resolver(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(error);
    while let Some(error) = cause {
        if error.to_string().contains(NO_PUBLIC_ADDRESS) {
            return true;
        }
        cause = error.source();
    }
    false
}

/// The delivery client's resolver: a name's addresses less those [`Targets`] refuses, and an
/// error when none is left, so no connection is ever opened to a refused address.
pub struct GuardedResolver(pub Targets);

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let targets = self.0;
        let host = name.as_str().to_string();
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let allowed: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| targets.refusal(a.ip()).is_none())
                .collect();
            if allowed.is_empty() {
                let refused: Box<dyn std::error::Error + Send + Sync> =
                    format!("{host} {NO_PUBLIC_ADDRESS}").into();
                return Err(refused);
            }
            Ok(Box::new(allowed.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// A delivery client that connects only where `targets` allows.
pub fn guarded_resolver(targets: Targets) -> Arc<GuardedResolver> {
    Arc::new(GuardedResolver(targets))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_spelling_of_loopback_and_private_is_refused() {
        let refused = [
            "http://127.0.0.1:9/x",
            "http://localhost:9/x",
            "http://[::1]:9/x",
            "http://0x7f000001/x",
            "http://2130706433/x",
            "http://127.1/x",
            "http://0177.0.0.1/x",
            "http://[::ffff:127.0.0.1]/x",
            "http://[::ffff:7f00:1]/x",
            "http://0.0.0.0/x",
            "http://10.1.2.3/x",
            "http://172.16.0.1/x",
            "http://192.168.1.1/x",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/x",
            "http://[fd00::1]/x",
            "http://[fe80::1]/x",
            "http://[64:ff9b::a9fe:a9fe]/x",
            "http://[2002:7f00:1::]/x",
            "http://[::ffff:0:7f00:1]/x",
            "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x",
            "http://[64:ff9b:1::a00:1]/x",
            "http://192.88.99.1/x",
            "http://LOCALHOST./x",
            "ftp://example.com/x",
        ];
        for url in refused {
            assert!(
                Targets::PublicOnly.check_url(url).await.is_some(),
                "{url} was let through"
            );
        }
        for url in ["http://93.184.215.14/x", "https://[2606:4700::1111]/x"] {
            assert_eq!(Targets::PublicOnly.check_url(url).await, None, "{url}");
        }
        assert_eq!(
            Targets::AnyAddress.check_url("http://127.0.0.1:9/x").await,
            None
        );
    }
}
