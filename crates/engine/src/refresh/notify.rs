//! Notifications that name what arrived: after a refresh or a sync brings entries of feeds that notify
//! (`[feeds."URL"] notify = true`, or `notify_every_feed`), `notify_command` runs — never through a shell of
//! ours — with the entries as JSON on its standard input and `%n` (how many), `%f` (the feed, or "N feeds") and
//! `%t` (the first title) in its arguments, as data even inside a `sh -c` script of the user's (see
//! [`crate::command`]); `notify = "desktop"` also shows a desktop notification through `notify-send` where it is
//! installed. Entries kill rules caught are never told. Feed text is hostile: every value put in an argument is one
//! line without control characters. Each command is bounded ([`crate::process`]): ten seconds, then it is stopped
//! and the failure said.

use crate::command::CommandLine;
use crate::process::Limits;
use crate::sanitize::one_line;
use crate::store::{DbThread, StoreError};
use std::process::Command;
use std::time::Duration;

/// Most entries one notification tells (the newest).
const MAX_TOLD: i64 = 500;
/// How long a notification command may run before it is stopped, and what of its output is kept (its first line of
/// errors is said).
const LIMITS: Limits = Limits { deadline: Duration::from_secs(10), output: 4096 };

/// An entry that arrived, as a notification tells it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Arrival {
    pub title: Option<String>,
    pub link: Option<String>,
    pub author: Option<String>,
    pub feed: String,
    pub feed_url: String,
    /// RFC 3339.
    pub published: Option<String>,
}

/// How arrivals are told.
#[derive(Clone, Debug, Default)]
pub struct Notifier {
    pub command: Option<CommandLine>,
    /// A desktop notification through notify-send.
    pub desktop: bool,
}

impl Notifier {
    /// A notifier for `notify_command` (a command line, run without a shell) and `notify` (`"desktop"` shows a
    /// desktop notification too); `None` when nothing is to be told.
    pub fn new(notify_command: Option<&str>, notify: &str) -> Option<Notifier> {
        let command = notify_command.and_then(|l| CommandLine::parse(l, Some(false)).ok());
        let desktop = notify == "desktop";
        (command.is_some() || desktop).then_some(Notifier { command, desktop })
    }

    /// Tells the unread entries of notifying feeds stored after entry `after` and up to entry `upto` (see
    /// [`newest_entry`]), and waits (ten seconds at most) for the commands; how many were told, or what went wrong
    /// telling them.
    pub async fn tell_between(&self, writer: &DbThread, after: i64, upto: i64) -> Result<usize, NotifyError> {
        let arrivals = writer.call(move |c| arrivals_between(c, after, upto)).await?;
        if arrivals.is_empty() {
            return Ok(0);
        }
        let this = self.clone();
        let told = arrivals.len();
        tokio::task::spawn_blocking(move || this.tell(&arrivals))
            .await
            .map_err(|e| NotifyError::Command(crate::panics::join_message(e)))??;
        Ok(told)
    }

    /// Runs the command and the desktop notification for `arrivals`; the first that failed says why.
    pub fn tell(&self, arrivals: &[Arrival]) -> Result<(), NotifyError> {
        let (count, feed, title) = summary(arrivals);
        let mut failed = None;
        if let Some(line) = &self.command {
            let argv = line.argv(&[("%n", &count), ("%f", &feed), ("%t", &title)], &[]);
            let json = serde_json::to_vec(arrivals).unwrap_or_default();
            let mut command = Command::new(&argv[0]);
            command.args(&argv[1..]);
            if let Err(e) = crate::process::run_to_success(command, json, LIMITS) {
                tracing::warn!("notify_command: {e}");
                failed = Some(NotifyError::Command(format!("`notify_command` {e}")));
            }
        }
        if self.desktop
            && let Some(notify_send) = on_path("notify-send")
        {
            let summary =
                if count == "1" { format!("{feed}: new entry") } else { format!("{count} new entries ({feed})") };
            let body: Vec<String> =
                arrivals.iter().take(5).map(|a| one_line(a.title.as_deref().unwrap_or("(untitled)"), 120)).collect();
            let mut command = Command::new(notify_send);
            // `--` first: a title such as `-w` or `--app-name=Bank` is the text shown, never an option.
            command.args(["--app-name=tidings", "--", &summary, &body.join("\n")]);
            if let Err(e) = crate::process::run_to_success(command, Vec::new(), LIMITS) {
                tracing::warn!("notify-send: {e}");
                failed.get_or_insert(NotifyError::Command(e));
            }
        }
        failed.map_or(Ok(()), Err)
    }
}

/// Why new entries could not be told.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Command(String),
}

/// `%n`, `%f` and `%t`: how many, which feed (or "N feeds"), the first title — one line each.
fn summary(arrivals: &[Arrival]) -> (String, String, String) {
    let mut feeds: Vec<&str> = arrivals.iter().map(|a| a.feed.as_str()).collect();
    feeds.sort_unstable();
    feeds.dedup();
    let feed = match feeds.as_slice() {
        [one] => one_line(one, 200),
        many => format!("{} feeds", many.len()),
    };
    let title = arrivals.first().and_then(|a| a.title.as_deref()).map(|t| one_line(t, 300)).unwrap_or_default();
    (arrivals.len().to_string(), feed, title)
}

fn on_path(program: &str) -> Option<std::path::PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|d| d.join(program)).find(|p| p.is_file())
}

/// The newest entry's id: what is stored after it is new (ids only grow).
pub fn newest_entry(conn: &rusqlite::Connection) -> Result<i64, StoreError> {
    Ok(conn.prepare_cached("SELECT coalesce(max(id), 0) FROM entries")?.query_row([], |r| r.get(0))?)
}

/// The unread entries of notifying feeds stored after entry `after` and up to entry `upto`, newest first, kill
/// rules' catches left out.
pub fn arrivals_between(conn: &mut rusqlite::Connection, after: i64, upto: i64) -> Result<Vec<Arrival>, StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT e.title, e.link, e.author, e.sort_at, coalesce(f.custom_title, f.title, tidings_shown_url(f.url)), f.url
         FROM feeds f JOIN entries e ON e.feed_id = f.id
         WHERE f.notify = 1 AND e.id > ?1 AND e.id <= ?3 AND e.ignored = 0 AND e.read = 0
         ORDER BY e.sort_at DESC, e.id DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(rusqlite::params![after, MAX_TOLD, upto], |r| {
        let at: i64 = r.get(3)?;
        Ok(Arrival {
            title: r.get::<_, Option<String>>(0)?.map(|t| one_line(&t, 1000)),
            link: r.get(1)?,
            author: r.get::<_, Option<String>>(2)?.map(|a| one_line(&a, 300)),
            published: chrono::DateTime::from_timestamp(at, 0).map(|d| d.to_rfc3339()),
            feed: one_line(&r.get::<_, String>(4)?, 300),
            feed_url: r.get(5)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
