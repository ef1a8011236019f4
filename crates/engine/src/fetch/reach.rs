//! Where a feed's content may send the reader: the addresses a fetch for a picture or a full article may connect
//! to. A feed from the internet must not make tidings probe the user's own machine and network (a router's page,
//! a cloud's metadata service at 169.254.169.254, a development server on localhost), so such fetches go to the
//! internet only — plus the parts of the local network the feed's own host is on: a self-hosted feed on the LAN
//! keeps its pictures. Feed refreshes are not restricted (users subscribe to local feeds on purpose).
//!
//! The check holds where the connection is made: the clients of [`Fetcher::for_content_of`] resolve names
//! through a guard that keeps only the addresses allowed, so a name that resolves elsewhere between a check and
//! the connection (DNS rebinding) cannot slip through; an address written as such in the URL never reaches a
//! resolver, so [`Reach::check_url`] checks it before each request, redirects included. Those clients never go
//! through a proxy named in the environment: it would resolve and connect out of the guard's sight.

use super::dns::DnsCache;
use super::{FetchError, Fetcher, build_client};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

impl Fetcher {
    /// This fetcher for what the content of the feed at `feed_url` points at (its pictures, its entries' pages):
    /// it connects to the internet, and to the parts of the local network the feed's own host is on, nothing
    /// else. The same DNS cache and timeouts; connection pools of its own, one per reach (a connection made for
    /// one feed's content is never handed to a fetch that may not make it).
    pub async fn for_content_of(&self, feed_url: &str) -> Result<Fetcher, FetchError> {
        self.guarded_for(feed_url, true).await
    }

    /// [`Fetcher::for_content_of`] for files downloaded whole (episodes): their bytes as the server sends them,
    /// never decompressed — a `.tar.gz` stays what it is, and a file sent gzipped cannot grow past the size and
    /// the free space checked for it (2 MB on the wire became 2 GB on disk).
    pub async fn for_files_of(&self, feed_url: &str) -> Result<Fetcher, FetchError> {
        self.guarded_for(feed_url, false).await
    }

    async fn guarded_for(&self, feed_url: &str, decompress: bool) -> Result<Fetcher, FetchError> {
        let reach = Reach::of_feed(feed_url, &self.dns).await;
        let (client, fresh) = {
            let mut guarded = self.guarded.lock().unwrap_or_else(|e| e.into_inner());
            match guarded.get(&(reach, decompress)) {
                Some(clients) => clients.clone(),
                None => {
                    let resolver: Arc<dyn Resolve> = Arc::new(Guarded { dns: self.dns.clone(), reach });
                    let build = |idle| build_client(&self.config, resolver.clone(), idle, true, decompress);
                    let clients = build(32)
                        .and_then(|client| Ok((client, build(0)?)))
                        .map_err(|reason| FetchError::Connect { url: feed_url.into(), reason })?;
                    guarded.insert((reach, decompress), clients.clone());
                    clients
                }
            }
        };
        Ok(Fetcher { client, fresh, reach: Some(reach), ..self.clone() })
    }
}

/// Where an address is, as far as a feed's content is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    Internet,
    /// Loopback, and the unspecified address (which connects to this machine).
    ThisMachine,
    /// 169.254.0.0/16, fe80::/10.
    LinkLocal,
    /// 10/8, 172.16/12, 192.168/16, the carrier-grade NAT's 100.64/10, fc00::/7 and the old site-local fec0::/10.
    Private,
    /// Neither the internet nor a network of the user's: documentation, benchmarking, multicast, broadcast,
    /// reserved and unallocated ranges.
    Reserved,
}

impl Place {
    fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// What a refusal says of an address here.
    fn said(self) -> &'static str {
        match self {
            Place::Internet => "is on the internet",
            Place::ThisMachine => "is on this machine",
            Place::LinkLocal => "is on the link-local network",
            Place::Private => "is on a private network",
            Place::Reserved => "is in a reserved range of addresses",
        }
    }
}

/// Where `ip` is. An IPv6 address that carries an IPv4 one (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`,
/// NAT64's `64:ff9b::/96`, 6to4's `2002::/16`) is where that IPv4 address is, so `::ffff:127.0.0.1` is this
/// machine.
pub fn place(ip: IpAddr) -> Place {
    match ip {
        IpAddr::V4(v4) => place_v4(v4),
        IpAddr::V6(v6) => place_v6(v6),
    }
}

fn place_v4(ip: Ipv4Addr) -> Place {
    match ip.octets() {
        [0 | 127, ..] => Place::ThisMachine,
        [169, 254, ..] => Place::LinkLocal,
        [10, ..] | [192, 168, ..] => Place::Private,
        [172, b, ..] if (16..32).contains(&b) => Place::Private,
        [100, b, ..] if (64..128).contains(&b) => Place::Private,
        [192, 0, 0 | 2, _] | [198, 51, 100, _] | [203, 0, 113, _] => Place::Reserved,
        [198, 18 | 19, ..] => Place::Reserved,
        [a, ..] if a >= 224 => Place::Reserved,
        _ => Place::Internet,
    }
}

fn place_v6(ip: Ipv6Addr) -> Place {
    let s = ip.segments();
    if ip.is_unspecified() || ip.is_loopback() {
        return Place::ThisMachine;
    }
    let v4 = |high: u16, low: u16| Ipv4Addr::from((u32::from(high) << 16) | u32::from(low));
    match s {
        // Mapped (::ffff:a.b.c.d) and compatible (::a.b.c.d).
        [0, 0, 0, 0, 0, 0xffff | 0, high, low] => place_v4(v4(high, low)),
        [0x64, 0xff9b, 0, 0, 0, 0, high, low] => place_v4(v4(high, low)),
        // 6to4 is on the internet only when the IPv4 address it carries is.
        [0x2002, high, low, ..] => match place_v4(v4(high, low)) {
            Place::Internet => Place::Internet,
            _ => Place::Reserved,
        },
        [a, ..] if a & 0xffc0 == 0xfe80 => Place::LinkLocal,
        [a, ..] if a & 0xfe00 == 0xfc00 || a & 0xffc0 == 0xfec0 => Place::Private,
        // Documentation, and the IETF's protocol assignments (Teredo among them, which hides an IPv4 address).
        [0x2001, 0xdb8 | 0..=0x1ff, ..] => Place::Reserved,
        // Global unicast is 2000::/3; the rest is multicast, discard or unallocated.
        [a, ..] if a & 0xe000 == 0x2000 => Place::Internet,
        _ => Place::Reserved,
    }
}

/// The places a fetch for a feed's content may connect to: the internet, and the places of the feed's own host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Reach(u8);

impl Default for Reach {
    fn default() -> Reach {
        Reach::INTERNET
    }
}

impl Reach {
    /// The internet only: the content of a feed on the internet, or of one whose host cannot be resolved.
    pub const INTERNET: Reach = Reach(1 << (Place::Internet as u8));

    /// This reach and `place` too.
    pub fn with(self, place: Place) -> Reach {
        Reach(self.0 | place.bit())
    }

    pub fn allows(self, ip: IpAddr) -> bool {
        self.0 & place(ip).bit() != 0
    }

    /// The reach of the content of the feed at `feed_url`: the internet, and the places of the addresses its
    /// host resolves to (through the shared DNS cache). A host that does not resolve adds none.
    async fn of_feed(feed_url: &str, dns: &DnsCache) -> Reach {
        let Ok(url) = url::Url::parse(feed_url) else { return Reach::INTERNET };
        if let Some(ip) = literal(&url) {
            return Reach::INTERNET.with(place(ip));
        }
        let Some(name) = url.host_str().and_then(|h| h.parse::<Name>().ok()) else { return Reach::INTERNET };
        match dns.resolve(name).await {
            Ok(addrs) => addrs.fold(Reach::INTERNET, |reach, addr| reach.with(place(addr.ip()))),
            Err(_) => Reach::INTERNET,
        }
    }

    /// Whether `url` may be fetched, as far as its host is an address written out: a name is checked when it is
    /// resolved (by the guard the clients of [`Fetcher::for_content_of`] resolve names through).
    pub fn check_url(self, url: &url::Url) -> Result<(), Refusal> {
        match literal(url) {
            Some(ip) => self.check(ip.to_string(), ip),
            None => Ok(()),
        }
    }

    fn check(self, host: String, ip: IpAddr) -> Result<(), Refusal> {
        if self.allows(ip) { Ok(()) } else { Err(self.refusal(host, ip)) }
    }

    fn refusal(self, host: String, ip: IpAddr) -> Refusal {
        Refusal { host, place: place(ip), feed_local: self != Reach::INTERNET }
    }
}

/// The address a URL's host is written as, if it is one (`http://127.0.0.1/`, `http://[::1]/`; the URL parser
/// reads the other ways of writing one, `2130706433` or `0x7f.1`, as the address too).
fn literal(url: &url::Url) -> Option<IpAddr> {
    match url.host()? {
        url::Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        url::Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        url::Host::Domain(_) => None,
    }
}

/// Why a fetch for a feed's content was not made.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not fetched: {} {} and the feed is not", crate::sanitize::one_line(.host, 200), self.said())]
pub struct Refusal {
    /// The address, or the name and the address it resolved to.
    host: String,
    place: Place,
    /// Whether the feed's own host is on some part of the local network (so the message names which part).
    feed_local: bool,
}

impl Refusal {
    fn said(&self) -> &'static str {
        match self.place {
            Place::ThisMachine | Place::LinkLocal | Place::Private if !self.feed_local => "is on the local network",
            place => place.said(),
        }
    }
}

/// The shared DNS cache, passing on only the addresses `reach` allows: the resolver of the clients that fetch a
/// feed's content. A name with no address left is refused, saying where it led.
#[derive(Clone)]
struct Guarded {
    dns: DnsCache,
    reach: Reach,
}

impl Resolve for Guarded {
    fn resolve(&self, name: Name) -> Resolving {
        let (reach, host) = (self.reach, name.as_str().to_string());
        let resolving = self.dns.resolve(name);
        Box::pin(async move {
            let addrs: Vec<SocketAddr> = resolving.await?.collect();
            let allowed: Vec<SocketAddr> = addrs.iter().copied().filter(|a| reach.allows(a.ip())).collect();
            match (allowed.is_empty(), addrs.first()) {
                (true, Some(first)) => {
                    Err(Box::new(reach.refusal(format!("{host} ({})", first.ip()), first.ip())) as _)
                }
                _ => Ok(Box::new(allowed.into_iter()) as Addrs),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ip: &str) -> Place {
        place(ip.parse().unwrap())
    }

    #[test]
    fn loopback_link_local_private_and_reserved_addresses_are_told_from_the_internet() {
        for ip in ["127.0.0.1", "127.1.2.3", "0.0.0.0", "::1", "::"] {
            assert_eq!(at(ip), Place::ThisMachine, "{ip}");
        }
        for ip in ["169.254.169.254", "fe80::1", "febf::1"] {
            assert_eq!(at(ip), Place::LinkLocal, "{ip}");
        }
        for ip in ["10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1", "100.64.0.1", "fd00::1", "fec0::1"] {
            assert_eq!(at(ip), Place::Private, "{ip}");
        }
        for ip in ["192.0.2.1", "198.51.100.7", "203.0.113.9", "198.18.0.1", "224.0.0.1", "255.255.255.255"] {
            assert_eq!(at(ip), Place::Reserved, "{ip}");
        }
        for ip in ["2001:db8::1", "ff02::1", "100::1", "4000::1", "2001::1"] {
            assert_eq!(at(ip), Place::Reserved, "{ip}");
        }
        for ip in ["93.184.215.14", "172.32.0.1", "100.128.0.1", "1.1.1.1", "2a00:1450:4001::1", "2606:4700::1111"] {
            assert_eq!(at(ip), Place::Internet, "{ip}");
        }
    }

    #[test]
    fn an_ipv6_address_carrying_an_ipv4_one_is_where_that_one_is() {
        assert_eq!(at("::ffff:127.0.0.1"), Place::ThisMachine);
        assert_eq!(at("::ffff:169.254.169.254"), Place::LinkLocal);
        assert_eq!(at("::10.0.0.1"), Place::Private);
        assert_eq!(at("64:ff9b::a9fe:a9fe"), Place::LinkLocal);
        assert_eq!(at("2002:7f00:1::1"), Place::Reserved, "6to4 towards this machine");
        assert_eq!(at("::ffff:93.184.215.14"), Place::Internet);
        assert_eq!(at("2002:5db8:d70e::1"), Place::Internet);
    }

    #[test]
    fn a_feed_reaches_the_internet_and_the_places_of_its_own_host_only() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let internet = Reach::INTERNET;
        assert!(internet.allows(ip("93.184.215.14")));
        assert!(!internet.allows(ip("127.0.0.1")) && !internet.allows(ip("10.0.0.1")));
        let on_loopback = internet.with(Place::ThisMachine);
        assert!(on_loopback.allows(ip("127.0.0.1")) && on_loopback.allows(ip("::ffff:127.0.0.1")));
        assert!(!on_loopback.allows(ip("192.168.1.1")) && !on_loopback.allows(ip("169.254.169.254")));
        let on_lan = internet.with(Place::Private);
        assert!(on_lan.allows(ip("192.168.1.20")) && on_lan.allows(ip("fd12::3")));
        assert!(!on_lan.allows(ip("127.0.0.1")));
    }

    #[test]
    fn a_refusal_says_where_the_address_is_and_that_the_feed_is_not() {
        let url = |s: &str| url::Url::parse(s).unwrap();
        let said = |reach: Reach, s: &str| reach.check_url(&url(s)).unwrap_err().to_string();
        assert_eq!(
            said(Reach::INTERNET, "http://169.254.169.254/latest/meta-data/"),
            "not fetched: 169.254.169.254 is on the local network and the feed is not"
        );
        assert_eq!(
            said(Reach::INTERNET, "http://2130706433:8080/a.png"),
            "not fetched: 127.0.0.1 is on the local network and the feed is not",
            "the URL parser reads a number as the address"
        );
        assert_eq!(
            said(Reach::INTERNET.with(Place::ThisMachine), "http://192.168.1.1/"),
            "not fetched: 192.168.1.1 is on a private network and the feed is not"
        );
        assert_eq!(
            said(Reach::INTERNET, "http://[::ffff:7f00:1]/"),
            "not fetched: ::ffff:127.0.0.1 is on the local network and the feed is not"
        );
        assert!(Reach::INTERNET.check_url(&url("http://localhost/")).is_ok(), "a name is checked once resolved");
    }

    #[tokio::test]
    async fn a_guarded_fetch_is_refused_by_name_and_by_address_without_connecting() {
        use crate::fetch::Validators;
        let fetcher = Fetcher::new(crate::fetch::FetchConfig::default()).unwrap();
        let guarded = fetcher.for_content_of("http://93.184.215.14/feed").await.unwrap();
        // Port 9 has no server: a fetch that tried to connect would fail to, not be refused.
        for url in ["http://localhost:9/a.png", "http://127.0.0.1:9/a.png", "http://[::ffff:127.0.0.1]:9/a.png"] {
            let err = guarded.get(url, &Validators::default()).await.unwrap_err();
            assert!(matches!(err, FetchError::LocalNetwork { .. }), "{url}: {err:?}");
        }
        let err = fetcher.get("http://localhost:9/a.png", &Validators::default()).await.unwrap_err();
        assert!(matches!(err, FetchError::Connect { .. }), "a feed's own fetch is not guarded: {err:?}");
    }

    #[tokio::test]
    async fn a_name_is_refused_once_resolved_and_a_feeds_host_gives_its_reach() {
        let dns = DnsCache::default();
        let guarded = Guarded { dns: dns.clone(), reach: Reach::INTERNET };
        let refused = guarded.resolve("localhost".parse().unwrap()).await.err().expect("localhost is refused");
        let said = refused.to_string();
        assert!(
            said.starts_with("not fetched: localhost (")
                && said.ends_with("is on the local network and the feed is not"),
            "{said}"
        );
        let local = Reach::of_feed("http://localhost:8080/feed.xml", &dns).await;
        assert!(local.allows("127.0.0.1".parse().unwrap()) && !local.allows("10.0.0.1".parse().unwrap()));
        let guarded = Guarded { dns: dns.clone(), reach: local };
        let addrs: Vec<SocketAddr> = guarded.resolve("localhost".parse().unwrap()).await.unwrap().collect();
        assert!(!addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback()), "{addrs:?}");
        assert_eq!(Reach::of_feed("http://10.1.2.3/feed", &dns).await, Reach::INTERNET.with(Place::Private));
        assert_eq!(Reach::of_feed("not a url", &dns).await, Reach::INTERNET);
    }
}
