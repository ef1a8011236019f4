//! newsboat's `urls` file: one subscription a line, `URL "tag" "tag" "~Name" "!"`, or a query feed
//! `"query:Name:expression" "tag"`. Tags become folders (the first one; `News/Tech` nests, as newsboat's own
//! OPML import writes nested folders) and the others are kept as the feed's tags; `~Name` is the feed's name;
//! `!` hides it from the feed list.

use super::tokenize;

/// What a `urls` file holds, sorted out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UrlsFile {
    /// Subscriptions, in file order; a URL given twice is one subscription with the tags of both lines, as in
    /// newsboat.
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

/// Reads a `urls` file's text.
pub fn parse(text: &str) -> UrlsFile {
    let mut out = UrlsFile::default();
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
        let why = if url.starts_with("exec:") {
            Some("its entries come from running a command; tidings fetches feeds only over http(s)")
        } else if url.starts_with("filter:") {
            Some(
                "its feed goes through a filter script; tidings runs no scripts on feeds (subscribe to the URL after the script's name to read it unfiltered)",
            )
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
        match out.feeds.iter_mut().find(|f| f.url == url) {
            Some(earlier) => {
                for tag in tags {
                    if !earlier.tags.contains(&tag) {
                        earlier.tags.push(tag);
                    }
                }
                earlier.name = earlier.name.take().or(name);
                earlier.hidden |= hidden;
            }
            None => out.feeds.push(Subscription { url, line, tags, name, hidden }),
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
        assert_eq!(file.feeds.len(), 2);
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
        assert_eq!(file.skipped.iter().map(|s| s.line).collect::<Vec<_>>(), [6, 7]);
        assert!(file.skipped[0].why.contains("command"), "{:?}", file.skipped[0]);
    }

    #[test]
    fn a_feed_without_tags_goes_to_the_top_level() {
        let file = parse("http://x.example/feed\n");
        assert!(file.feeds[0].folder().is_empty());
        assert_eq!(folder_path(" a / /b "), ["a", "b"]);
    }
}
