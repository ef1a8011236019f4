//! Hooks (`[[hooks]]` in the config): the user's programs and web addresses told of what happened — new entries,
//! an entry starred or unstarred, a feed that began or stopped failing — exactly once each, whichever process
//! found it (the daemon, the reader, `tidings refresh` or `sync`).
//!
//! Exactly once across crashes, in three steps, each a transaction of its own (see `store::hooks`): a trigger
//! records the event with what caused it; [`Hooks::gather`] takes each hook's new events into deliveries, with the
//! JSON body they will carry and an id that is never reused (the event's stable id); a delivery is recorded done
//! only after its hook took it (a command that exited 0, an answer 2xx). One that failed is tried again after a
//! backoff, a bounded number of times, then given up on and said (the log, and the reader's messages through
//! [`Hooks::trouble`]). A crash between a hook's taking and the record of it is the only way one is told twice.
//!
//! A hook is never waited on by anything else: each delivery runs in a task of its own, bounded (its command
//! through [`crate::process`], its request by `hook_timeout_seconds`), leased in the database so the reader and
//! the daemon never make the same delivery at once.

mod deliver;
pub mod sign;

use crate::command::CommandLine;
use crate::query::Query;
use crate::store::hooks::{self as stored, Item, Listener};
use crate::store::{DbThread, StoreError};
use std::sync::{Arc, Weak};
use std::time::Duration;
use tokio::sync::{Notify, broadcast};

/// One `[[hooks]]`.
#[derive(Clone, Debug)]
pub struct Hook {
    /// The kind of event: one of [`stored::KINDS`].
    pub on: String,
    /// Only the entries this query matches (as written, and parsed).
    pub query: Option<(String, Query)>,
    pub target: Target,
}

/// Where a hook's events go.
#[derive(Clone, Debug)]
pub enum Target {
    /// A program (no shell), the event as JSON on its standard input.
    Command(CommandLine),
    /// A POST of the JSON, signed when there is a secret.
    Webhook { url: String, secret: Option<Secret> },
}

/// A webhook's secret: given, or printed by a program (a password manager).
#[derive(Clone, Debug)]
pub enum Secret {
    Given(String),
    Command(CommandLine),
}

impl Hook {
    /// What the hook is, as the database remembers it: an edited hook is a new one, which starts from now.
    pub fn key(&self) -> String {
        let target = match &self.target {
            Target::Command(line) => format!("command {}", line.words.join(" ")),
            Target::Webhook { url, .. } => format!("url {url}"),
        };
        let query = self.query.as_ref().map_or("", |(text, _)| text.as_str());
        format!("{} [{query}] {target}", self.on)
    }

    /// How the hook is named in a message: its program or its address.
    pub fn name(&self) -> String {
        match &self.target {
            Target::Command(line) => line.words.first().cloned().unwrap_or_default(),
            Target::Webhook { url, .. } => url.clone(),
        }
    }
}

/// The hooks and how they are run.
#[derive(Clone, Debug)]
pub struct HookSettings {
    pub hooks: Vec<Hook>,
    /// How long a hook may take (`hook_timeout_seconds`).
    pub timeout: Duration,
    /// How many times a failed delivery is tried again (`hook_retries`).
    pub retries: u32,
    /// The first wait before trying again (`hook_retry_seconds`); each next one is twice as long, up to an hour.
    pub retry_after: Duration,
}

impl Default for HookSettings {
    fn default() -> Self {
        HookSettings {
            hooks: Vec::new(),
            timeout: Duration::from_secs(10),
            retries: 6,
            retry_after: Duration::from_secs(10),
        }
    }
}

/// Deliveries made at once at most; more wait for the next pass.
const AT_ONCE: usize = 16;
/// Done deliveries are kept this long, for whoever looks.
const KEPT_SECS: i64 = 7 * 86_400;

/// The hooks of a session. Cheap to clone.
#[derive(Clone)]
pub struct Hooks(Arc<Inner>);

struct Inner {
    settings: HookSettings,
    keys: Vec<String>,
    writer: DbThread,
    http: reqwest::Client,
    wake: Arc<Notify>,
    trouble: broadcast::Sender<String>,
}

impl Hooks {
    pub fn new(settings: HookSettings, writer: DbThread, http: reqwest::Client) -> Hooks {
        let keys = settings.hooks.iter().map(Hook::key).collect();
        let (trouble, _) = broadcast::channel(64);
        Hooks(Arc::new(Inner { settings, keys, writer, http, wake: Arc::new(Notify::new()), trouble }))
    }

    pub fn is_empty(&self) -> bool {
        self.0.settings.hooks.is_empty()
    }

    /// Makes the database on `conn` record the events `settings`' hooks listen to (and no others), before a
    /// session's writer starts.
    pub fn arm_on(conn: &mut rusqlite::Connection, settings: &HookSettings) -> Result<(), StoreError> {
        let keys: Vec<String> = settings.hooks.iter().map(Hook::key).collect();
        stored::arm(conn, &listeners(&settings.hooks, &keys))
    }

    fn listeners(&self) -> Vec<Listener<'_>> {
        listeners(&self.0.settings.hooks, &self.0.keys)
    }

    /// Takes the events recorded since the last gathering (of `kinds`, or all) into deliveries, and wakes the
    /// deliveries. Called once what caused them is complete: after a refresh's kill rules, after a user's write.
    pub async fn gather(&self, kinds: Option<&'static [&'static str]>) -> Result<usize, StoreError> {
        if self.is_empty() {
            return Ok(0);
        }
        let this = self.clone();
        let made = self
            .0
            .writer
            .call(move |c| stored::gather(c, &this.listeners(), kinds, chrono::Utc::now().timestamp(), &body))
            .await?;
        if made > 0 {
            self.0.wake.notify_one();
        }
        Ok(made)
    }

    /// What went wrong with the hooks, as it happens: a delivery given up on, the database unwritable.
    pub fn trouble(&self) -> broadcast::Receiver<String> {
        self.0.trouble.subscribe()
    }

    fn say(&self, message: String) {
        tracing::warn!("hooks: {message}");
        let _ = self.0.trouble.send(message);
    }

    /// Starts the deliveries that are due, each in a task of its own; their handles, for a caller that waits.
    pub async fn deliver_due(&self) -> Vec<tokio::task::JoinHandle<()>> {
        let lease = self.0.settings.timeout.as_secs() as i64 + 2;
        let claimed =
            self.0.writer.call(move |c| stored::claim_due(c, chrono::Utc::now().timestamp(), lease, AT_ONCE)).await;
        let due = match claimed {
            Ok(due) => due,
            Err(e) => {
                self.say(format!("cannot read the deliveries that are due: {e}"));
                return Vec::new();
            }
        };
        due.into_iter().map(|delivery| tokio::spawn(self.clone().deliver(delivery))).collect()
    }

    /// Gathers every event and makes every delivery that is due, and waits for them: a command (`tidings
    /// refresh`) that ends after it. What fails is tried again by the next process that runs.
    pub async fn settle(&self) {
        if self.is_empty() {
            return;
        }
        if let Err(e) = self.gather(None).await {
            self.say(format!("cannot gather the events for the hooks: {e}"));
        }
        loop {
            let running = self.deliver_due().await;
            if running.is_empty() {
                break;
            }
            futures::future::join_all(running).await;
        }
    }

    /// Delivers in the background for as long as the session lives: when woken by [`Hooks::gather`], and when a
    /// retry comes due (else once a minute, for deliveries another process left).
    pub fn run_in_background(&self) {
        if self.is_empty() {
            return;
        }
        let (weak, wake): (Weak<Inner>, _) = (Arc::downgrade(&self.0), self.0.wake.clone());
        tokio::spawn(async move {
            loop {
                let Some(hooks) = weak.upgrade().map(Hooks) else { return };
                drop(hooks.deliver_due().await);
                let next = hooks.0.writer.call(|c| stored::next_due(c)).await.ok().flatten();
                drop(hooks);
                let now = chrono::Utc::now().timestamp();
                let wait = next.map_or(60, |at| (at - now).clamp(1, 60)) as u64;
                tokio::select! {
                    () = wake.notified() => {}
                    () = tokio::time::sleep(Duration::from_secs(wait)) => {}
                }
            }
        });
    }

    /// Makes one delivery and records how it went.
    async fn deliver(self, delivery: stored::Delivery) {
        let Some(hook) = self.0.keys.iter().position(|k| *k == delivery.hook).map(|i| &self.0.settings.hooks[i]) else {
            // A hook no longer in this process's config: its lease runs out and a process that has it delivers.
            return;
        };
        let outcome = deliver::make(hook, &delivery, &self.0.http, self.0.settings.timeout).await;
        let now = chrono::Utc::now().timestamp();
        let (id, name, kind) = (delivery.id, hook.name(), delivery.kind.clone());
        let recorded = match outcome {
            Ok(()) => self.0.writer.call(move |c| stored::delivered(c, id, now)).await,
            Err(error) => {
                let tries = delivery.attempts;
                let retry_at = (tries <= self.0.settings.retries as i64).then(|| now + self.backoff(tries));
                match retry_at {
                    Some(_) => tracing::warn!("hooks: {name} did not take event {id} ({kind}), try {tries}: {error}"),
                    None => self.say(format!(
                        "hook {name} did not take event {id} ({kind}) after {tries} tries, and tidings gave up: {error}"
                    )),
                }
                self.0.writer.call(move |c| stored::failed(c, id, &error, retry_at, now)).await
            }
        };
        if let Err(e) = recorded {
            self.say(format!("cannot record how event {id} went: {e}"));
        }
        let _ = self.0.writer.call(move |c| stored::forget_old(c, now - KEPT_SECS)).await;
    }

    /// Seconds to wait after the `tries`-th failure: `retry_after`, doubled each time, an hour at most.
    fn backoff(&self, tries: i64) -> i64 {
        let first = self.0.settings.retry_after.as_secs().max(1) as i64;
        first.saturating_mul(1 << (tries - 1).clamp(0, 20)).min(3600)
    }
}

fn listeners<'a>(hooks: &'a [Hook], keys: &'a [String]) -> Vec<Listener<'a>> {
    hooks
        .iter()
        .zip(keys)
        .map(|(hook, key)| Listener { key, on: &hook.on, query: hook.query.as_ref().map(|(_, q)| q) })
        .collect()
}

/// The JSON a delivery carries: its id, its kind, when it was made, and its entries or feeds.
fn body(id: i64, kind: &str, items: &[Item]) -> String {
    let list = if kind.starts_with("feed_") { "feeds" } else { "entries" };
    let at = chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    serde_json::json!({"id": id, "event": kind, "at": at, list: items}).to_string()
}
