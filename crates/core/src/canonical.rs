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
