//! The import's report: what came over, then item by item what did not and why.

use super::Report;
use crate::sanitize::one_line;

impl Report {
    /// The report, a line each: what came over, then item by item what did not and why.
    pub fn lines(&self) -> Vec<String> {
        let o = &self.outcome;
        let mut out = Vec::new();
        if let Some(home) = &self.home {
            out.push(format!("From {}", home.urls.display()));
            match &home.cache {
                Some(c) => out.push(format!("     {}", c.display())),
                None => out.push("     (no cache.db: subscriptions only, no entries or read state)".into()),
            }
            if let Some(c) = &home.config {
                out.push(format!("     {}", c.display()));
            }
            if let Some(q) = &home.queue {
                out.push(format!("     {}", q.display()));
            }
        }
        out.push(format!(
            "feeds        {} added, {} already subscribed (left as they were), {} in the urls file",
            o.feeds_added.len(),
            o.feeds_present.len(),
            self.feeds_in_urls
        ));
        out.push(format!(
            "             {} hidden (!), {} kept (feedtag = \"…\" in queries; the feed info shows and edits them)",
            o.hidden,
            if o.tags == 1 { "1 tag".to_string() } else { format!("{} tags", o.tags) }
        ));
        out.push(format!(
            "entries      {} added ({} read, {} starred from flags), {} already stored, {} deleted in newsboat kept out",
            o.entries_added, o.read, o.starred, o.entries_present, o.gone
        ));
        if self.killed > 0 {
            out.push(format!(
                "             {} hidden by the kill rules (ignore-article), as in newsboat",
                entries(self.killed)
            ));
        }
        if let Some(line) = not_utf8(self.titles_not_utf8, self.texts_not_utf8) {
            out.push(format!("             {line}"));
        }
        if let Some(q) = &self.queue {
            out.push(format!(
                "downloads    {} of {} lines of podboat's queue added, {} already queued (`tidings downloads` lists them)",
                q.imported, q.lines, q.already
            ));
        }
        let mut not = Vec::new();
        not.extend(self.cache_cut.iter().cloned());
        if self.items_unsubscribed > 0 {
            not.push(format!(
                "{} of feeds the urls file no longer lists: not carried over",
                cached(self.items_unsubscribed)
            ));
        }
        if o.entries_orphaned > 0 {
            not.push(format!(
                "{} whose feed is an account's here: the account's sync brings them",
                entries(o.entries_orphaned)
            ));
        }
        for (letter, n) in &self.other_flags {
            not.push(format!(
                "flag {letter} on {}: tidings has one flag, the star (flagged entries are starred)",
                entries(*n)
            ));
        }
        if self.enqueued > 0 && self.queue.is_none() {
            not.push(format!(
                "{} in newsboat's podcast queue, but no podboat queue file was found beside the cache",
                entries(self.enqueued)
            ));
        }
        for (line, script, url) in &self.filtered {
            not.push(format!(
                "urls line {line}: the filter script {}: not run (tidings runs no scripts on feeds); the feed is \
                 subscribed at {} unfiltered, with its cached entries",
                one_line(script, 200),
                one_line(url, 500)
            ));
        }
        for (line, why) in self.queue.iter().flat_map(|q| &q.skipped) {
            not.push(format!("queue line {line}: {}", one_line(why, 200)));
        }
        for s in &self.skipped_urls {
            not.push(skipped_line("urls", s.line, &s.text, &s.why));
        }
        // Those with a query went into the config file (see `write_rules`), or are among `rules_refused`.
        for (name, expression, query) in &self.views {
            if let Err(why) = query {
                not.push(format!("query feed \"{name}\" ({}): no equivalent: {why}", one_line(expression, 200)));
            }
        }
        for rule in &self.migrated.ignore {
            let feed = rule.target.as_deref().map(|t| format!(" for {t}")).unwrap_or_default();
            if let Err(why) = &rule.query {
                not.push(format!("config line {}: ignore-article{feed}: no equivalent: {why}", rule.line));
            }
        }
        not.extend(self.rules_refused.iter().cloned());
        // Those with a query became saved views, like the query feeds (see `write_rules`).
        for rule in &self.migrated.filters {
            if let Err(why) = &rule.query {
                let name = one_line(rule.target.as_deref().unwrap_or_default(), 80);
                not.push(format!("config line {}: define-filter \"{name}\": no equivalent: {why}", rule.line));
            }
        }
        not.extend(self.key_notes.iter().cloned());
        for (line, text, why) in &self.migrated.skipped {
            not.push(skipped_line("config", *line, text, why));
        }
        if let Some(file) = &self.config_file {
            if !self.config_written.is_empty() {
                out.push(format!(
                    "settings     {} written to {}: {}",
                    self.config_written.len(),
                    file.display(),
                    self.config_written.join(", ")
                ));
                out.extend(self.key_told.iter().map(|told| format!("keys         {told}")));
            }
            if !self.views_written.is_empty() || self.rules_written > 0 {
                let names: Vec<String> =
                    self.views_written.iter().map(|n| format!("\"{}\"", one_line(n, 80))).collect();
                out.push(format!(
                    "views, rules {} saved views{}{} and {} kill rules (ignore-article) written to {}",
                    self.views_written.len(),
                    if names.is_empty() { "" } else { " " },
                    names.join(", "),
                    self.rules_written,
                    file.display()
                ));
            }
            if self.rules_present > 0 {
                out.push(format!(
                    "             {} views and kill rules {} already had, left as they were",
                    self.rules_present,
                    file.display()
                ));
            }
            for key in &self.config_kept {
                not.push(format!("setting {key}: {} already sets it; left as it is", file.display()));
            }
        }
        if let Some(e) = &self.config_error {
            not.push(e.clone());
        }
        if self.home.as_ref().is_some_and(|h| h.config.is_some()) && !self.q_is_back {
            out.push(
                "habits       newsboat's q (back one level, quit at the feed list) is tidings's `back`: put \
                 back = [\"q\"] and quit = [\"Q\", \"Ctrl-c\"] under [keys] (confirm_quit = true asks first)"
                    .into(),
            );
        }
        if !not.is_empty() {
            out.push(format!("not carried over ({}):", not.len()));
            out.extend(not.into_iter().map(|n| format!("  - {n}")));
        } else {
            out.push("everything came over".into());
        }
        out
    }
}

/// A line of a newsboat file left out, with why (and its text, when it has one).
fn skipped_line(file: &str, line: usize, text: &str, why: &str) -> String {
    match one_line(text, 200) {
        text if text.is_empty() => format!("{file} line {line}: {why}"),
        text => format!("{file} line {line}: {text}: {why}"),
    }
}

/// "2 titles and 1 other text were not UTF-8 …", or nothing when every text was.
fn not_utf8(titles: usize, texts: usize) -> Option<String> {
    let counted = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let what = match (titles, texts) {
        (0, 0) => return None,
        (titles, 0) => counted(titles, "title", "titles"),
        (0, texts) => counted(texts, "text", "texts"),
        (titles, texts) => {
            format!("{} and {}", counted(titles, "title", "titles"), counted(texts, "other text", "other texts"))
        }
    };
    let were = if titles + texts == 1 { "was" } else { "were" };
    Some(format!("{what} of the cache {were} not UTF-8 and {were} read with replacement characters (\u{fffd})"))
}

/// "1 entry", "2 entries".
fn entries(n: usize) -> String {
    if n == 1 { "1 entry".into() } else { format!("{n} entries") }
}

/// "1 cached entry", "2 cached entries".
fn cached(n: usize) -> String {
    if n == 1 { "1 cached entry".into() } else { format!("{n} cached entries") }
}
