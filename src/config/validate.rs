//! The config's values checked when it is read: ranges, command lines, accounts, the queries of views and kill
//! rules. An error names the key (and, through [`super::lines`], its line in the file) and what a good value
//! looks like.

use super::Config;
use super::lines::{check_query, place};
use crate::command::CommandLine;
use crate::model::Sort;

impl Config {
    /// Checks every value's range; an error is the key (its parts, as `line_of_parts` finds them) and what a
    /// good value looks like.
    pub(super) fn validate(&self) -> Result<(), (Vec<String>, String)> {
        let check = |ok: bool, key: &str, want: &str| {
            if ok { Ok(()) } else { Err((vec![key.to_string()], want.to_string())) }
        };
        check((1..=4096).contains(&self.concurrency), "concurrency", "must be between 1 and 4096")?;
        check((1..=256).contains(&self.per_host_concurrency), "per_host_concurrency", "must be between 1 and 256")?;
        check(
            self.refresh_interval_minutes <= 7 * 24 * 60,
            "refresh_interval_minutes",
            "must be at most a week (10080)",
        )?;
        check((1..=600).contains(&self.connect_timeout_secs), "connect_timeout_secs", "must be between 1 and 600")?;
        check((1..=3600).contains(&self.timeout_secs), "timeout_secs", "must be between 1 and 3600")?;
        check((1..=1024).contains(&self.max_feed_size_mb), "max_feed_size_mb", "must be between 1 and 1024")?;
        check((20..=1000).contains(&self.text_width), "text_width", "must be between 20 and 1000 columns")?;
        check(
            self.image_cache_mb <= 100_000,
            "image_cache_mb",
            "must be at most 100000 (0 keeps no pictures on disk)",
        )?;
        check((1..=3650).contains(&self.dead_after_days), "dead_after_days", "must be between 1 and 3650 days")?;
        check((1..=36_500).contains(&self.quiet_after_days), "quiet_after_days", "must be between 1 and 36500 days")?;
        check((1..=64).contains(&self.max_downloads), "max_downloads", "must be between 1 and 64")?;
        crate::filename::check_template(&self.download_name).map_err(|e| (vec!["download_name".to_string()], e))?;
        let retention_keys = std::iter::once((Vec::new(), Some(self.keep_days), Some(self.max_entries_per_feed)))
            .chain(
                self.feeds
                    .iter()
                    .map(|(url, f)| (vec!["feeds".to_string(), url.clone()], f.keep_days, f.max_entries_per_feed)),
            );
        for (table, keep_days, max_entries) in retention_keys {
            let key = |name: &str| table.iter().cloned().chain([name.to_string()]).collect::<Vec<_>>();
            if keep_days.is_some_and(|d| d > 36_500) {
                return Err((key("keep_days"), "must be at most 36500 days (0 keeps entries for ever)".into()));
            }
            if max_entries.is_some_and(|m| m > 10_000_000) {
                return Err((key("max_entries_per_feed"), "must be at most 10000000 (0 is no limit)".into()));
            }
        }
        check(
            matches!(self.notify.as_str(), "off" | "desktop"),
            "notify",
            "must be \"off\" or \"desktop\" (a desktop notification through notify-send)",
        )?;
        let sort_names = "must be \"newest\", \"oldest\", \"feed\" or \"title\"";
        check(Sort::from_name(&self.sort).is_some(), "sort", sort_names)?;
        for (url, feed) in &self.feeds {
            if feed.sort.as_deref().is_some_and(|s| Sort::from_name(s).is_none()) {
                return Err((vec!["feeds".into(), url.clone(), "sort".into()], sort_names.into()));
            }
        }
        for view in &self.views {
            if view.sort.as_deref().is_some_and(|s| Sort::from_name(s).is_none()) {
                return Err((vec!["views".into(), "sort".into()], format!("{sort_names} (view \"{}\")", view.name)));
            }
        }
        if let Some(line) = &self.notify_command {
            CommandLine::parse(line, None).map_err(|e| {
                (vec!["notify_command".to_string()], format!("{e} (write it like \"notify-me %n %f\")"))
            })?;
        }
        for (url, feed) in &self.feeds {
            let key = |name: &str| vec!["feeds".to_string(), url.clone(), name.to_string()];
            if let Some(line) = &feed.browser {
                CommandLine::parse(line, None)
                    .map_err(|e| (key("browser"), format!("{e} (write it like \"w3m %u\")")))?;
            }
            if let Some(template) = &feed.download_name {
                crate::filename::check_template(template).map_err(|e| (key("download_name"), e))?;
            }
            if let Some(line) = &feed.download_command {
                CommandLine::parse(line, Some(false)).map_err(|e| {
                    (key("download_command"), format!("{e} (write it like \"yt-dlp -o {{path}} {{url}}\")"))
                })?;
            }
            if feed.refresh_minutes.is_some_and(|m| !(1..=7 * 24 * 60).contains(&m)) {
                return Err((key("refresh_minutes"), "must be between 1 and 10080 (a week)".into()));
            }
        }
        for (key, line) in [
            ("browser", &self.browser),
            ("player", &self.player),
            ("bookmark_command", &self.bookmark_command),
            ("copy_command", &self.copy_command),
            ("save_command", &self.save_command),
        ] {
            if let Some(line) = line {
                CommandLine::parse(line, None)
                    .map_err(|e| (vec![key.to_string()], format!("{e} (write it like \"w3m %u\")")))?;
            }
        }
        crate::markdown::check_template(&self.export_path).map_err(|e| (vec!["export_path".to_string()], e))?;
        for (url, label) in &self.encoding {
            use crate::decode::labels::{Label, resolve};
            let key = vec!["encoding".to_string(), url.clone()];
            match resolve(label) {
                Label::Unknown => return Err((key, format!("'{label}' is not an encoding tidings knows"))),
                Label::Unsupported(name) => return Err((key, format!("{name} cannot be decoded by tidings"))),
                _ => {}
            }
        }
        Ok(())
    }

    /// Checks `[[accounts]]`: a name each (unique), a protocol tidings speaks, an http(s) address, a user, and
    /// exactly one place for the password. Errors name the account's line.
    pub(super) fn validate_accounts(&self, text: &str) -> Result<(), String> {
        let lines: Vec<usize> =
            text.lines().enumerate().filter(|(_, l)| l.trim() == "[[accounts]]").map(|(i, _)| i + 1).collect();
        let mut names = std::collections::HashSet::new();
        for (i, account) in self.accounts.iter().enumerate() {
            let at = match lines.get(i) {
                Some(line) => format!("line {line}, [[accounts]] {}", account.name),
                None => format!("[[accounts]] {}", account.name),
            };
            let fail = |message: String| Err(format!("{at}: {message}"));
            if account.name.trim().is_empty() || account.name.contains('/') {
                return fail("`name` must be a name (no '/'): the folder its feeds go in".into());
            }
            if !names.insert(account.name.to_lowercase()) {
                return fail("another account has this `name`; give each its own".into());
            }
            if !crate::sync::ACCOUNT_KINDS.contains(&account.kind.as_str()) {
                return fail(format!(
                    "`kind` '{}' is not a protocol tidings speaks; write \"greader\" (the Google Reader API: FreshRSS, \
                     Miniflux, Inoreader, The Old Reader, BazQux), \"fever\" or \"miniflux\" (its own API)",
                    account.kind
                ));
            }
            if !(account.url.starts_with("http://") || account.url.starts_with("https://")) {
                return fail(
                    "`url` must be the API's http(s) address (FreshRSS: https://your.server/api/greader.php)".into(),
                );
            }
            if account.user.trim().is_empty() {
                return fail("`user` is empty".into());
            }
            let sources =
                [account.password.is_some(), account.password_command.is_some(), account.password_file.is_some()];
            match sources.iter().filter(|s| **s).count() {
                1 => {}
                0 => return fail("give `password`, `password_command` or `password_file`".into()),
                _ => return fail("give only one of `password`, `password_command` and `password_file`".into()),
            }
        }
        Ok(())
    }

    /// Checks the queries of `[[views]]` and `[[ignore]]`: each parses, and a view has a name of its own. An
    /// error names the line and the column in the file, and the column in the query.
    pub(super) fn validate_rules(&self, text: &str) -> Result<(), String> {
        let mut names = std::collections::HashSet::new();
        for view in &self.views {
            let what = format!("[[views]] \"{}\"", crate::sanitize::one_line(&view.name, 80));
            if view.name.trim().is_empty() {
                return Err(format!(
                    "{}: [[views]]: `name` is empty; give the view a name",
                    place(text, view.query.span().start)
                ));
            }
            if !names.insert(view.name.to_lowercase()) {
                return Err(format!("{}: {what}: another view has this name", place(text, view.query.span().start)));
            }
            check_query(text, &view.query, &what)?;
        }
        for rule in &self.ignore {
            check_query(text, &rule.query, "[[ignore]]")?;
            if rule.feed.is_some() && rule.folder.is_some() {
                return Err(format!(
                    "{}: [[ignore]]: give `feed` or `folder`, not both",
                    place(text, rule.query.span().start)
                ));
            }
        }
        Ok(())
    }
}
