//! newsboat's `urls` file: one subscription a line, `URL "tag" "tag" "~Name" "!"`, or a query feed
//! `"query:Name:expression" "tag"`. Tags become folders (the first one; `News/Tech` nests, as newsboat's own
//! OPML import writes nested folders) and the others are kept as the feed's tags; `~Name` is the feed's name;
//! `!` hides it from the feed list. A feed given on several lines (the same address, or two spellings of it that
//! [`canonical_url`] makes one) is one subscription, found in a hash map whatever the file's length.

use super::tokenize;
use crate::canonical::canonical_url;
use std::collections::{HashMap, HashSet};

/// What a `urls` file holds, sorted out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlsFile {
    /// Subscriptions, in file order; a URL given twice (in either spelling) is one subscription with the tags
    /// of both lines, under the spelling of the first, as in newsboat.
    pub feeds: Vec<Subscription>,
    pub queries: Vec<QueryFeed>,
    /// Lines tidings cannot carry over, with why.
    pub skipped: Vec<Skipped>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subscription {
    pub url: String,
    /// The line (from 1) it was first given on.
    pub line: usize,
    /// Every tag, in order, without the `~Name` and `!` ones.
    pub tags: Vec<String>,
    /// `~Name`: the name the user gave it.
    pub name: Option<String>,
    /// `!`: hidden from the feed list.
    pub hidden: bool,
    /// `filter:SCRIPT:URL`: the script newsboat ran the feed through (tidings subscribes to the URL unfiltered).
    pub filter: Option<String>,
}

impl Subscription {
    /// The folder it goes into: its first tag, a `/` nesting folders (`News/Tech`); the top level without tags.
    pub fn folder(&self) -> Vec<String> {
        self.tags.first().map(|t| folder_path(t)).unwrap_or_default()
    }

    /// The tags besides the one that became its folder.
    pub fn other_tags(&self) -> &[String] {
        self.tags.get(1..).unwrap_or_default()
    }
}

/// A tag as a folder path: its names between slashes, blanks trimmed, empty ones dropped.
pub fn folder_path(tag: &str) -> Vec<String> {
    tag.split('/').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect()
}

/// `"query:Name:expression"`: a feed made of the entries of every feed that match a filter.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryFeed {
    pub name: String,
    pub expression: String,
    pub line: usize,
    pub tags: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    pub line: usize,
    pub text: String,
    pub why: String,
}

/// What makes two addresses one subscription: the canonical form of the URL (see [`canonical_url`]), else the
/// URL as written.
pub fn feed_key(url: &str) -> String {
    canonical_url(url).unwrap_or_else(|| url.to_string())
}

/// `filter:SCRIPT:URL` as (script, URL): the URL starts at the last `:http://` or `:https://`.
pub fn filtered(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("filter:")?;
    let at = rest.rfind(":http://").or_else(|| rest.rfind(":https://"))?;
    Some((&rest[..at], &rest[at + 1..]))
}

/// The address a cached item's feed is subscribed under: a `filter:` feed's own URL.
pub fn cached_feed_url(url: &str) -> &str {
    filtered(url).map_or(url, |(_, url)| url)
}

/// Reads a `urls` file's text.
pub fn parse(text: &str) -> UrlsFile {
    let mut out = UrlsFile::default();
    // Each subscription's place in `out.feeds` by its key, and the tags it has: a line costs a lookup, not a walk
    // through the lines before it (100,000 lines took minutes).
    let mut known: HashMap<String, usize> = HashMap::new();
    let mut tags_of: Vec<HashSet<String>> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let mut tokens = tokenize(raw).into_iter();
        let Some(url) = tokens.next() else { continue };
        let tokens: Vec<String> = tokens.collect();
        if let Some(rest) = url.strip_prefix("query:") {
            match rest.split_once(':') {
                Some((name, expression)) if !name.trim().is_empty() => out.queries.push(QueryFeed {
                    name: name.trim().to_string(),
                    expression: expression.to_string(),
                    line,
                    tags: tokens,
                }),
                _ => out.skipped.push(Skipped {
                    line,
                    text: url.clone(),
                    why: "a query feed is written \"query:Name:expression\"".into(),
                }),
            }
            continue;
        }
        let (url, filter) = match filtered(&url) {
            Some((script, address)) => (address.to_string(), Some(script.to_string())),
            None => (url, None),
        };
        let why = if url.starts_with("exec:") {
            Some(
                "its entries come from running a command (exec:), which tidings does not do: it fetches feeds over \
                 http(s) only; subscribe to the feed the command reads, if it has one",
            )
        } else if url.starts_with("filter:") {
            Some("a filter: feed is written filter:SCRIPT:URL with an http(s) URL")
        } else if !(url.starts_with("http://") || url.starts_with("https://")) {
            Some("not an http(s) address")
        } else {
            None
        };
        if let Some(why) = why {
            out.skipped.push(Skipped { line, text: url, why: why.into() });
            continue;
        }
        let mut tags = Vec::new();
        let mut name = None;
        let mut hidden = false;
        for token in tokens {
            if token == "!" {
                hidden = true;
            } else if let Some(n) = token.strip_prefix('~') {
                if !n.trim().is_empty() {
                    name = Some(n.trim().to_string());
                }
            } else if !token.trim().is_empty() {
                tags.push(token);
            }
        }
        let key = feed_key(&url);
        match known.get(&key).copied() {
            Some(at) => {
                let earlier = &mut out.feeds[at];
                for tag in tags {
                    if tags_of[at].insert(tag.clone()) {
                        earlier.tags.push(tag);
                    }
                }
                earlier.name = earlier.name.take().or(name);
                earlier.hidden |= hidden;
                earlier.filter = earlier.filter.take().or(filter);
            }
            None => {
                known.insert(key, out.feeds.len());
                tags_of.push(tags.iter().cloned().collect());
                out.feeds.push(Subscription { url, line, tags, name, hidden, filter });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_names_hidden_feeds_and_queries_are_sorted_out() {
        let file = parse(
            "# my feeds\n\
             http://a.example/rss \"News/Tech\" \"rust\" \"~Alpha\"\n\
             \n\
             https://b.example/atom Tech \"!\"\n\
             \"query:Unread news:unread = \\\"yes\\\" and tags # \\\"News\\\"\" \"views\"\n\
             exec:~/bin/feed.sh\n\
             filter:~/f.sh:http://c.example/rss\n\
             http://a.example/rss \"later\" \"rust\"\n",
        );
        assert_eq!(file.feeds.len(), 3);
        let c = &file.feeds[2];
        assert_eq!((c.url.as_str(), c.filter.as_deref(), c.line), ("http://c.example/rss", Some("~/f.sh"), 7));
        assert_eq!(cached_feed_url("filter:~/f.sh:http://c.example/rss"), "http://c.example/rss");
        let a = &file.feeds[0];
        assert_eq!(a.folder(), ["News", "Tech"]);
        assert_eq!(a.other_tags(), ["rust", "later"], "a URL given twice gets the tags of both lines");
        assert_eq!((a.name.as_deref(), a.hidden, a.line), (Some("Alpha"), false, 2));
        let b = &file.feeds[1];
        assert_eq!((b.folder(), b.hidden, b.name.clone()), (vec!["Tech".to_string()], true, None));
        assert_eq!(file.queries.len(), 1);
        assert_eq!(file.queries[0].name, "Unread news");
        assert_eq!(file.queries[0].expression, "unread = \"yes\" and tags # \"News\"");
        assert_eq!(file.queries[0].tags, ["views"]);
        assert_eq!(file.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [6]);
        assert!(file.skipped[0].why.contains("command"), "{:?}", file.skipped[0]);
    }

    #[test]
    fn two_spellings_of_one_address_are_one_subscription_under_the_first() {
        let file = parse("http://A.example:80/rss/?utm_source=x \"a\"\nhttp://a.example/rss \"b\" \"a\" \"!\"\n");
        assert_eq!(file.feeds.len(), 1);
        assert_eq!(file.feeds[0].url, "http://A.example:80/rss/?utm_source=x");
        assert_eq!((file.feeds[0].tags.clone(), file.feeds[0].hidden), (vec!["a".to_string(), "b".to_string()], true));
        assert_eq!(feed_key("not a url"), "not a url");
    }

    /// `lines` lines: half of them feeds of their own, half one feed tagged again and again.
    fn lines(n: usize) -> String {
        let mut text = String::new();
        for i in 0..n / 2 {
            text.push_str(&format!("http://feed{i}.example/rss \"tag{}\"\n", i % 50));
        }
        for i in 0..n / 2 {
            text.push_str(&format!("http://one.example/rss \"tag{i}\"\n"));
        }
        text
    }

    /// The processor time this thread has had, in clock ticks (Linux), or else the wall-clock time in
    /// hundredths of a second: a ratio of two readings is what counts, not the time itself.
    fn processor_time() -> u64 {
        let ticks = std::fs::read_to_string("/proc/thread-self/stat").ok().and_then(|stat| {
            // After the command's name in parentheses: state is field 3, utime 14, stime 15.
            let fields: Vec<&str> = stat[stat.rfind(')')? + 2..].split(' ').collect();
            Some(fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?)
        });
        ticks.unwrap_or_else(|| {
            use std::sync::OnceLock;
            static START: OnceLock<std::time::Instant> = OnceLock::new();
            (START.get_or_init(std::time::Instant::now).elapsed().as_millis() / 10) as u64
        })
    }

    /// Each line was compared with every subscription before it, and each tag with every tag of its feed: a
    /// debug build took 168 s over 100,000 lines. Ten times the lines must take about ten times the work, not a
    /// hundred: measured in this thread's processor time, so a busy machine does not change the ratio much.
    #[test]
    fn a_hundred_thousand_lines_are_read_in_linear_time() {
        let (small, large) = (lines(10_000), lines(100_000));
        let before = processor_time();
        let file = parse(&small);
        let middle = processor_time();
        assert_eq!(file.feeds.len(), 5_001);
        let file = parse(&large);
        let after = processor_time();
        assert_eq!(file.feeds.len(), 50_001);
        assert_eq!(file.feeds[50_000].tags.len(), 50_000);
        let (ten_thousand, hundred_thousand) = ((middle - before).max(1), after - middle);
        assert!(
            hundred_thousand < 30 * ten_thousand,
            "10,000 lines took {ten_thousand} ticks and 100,000 took {hundred_thousand}: more than linear"
        );
    }

    #[test]
    fn a_feed_without_tags_goes_to_the_top_level() {
        let file = parse("http://x.example/feed\n");
        assert!(file.feeds[0].folder().is_empty());
        assert_eq!(folder_path(" a / /b "), ["a", "b"]);
    }
}
