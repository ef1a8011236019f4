//! What one sync of one account did, for the front ends and for people.

/// What one sync of one account did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Report {
    pub account: String,
    /// Changes made here that the server took.
    pub sent: usize,
    /// Entries saved for later on the server (part of `sent`).
    pub saved: usize,
    /// Subscription changes the server refused (a feed it cannot subscribe to): taken off the log.
    pub refused: usize,
    /// What each refused change was and why, and what became of it here (a subscription stays a local feed).
    pub refusals: Vec<String>,
    /// Local feeds the server also lists, now the account's: one copy each (their names).
    pub taken_over: Vec<String>,
    /// Feeds subscribed to here that the server took (their names).
    pub subscribed: Vec<String>,
    /// Feeds renamed ("old → new") and moved ("name to label") on the server.
    pub renamed: Vec<String>,
    pub moved: Vec<String>,
    /// Entries new here.
    pub new: usize,
    pub subscriptions_added: usize,
    pub subscriptions_changed: usize,
    pub subscriptions_removed: usize,
    /// Entries whose read or starred state changed here because it changed on the server.
    pub read_changed: usize,
    pub starred_changed: usize,
    /// Starred entries the server no longer has: kept starred here.
    pub kept_starred: usize,
    /// Items the server sent of feeds it does not list: left out.
    pub orphans: usize,
    /// The sync stopped at its cap of items or pages ([`Limits`]): the rest comes with the next.
    pub more: bool,
    /// The unread or starred set is longer than a sync reads: only its flags within what was read were set.
    pub sets_cut: bool,
    /// Entries of the account stored here after the sync.
    pub entries: i64,
    pub requests: usize,
}

impl Report {
    /// Whether the sync brought or changed anything here (a reader reads its lists again).
    pub fn changed_anything(&self) -> bool {
        self.new
            + self.read_changed
            + self.starred_changed
            + self.sent
            + self.subscriptions_added
            + self.subscriptions_changed
            + self.subscriptions_removed
            + self.refused
            + self.taken_over.len()
            > 0
    }

    /// One line for people: "FreshRSS: 120 new, 14 changes sent".
    pub fn line(&self) -> String {
        let plural = |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut parts = vec![format!("{} new", self.new)];
        // The first few names, then how many more.
        let names = |list: &[String]| {
            let mut shown: Vec<String> = list.iter().take(5).map(|n| crate::sanitize::one_line(n, 170)).collect();
            if list.len() > 5 {
                shown.push(format!("and {} more", list.len() - 5));
            }
            shown.join(", ")
        };
        if !self.subscribed.is_empty() {
            parts.push(format!("{} subscribed on {}", names(&self.subscribed), self.account));
        }
        if !self.renamed.is_empty() {
            parts.push(format!("renamed on the server: {}", names(&self.renamed)));
        }
        if !self.moved.is_empty() {
            parts.push(format!("moved on the server: {}", names(&self.moved)));
        }
        if self.sent > 0 {
            parts.push(format!("{} sent", plural(self.sent, "change", "changes")));
        }
        if self.saved > 0 {
            parts.push(format!("{} saved for later on the server", plural(self.saved, "entry", "entries")));
        }
        if self.refused > 0 {
            parts.push(format!("{} refused by the server", plural(self.refused, "change", "changes")));
        }
        if !self.taken_over.is_empty() {
            let names: Vec<String> = self.taken_over.iter().map(|n| crate::sanitize::one_line(n, 80)).collect();
            parts.push(format!(
                "{} the server also has now synced with it, one copy each: {}",
                plural(names.len(), "local feed", "local feeds"),
                names.join(", ")
            ));
        }
        let changed = self.read_changed + self.starred_changed;
        if changed > 0 {
            parts.push(format!("{changed} marked on the server"));
        }
        match (self.subscriptions_added, self.subscriptions_removed) {
            (0, 0) => {}
            (added, 0) => parts.push(format!("{} added", plural(added, "feed", "feeds"))),
            (0, removed) => parts.push(format!("{} removed", plural(removed, "feed", "feeds"))),
            (added, removed) => parts.push(format!("{} added, {removed} removed", plural(added, "feed", "feeds"))),
        }
        if self.kept_starred > 0 {
            let starred = plural(self.kept_starred, "starred entry", "starred entries");
            parts.push(format!("{starred} the server no longer has kept here"));
        }
        if self.orphans > 0 {
            parts.push(format!("{} of feeds the server does not list left out", plural(self.orphans, "item", "items")));
        }
        if self.more {
            parts.push("more than one sync takes: the rest comes with the next".into());
        }
        if self.sets_cut {
            parts.push("its unread or starred list is longer than a sync reads: only marks within it applied".into());
        }
        let mut line = format!("{}: {}", self.account, parts.join(", "));
        for refusal in &self.refusals {
            line.push_str(&format!("; {refusal}"));
        }
        line
    }
}

#[cfg(test)]
mod tests {
    use super::Report;

    #[test]
    fn the_line_counts_feeds_in_words_that_fit_the_number() {
        let line = |added, removed| {
            let report = Report {
                account: "A".into(),
                subscriptions_added: added,
                subscriptions_removed: removed,
                ..Report::default()
            };
            report.line()
        };
        assert_eq!(line(1, 0), "A: 0 new, 1 feed added");
        assert_eq!(line(0, 3), "A: 0 new, 3 feeds removed");
        assert_eq!(line(2, 1), "A: 0 new, 2 feeds added, 1 removed");
        assert_eq!(line(0, 0), "A: 0 new");
    }
}
