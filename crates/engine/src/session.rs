//! The engine's front door: every front end — the reader, each command, the daemon — opens a [`Session`] and
//! asks it for what it needs, so start-up happens once and the same way for all of them (the database opened
//! and its per-feed settings applied, the writer, the shared HTTP client and its courtesy, the refresh
//! pipeline), and each piece of work owns its whole aftermath in one place:
//!
//! - [`Session::refresh`]: the feeds, then full articles, retention's purge, the search index (for the roles
//!   that index), the kill rules and the notifications (the [`Pipeline`]);
//! - [`Session::sync`]: the accounts side by side, then for each, as it ends, for what arrived, the kill rules (the index first, when
//!   they read text) and the notifications, and after the account is reported the search index (for the roles
//!   that keep it up to date);
//! - [`Session::refresh_and_sync`]: both, as `tidings refresh` and the daemon run them.
//!
//! A front end presents what comes back; it never wires the engine itself. The session is cheap to clone.

use crate::downloads::{DownloadSettings, Downloads};
use crate::fetch::{Courtesy, FetchConfig, Fetcher};
use crate::hooks::{HookSettings, Hooks};
use crate::model::{Applied, UserWrite};
use crate::query::Query;
use crate::refresh::full_text::FullText;
use crate::refresh::notify::Notifier;
use crate::refresh::{Observer, Outcome, Pipeline, Refresher, Upkeep, Which};
use crate::store::feeds::FeedSettings;
use crate::store::purge::Policy;
use crate::store::{self, DbThread, StoreError};
use crate::sync::{AccountConfig, Report, SyncError};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

/// Everything a session needs to know, resolved from the config by the front end: per subsystem, ready to use.
#[derive(Clone, Default)]
pub struct Settings {
    pub fetch: FetchConfig,
    /// Feeds refreshed at once, and requests to one host at once (`concurrency`, `per_host_concurrency`).
    pub concurrency: usize,
    pub per_host_concurrency: usize,
    /// Encodings forced for particular feeds, by feed URL.
    pub forced_encodings: BTreeMap<String, String>,
    /// The per-feed settings the store keeps: the default for every feed, and each URL's own.
    pub feeds: FeedSettingsTable,
    pub retention: Policy,
    pub kill_rules: Vec<Query>,
    /// Who is told of new entries; `None` when nobody is.
    pub notifier: Option<Notifier>,
    pub accounts: Vec<AccountConfig>,
    /// `[[hooks]]`, and how they are run.
    pub hooks: HookSettings,
    /// Where enclosures are downloaded to, and how.
    pub downloads: DownloadSettings,
}

/// The per-feed settings the store keeps (see [`store::feeds::apply_settings`]).
#[derive(Clone, Debug, Default)]
pub struct FeedSettingsTable {
    pub default: FeedSettings,
    pub feeds: Vec<(String, FeedSettings)>,
}

/// Who opened the session, which decides how it works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// The reader: its writer yields the processor to the terminal loop, and what arrives is indexed at once
    /// (a search should find it).
    Reader,
    /// A command: as fast as it can, and `tidings search` indexes before it looks.
    Command,
    /// The daemon: in the background, indexing what arrives for the reader's searches.
    Daemon,
}

/// Why a session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot set up HTTP: {0}")]
    Http(String),
}

/// Who hears how a sync goes, one account at a time.
pub trait SyncObserver: Send + Sync {
    /// An account was synced (and what arrived judged by the kill rules and told of), or why it could not be.
    fn account(&self, account: &AccountConfig, outcome: &Result<Report, SyncError>);
    /// Something that followed a sync failed (the notification command, the index): what to tell the user.
    fn trouble(&self, _message: &str) {}
}

/// A sync's accounts, each with how it went.
pub type Synced = Vec<(AccountConfig, Result<Report, SyncError>)>;

/// The engine, opened. Cheap to clone; clones share everything.
#[derive(Clone)]
pub struct Session(Arc<Inner>);

struct Inner {
    db: PathBuf,
    role: Role,
    writer: DbThread,
    fetcher: Fetcher,
    courtesy: Courtesy,
    pipeline: Pipeline,
    rules: bool,
    feeds: RwLock<Arc<FeedSettingsTable>>,
    accounts: Vec<AccountConfig>,
    /// One turn per account: a sync of an account waits for the one on its way (the automatic one and one a
    /// reader asked the daemon for), so one change is never sent up twice.
    turns: HashMap<String, Arc<tokio::sync::Mutex<()>>>,
    preferences: HashMap<String, String>,
    hooks: Hooks,
    downloads: Downloads,
}

impl Session {
    /// Opens the database at `db` (creating it, or bringing its schema up to date), applies the per-feed
    /// settings, and starts the writer, the HTTP client and the pipeline. Must be called inside a tokio runtime.
    pub fn open(db: &Path, settings: Settings, role: Role) -> Result<Session, SessionError> {
        let mut conn = store::open_write(db)?;
        store::feeds::apply_settings(&mut conn, &settings.feeds.default, &settings.feeds.feeds)?;
        let names: Vec<String> = settings.accounts.iter().map(|a| a.name.clone()).collect();
        store::accounts::mark_in_config(&conn, &names)?;
        let hooks_armed = Hooks::arm_on(&mut conn, &settings.hooks);
        let preferences = store::preferences::all(&conn)?;
        let writer = match role {
            Role::Reader | Role::Daemon => DbThread::spawn_background_writer(conn),
            Role::Command => DbThread::spawn_writer(conn),
        };
        let fetcher = Fetcher::new(settings.fetch).map_err(SessionError::Http)?;
        let hooks = Hooks::new(settings.hooks, writer.clone(), fetcher.client().clone());
        if let Err(e) = hooks_armed {
            tracing::warn!("hooks: cannot record the events the hooks listen to: {e}");
        }
        if role != Role::Command {
            hooks.run_in_background();
        }
        let courtesy = Courtesy::new(settings.concurrency, settings.per_host_concurrency);
        let refresher = Refresher::new(fetcher.clone(), courtesy.clone(), writer.clone())
            .with_forced_encodings(settings.forced_encodings);
        // With no terminal loop to answer, the runtime's threads may read documents themselves.
        let refresher = match role {
            Role::Reader => refresher,
            Role::Command | Role::Daemon => refresher.reading_in_place(),
        };
        let full_text = FullText::new(fetcher.clone(), courtesy.clone(), writer.clone());
        let downloads = Downloads::new(writer.clone(), fetcher.clone(), courtesy.clone(), settings.downloads);
        let upkeep = match role {
            Role::Reader | Role::Daemon => Upkeep::PurgeAndIndex,
            Role::Command => Upkeep::PurgeOnly,
        };
        let rules = !settings.kill_rules.is_empty();
        let pipeline = Pipeline::new(refresher, full_text, writer.clone(), Arc::new(settings.retention), upkeep)
            .with_rules(settings.kill_rules)
            .with_notifier(settings.notifier);
        Ok(Session(Arc::new(Inner {
            db: db.to_path_buf(),
            role,
            writer,
            fetcher,
            courtesy,
            pipeline,
            rules,
            feeds: RwLock::new(Arc::new(settings.feeds)),
            turns: settings.accounts.iter().map(|a| (a.name.clone(), Arc::default())).collect(),
            accounts: settings.accounts,
            preferences,
            hooks,
            downloads,
        })))
    }

    /// The database's file.
    pub fn db(&self) -> &Path {
        &self.0.db
    }

    /// The one writer: every write goes through it, in order.
    pub fn writer(&self) -> &DbThread {
        &self.0.writer
    }

    /// A connection of its own for reading, on a thread of its own (the reader's lists, its counts).
    pub fn reader(&self, name: &str) -> Result<DbThread, StoreError> {
        Ok(DbThread::spawn(name, store::open_read(&self.0.db)?))
    }

    pub fn fetcher(&self) -> &Fetcher {
        &self.0.fetcher
    }

    /// The limits every fetch on the user's behalf shares.
    pub fn courtesy(&self) -> &Courtesy {
        &self.0.courtesy
    }

    /// The refresh pipeline (its full-text fetcher, its index, its retention).
    pub fn pipeline(&self) -> &Pipeline {
        &self.0.pipeline
    }

    pub fn full_text(&self) -> &FullText {
        self.0.pipeline.full_text()
    }

    /// What the database remembered under `name` when the session opened (`hide_read_feeds`, `last_search`…).
    pub fn preference(&self, name: &str) -> Option<&str> {
        self.0.preferences.get(name).map(String::as_str)
    }

    /// The accounts of the config.
    pub fn accounts(&self) -> &[AccountConfig] {
        &self.0.accounts
    }

    /// Performs a user's write through the store's one write path, on the writer; a feed it adds takes its
    /// settings from the config at once.
    pub async fn apply(&self, write: UserWrite) -> Result<Applied, StoreError> {
        let feeds = self.feeds_settings();
        let applied = self.0.writer.call(move |c| apply(c, &write, &feeds, chrono::Utc::now().timestamp())).await;
        self.user_wrote();
        applied
    }

    /// The per-feed settings in force, for [`apply`] run on the writer by a front end that orders its writes
    /// itself.
    pub fn feeds_settings(&self) -> Arc<FeedSettingsTable> {
        self.0.feeds.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The config's per-feed settings changed (the reader's feed info edited them): the store takes them, the
    /// next purge keeps what `retention` says, and what it no longer keeps goes now.
    pub async fn settings_changed(
        &self,
        feeds: FeedSettingsTable,
        retention: Policy,
    ) -> Result<(Result<usize, StoreError>, Result<usize, StoreError>), StoreError> {
        *self.0.feeds.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(feeds.clone());
        self.0.pipeline.set_retention(retention);
        self.0.writer.call(move |c| store::feeds::apply_settings(c, &feeds.default, &feeds.feeds)).await?;
        Ok(self.0.pipeline.upkeep().await)
    }

    /// Refreshes the local feeds `which` names (`force`: also those gone or asked to wait), with the whole of
    /// what follows (see the module's notes), telling `observer` as it goes.
    pub async fn refresh(&self, which: Which, force: bool, observer: Arc<dyn Observer>) -> Outcome {
        let auto = self.0.downloads.settings().auto_anywhere();
        let before = if auto { self.0.pipeline.newest_entry().await } else { i64::MAX };
        let mut outcome = self.0.pipeline.run(which, force, observer).await;
        self.tell_hooks().await;
        if auto {
            outcome.episodes = self.0.downloads.new_episodes(before).await.unwrap_or_else(|e| {
                tracing::warn!("cannot find the new episodes to download: {e}");
                Vec::new()
            });
        }
        outcome
    }

    /// The download queue.
    pub fn downloads(&self) -> &Downloads {
        &self.0.downloads
    }

    /// Runs the download queue to its end (see [`Downloads::run`]), then gives the hooks what finished.
    pub async fn download(
        &self,
        observer: Arc<dyn crate::downloads::DownloadObserver>,
    ) -> Result<Vec<store::downloads::Download>, StoreError> {
        let ended = self.0.downloads.run(observer).await;
        self.tell_hooks().await;
        ended
    }

    /// The hooks: what went wrong with them comes from [`Hooks::trouble`].
    pub fn hooks(&self) -> &Hooks {
        &self.0.hooks
    }

    /// Gives the hooks what happened, now that what caused it is complete (judged by the kill rules): a command
    /// waits for the deliveries, since it ends after them; the reader and the daemon deliver in the background.
    async fn tell_hooks(&self) {
        match self.0.role {
            Role::Command => self.0.hooks.settle().await,
            Role::Reader | Role::Daemon => {
                if let Err(e) = self.0.hooks.gather(None).await {
                    tracing::warn!("hooks: cannot gather the events: {e}");
                }
            }
        }
    }

    /// A user's write was just handed to the writer (the reader's own path, [`apply`] run by it): what it
    /// starred or unstarred goes to the hooks once it is applied (the gathering queues behind it).
    pub fn user_wrote(&self) {
        if self.0.hooks.is_empty() {
            return;
        }
        let hooks = self.0.hooks.clone();
        tokio::spawn(async move {
            if let Err(e) = hooks.gather(Some(&["starred", "unstarred"])).await {
                tracing::warn!("hooks: cannot gather the events: {e}");
            }
        });
    }

    /// Syncs the accounts named (all of them when `names` is `None`) side by side, so an account whose server
    /// or `password_command` hangs costs only itself: each account, as its sync ends, is followed by what the new
    /// entries it brought need before anyone sees them — the kill rules (with the index first: rules may read the
    /// text) and the notifications — then `observer` hears of it, so a list read then shows what arrived, judged.
    /// The index for search follows, for the roles that keep it up to date (a search indexes what is left before
    /// it looks, so it never misses an entry). The accounts come back in the config's order.
    pub async fn sync(&self, names: Option<&[String]>, observer: &dyn SyncObserver) -> Synced {
        let accounts: Vec<AccountConfig> =
            self.0.accounts.iter().filter(|a| names.is_none_or(|n| n.contains(&a.name))).cloned().collect();
        // What is stored after this was not there before the sync: what the notifications tell, once each.
        let mut told = self.0.pipeline.newest_entry().await;
        let mut running = tokio::task::JoinSet::new();
        let mut which = HashMap::new();
        for (place, account) in accounts.iter().enumerate() {
            let (session, account) = (self.clone(), account.clone());
            let turn = self.0.turns.get(&account.name).cloned().unwrap_or_default();
            let task = running.spawn(async move {
                let _turn = turn.lock().await;
                let now = chrono::Utc::now().timestamp();
                crate::sync::sync(&account, &session.0.fetcher, &session.0.writer, now).await
            });
            which.insert(task.id(), place);
        }
        let mut synced = Vec::with_capacity(accounts.len());
        while let Some(joined) = running.join_next_with_id().await {
            let (place, outcome) = match joined {
                Ok((id, outcome)) => (which[&id], outcome),
                Err(e) => {
                    let place = which[&e.id()];
                    let message = format!("the sync failed ({}); please report this", crate::panics::join_message(e));
                    (place, Err(SyncError::Server { account: accounts[place].name.clone(), message }))
                }
            };
            let account = &accounts[place];
            let arrived = outcome.as_ref().is_ok_and(|r| r.new > 0);
            if arrived {
                told = self.judge_and_tell(told, observer).await;
            }
            observer.account(account, &outcome);
            if arrived && self.0.role != Role::Command {
                self.index(observer).await;
            }
            synced.push((place, account.clone(), outcome));
        }
        synced.sort_by_key(|(place, ..)| *place);
        self.tell_hooks().await;
        synced.into_iter().map(|(_, account, outcome)| (account, outcome)).collect()
    }

    /// What new entries a sync brought need before they are shown: judged by the kill rules (indexed first,
    /// for the rules that read the text), and told of — those stored after entry `told` and up to the newest
    /// now, which is returned: other accounts' syncs go on beside this one, and what they store after it is
    /// theirs to tell.
    async fn judge_and_tell(&self, told: i64, observer: &dyn SyncObserver) -> i64 {
        // Read before the rules run, so that every entry told was judged.
        let newest = self.0.pipeline.newest_entry().await;
        if self.0.rules {
            self.index(observer).await;
            if let Err(e) = self.0.pipeline.apply_rules().await {
                observer.trouble(&format!("cannot apply the kill rules to the new entries: {e}"));
            }
        }
        if let Err(e) = self.0.pipeline.notify_between(told, newest).await {
            observer.trouble(&e);
        }
        newest.max(told)
    }

    /// Indexes what is not indexed yet, for search.
    async fn index(&self, observer: &dyn SyncObserver) {
        if let Err(e) = self.0.pipeline.index().await {
            observer.trouble(&format!("cannot index the new entries for search: {e}"));
        }
    }

    /// Refreshes every local feed, then syncs every account (unless `sync` is false): `tidings refresh` and the
    /// daemon.
    pub async fn refresh_and_sync(
        &self,
        force: bool,
        sync: bool,
        feeds: Arc<dyn Observer>,
        accounts: &dyn SyncObserver,
    ) -> (Outcome, Synced) {
        let outcome = self.refresh(Which::All, force, feeds).await;
        let synced = if sync { self.sync(None, accounts).await } else { Vec::new() };
        (outcome, synced)
    }
}

/// Performs `write` through the store's one write path on `conn`; a feed it adds takes its settings from `feeds`
/// in the same breath (what `[feeds."URL"]` says holds from its first refresh).
pub fn apply(
    conn: &mut rusqlite::Connection,
    write: &UserWrite,
    feeds: &FeedSettingsTable,
    now: i64,
) -> Result<Applied, StoreError> {
    let applied = store::apply(conn, write, now)?;
    if let (UserWrite::AddFeed(new), Applied::Subscribed { added: true, .. }) = (write, &applied) {
        let own = feeds.feeds.iter().find(|(url, _)| *url == new.url).map_or(&feeds.default, |(_, own)| own);
        store::feeds::apply_feed_settings(conn, &new.url, own)?;
    }
    Ok(applied)
}
