//! Canonical URLs, so that two spellings of one address count once (entry identity, discovery candidates):
//! lowercase scheme and host, default ports dropped, trailing slash dropped (except the root), query sorted
//! with tracking parameters removed, needless percent-encoding decoded, fragment dropped. Also resolving
//! relative links against a list of bases. Pure.

use url::Url;

/// Query parameters that only track where a click came from.
fn is_tracking(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with("utm_") || matches!(name.as_str(), "fbclid" | "gclid" | "mc_cid" | "mc_eid" | "ref" | "source")
}

/// The canonical form of an absolute http(s) URL; `None` for anything else.
pub fn canonical_url(raw: &str) -> Option<String> {
    let mut url = Url::parse(raw.trim()).ok()?;
    if !matches!(url.scheme(), "http" | "https") {
        return None;
    }
    url.set_fragment(None);
    // The url crate already lowercases scheme and host and drops default ports.
    let path = decode_unreserved(url.path());
    let path = if path.len() > 1 { path.trim_end_matches('/').to_string() } else { path };
    let path = if path.is_empty() { "/".to_string() } else { path };
    url.set_path(&path);
    let mut pairs: Vec<(String, String)> = url
        .query()
        .unwrap_or("")
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_unreserved(k), decode_unreserved(v))
        })
        .filter(|(k, _)| !is_tracking(k))
        .collect();
    pairs.sort();
    if pairs.is_empty() {
        url.set_query(None);
    } else {
        let query: Vec<String> =
            pairs.iter().map(|(k, v)| if v.is_empty() { k.clone() } else { format!("{k}={v}") }).collect();
        url.set_query(Some(&query.join("&")));
    }
    Some(url.to_string())
}

/// Decodes `%XX` escapes of unreserved characters (letters, digits, `-._~`) and uppercases the others.
fn decode_unreserved(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = &s[i + 1..i + 3];
            let b = u8::from_str_radix(hex, 16).unwrap_or(0);
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                out.push(b as char);
            } else {
                out.push('%');
                out.push_str(&hex.to_ascii_uppercase());
            }
            i += 3;
            continue;
        }
        let c = s[i..].chars().next().unwrap_or('\u{FFFD}');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// A web address of the form most feeds' links and subscriptions have, read without the URL parser: `http://` or
/// `https://`, a host name of lower-case letters, digits, `-` and `.` whose last label starts with a letter (no
/// `xn--` label to decode, none empty) or a dotted-quad IPv4 address in plain decimal, an optional port of one
/// to five digits, then a path, query or fragment of printable ASCII without `\`. The parser reads such an
/// address as written, with this host and port (the tests hold the two to each other); it takes thousands of
/// instructions for what this does in dozens (the host's IDNA processing), and a refresh asks for hosts and
/// links hundreds of thousands of times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlainWebAddress<'a> {
    /// `https`.
    pub secure: bool,
    pub host: &'a str,
    /// The port as written, if any (a default one too: `:80`).
    pub port: Option<u16>,
}

impl PlainWebAddress<'_> {
    /// The port requests go to: the one written, else the scheme's.
    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(if self.secure { 443 } else { 80 })
    }
}

/// `url` as a [`PlainWebAddress`], when it is one; `None` for every other address (which may still be valid:
/// ask the URL parser).
pub fn plain_web_address(url: &str) -> Option<PlainWebAddress<'_>> {
    let (secure, rest) = match url.strip_prefix("http://") {
        Some(rest) => (false, rest),
        None => (true, url.strip_prefix("https://")?),
    };
    let host_len = rest.bytes().position(|b| matches!(b, b'/' | b'?' | b'#' | b':')).unwrap_or(rest.len());
    let (host, after) = rest.split_at(host_len);
    if !(host_name(host.as_bytes()) || ipv4_address(host.as_bytes())) {
        return None;
    }
    let (port, after) = match after.strip_prefix(':') {
        Some(port) => {
            let digits = port.bytes().position(|b| matches!(b, b'/' | b'?' | b'#')).unwrap_or(port.len());
            let value = port.as_bytes()[..digits]
                .iter()
                .try_fold(0u32, |n, b| b.is_ascii_digit().then(|| n * 10 + u32::from(b - b'0')));
            let value = value.filter(|_| (1..=5).contains(&digits)).and_then(|v| u16::try_from(v).ok())?;
            (Some(value), &port[digits..])
        }
        None => (None, after),
    };
    after.bytes().all(|b| b.is_ascii_graphic() && b != b'\\').then_some(PlainWebAddress { secure, host, port })
}

/// Labels of lower-case letters, digits and `-`, none empty or `xn--`, the last starting with a letter. One pass
/// over the bytes: every link of every entry is asked this.
fn host_name(host: &[u8]) -> bool {
    let label = |l: &[u8]| !l.is_empty() && !l.starts_with(b"xn--");
    let mut start = 0;
    for (i, &b) in host.iter().enumerate() {
        if b == b'.' {
            if !label(&host[start..i]) {
                return false;
            }
            start = i + 1;
        } else if !(b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            return false;
        }
    }
    let last = &host[start..];
    label(last) && last[0].is_ascii_lowercase()
}

/// A dotted-quad IPv4 address in plain decimal (a leading zero would make it octal).
fn ipv4_address(host: &[u8]) -> bool {
    let mut count = 0;
    let each = host.split(|b| *b == b'.').all(|n| {
        count += 1;
        let value = n.iter().try_fold(0u32, |v, b| b.is_ascii_digit().then(|| v * 10 + u32::from(b - b'0')));
        (1..=3).contains(&n.len()) && (n == b"0" || n[0] != b'0') && value.is_some_and(|v| v <= 255)
    });
    each && count == 4
}

/// Resolves `href` against the first base it can use; an absolute `href` is returned as written (trimmed).
pub fn resolve(href: &str, bases: &[Option<&str>]) -> Option<String> {
    let href = href.trim();
    if href.is_empty() {
        return None;
    }
    if let Ok(absolute) = Url::parse(href) {
        return Some(absolute.to_string());
    }
    bases
        .iter()
        .flatten()
        .filter_map(|b| Url::parse(b).ok())
        .find_map(|base| base.join(href).ok())
        .map(|u| u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> String {
        canonical_url(s).unwrap()
    }

    #[test]
    fn plain_web_addresses_are_read_as_the_url_parser_reads_them() {
        let hosts =
            ["e.com", "a-b.example.org", "x", "example.c0m", "ex.123", "ex.0x1", "xn--e.com", "a..b", ".a", "a."];
        let hosts = hosts.iter().copied().chain(["E.com", "ex_ample.com", "1.2.3.4", "-a.b", "a-.b", "ab--cd.e"]);
        let hosts = hosts.chain(["127.0.1.1", "255.255.255.255", "256.1.1.1", "01.2.3.4", "09.1.1.1", "1.2.3"]);
        let hosts = hosts.chain(["1.2.3.4.5", "0x7f.1", "caf\u{e9}.fr", "a%41.b", "u@e.com", "e.com\t", ""]);
        let tails = ["", "/", "/p?q=1#f", ":8080/x", ":0", ":80", ":443/", ":65535", ":65536", ":", ":x/", "?a"];
        let tails = tails.into_iter().chain(["#b", "/a b", "/a\\b", "\\x", ":08080", ":123456", "/\u{e9}"]);
        let mut plain = 0;
        for scheme in ["http://", "https://", "HTTP://", "ftp://", "http:/", "http:\\\\", " http://"] {
            for host in hosts.clone() {
                for tail in tails.clone() {
                    let href = format!("{scheme}{host}{tail}");
                    let Some(read) = plain_web_address(&href) else { continue };
                    plain += 1;
                    let parsed = Url::parse(&href).unwrap_or_else(|e| panic!("{href}: {e}"));
                    assert_eq!(
                        (read.secure, Some(read.host), Some(read.port_or_default())),
                        (parsed.scheme() == "https", parsed.host_str(), parsed.port_or_known_default()),
                        "{href}"
                    );
                    assert!(parsed.has_authority(), "{href}");
                }
            }
        }
        assert!(plain > 100, "the common forms are plain: {plain}");
        let read = plain_web_address("https://a-b.example.org:8443/feed").unwrap();
        assert_eq!((read.secure, read.host, read.port), (true, "a-b.example.org", Some(8443)));
        let read = plain_web_address("http://127.0.1.1/feed/1.xml").unwrap();
        assert_eq!((read.secure, read.host, read.port, read.port_or_default()), (false, "127.0.1.1", None, 80));
        for other in ["/relative", "HTTP://E.com/", "http://xn--caf-dma.fr/", "http://u:p@e.com/", "http://1.2.3/"] {
            assert_eq!(plain_web_address(other), None, "{other}");
        }
    }

    #[test]
    fn scheme_host_and_default_port_are_normalized() {
        assert_eq!(c("HTTP://Example.COM:80/Path"), "http://example.com/Path");
        assert_eq!(c("https://example.com:443/a"), "https://example.com/a");
        assert_eq!(c("https://example.com:8443/a"), "https://example.com:8443/a");
    }

    #[test]
    fn trailing_slash_goes_except_at_the_root() {
        assert_eq!(c("http://example.com/blog/post/"), "http://example.com/blog/post");
        assert_eq!(c("http://example.com/"), "http://example.com/");
        assert_eq!(c("http://example.com"), "http://example.com/");
    }

    #[test]
    fn query_is_sorted_and_tracking_is_removed() {
        assert_eq!(c("http://e.com/p?b=2&utm_source=x&a=1&fbclid=y&ref=z"), "http://e.com/p?a=1&b=2");
        assert_eq!(c("http://e.com/p?utm_medium=rss"), "http://e.com/p");
        assert_eq!(c("http://e.com/p?gclid=1&mc_cid=2&mc_eid=3&source=rss&id=7"), "http://e.com/p?id=7");
    }

    #[test]
    fn needless_escapes_are_decoded_and_fragments_dropped() {
        assert_eq!(c("http://e.com/%7Euser/%61bc%2fd#comments"), "http://e.com/~user/abc%2Fd");
    }

    #[test]
    fn two_spellings_of_one_address_agree() {
        assert_eq!(c("https://Example.com/post/?utm_source=feed#x"), c("https://example.com:443/post"));
    }

    #[test]
    fn non_http_urls_have_no_canonical_form() {
        assert_eq!(canonical_url("mailto:a@b.c"), None);
        assert_eq!(canonical_url("/relative"), None);
    }

    #[test]
    fn relative_links_resolve_against_the_first_usable_base() {
        assert_eq!(
            resolve("post/1", &[None, Some("http://e.com/blog/"), Some("http://f.com/")]).unwrap(),
            "http://e.com/blog/post/1"
        );
        assert_eq!(resolve("/x", &[Some("not a url"), Some("http://f.com/feed.xml")]).unwrap(), "http://f.com/x");
        assert_eq!(resolve("https://g.com/y", &[]).unwrap(), "https://g.com/y");
        assert_eq!(resolve("x", &[]), None);
    }
}
