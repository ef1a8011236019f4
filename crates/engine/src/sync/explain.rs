//! A failed sync, said for people: what failed, on which account, and what to do; the changes made here that
//! wait for the next sync are counted.

use super::{AccountConfig, PasswordSource, RemoteError, SyncError};
use crate::greader::AnswerError;

/// What a failed sync says: what failed, and what to do.
pub(super) fn explain(account: &AccountConfig, e: RemoteError, waiting: i64, now: i64) -> SyncError {
    let name = account.name.clone();
    let said = |body: &str| if body.is_empty() { String::new() } else { format!(": {body}") };
    match e {
        RemoteError::Unauthorized => {
            SyncError::Refused { account: name, user: account.user.clone(), from: password_source(account) }
        }
        RemoteError::Password(message) => SyncError::Password { account: name, message },
        RemoteError::Unreachable(reason) => SyncError::Offline { account: name, reason, waiting },
        RemoteError::Status(status, ref body) if e.is_passing() => SyncError::Server {
            account: name,
            message: format!(
                "the server {} (HTTP {status}{}); it is tried again at the next sync, and nothing here is lost: {}",
                if status >= 500 { "failed" } else { "is busy" },
                said(body),
                waiting_line(waiting)
            ),
        },
        RemoteError::Status(status, body) => SyncError::Server {
            account: name,
            message: format!(
                "the server refused a request (HTTP {status}{}): check `url` (FreshRSS: …/api/greader.php)",
                said(&body)
            ),
        },
        RemoteError::Answer(AnswerError::Html) => SyncError::Server {
            account: name,
            message: format!(
                "{} answered with a web page, not the Google Reader API: check `url` (FreshRSS: \
                 https://your.server/api/greader.php) and that the API is enabled in its settings",
                crate::sanitize::one_line(&account.url, 300)
            ),
        },
        RemoteError::Answer(e) => SyncError::Server { account: name, message: format!("{e}") },
        RemoteError::TooLarge(mb) => SyncError::Server {
            account: name,
            message: format!(
                "the server sent an answer larger than {mb} MB (a page of items is asked again smaller, down to one \
                 item); what came before it is kept and the next sync asks again: if it goes on, check the server \
                 (a feed with enormous items?)"
            ),
        },
        RemoteError::Refused(why) => SyncError::Server { account: name, message: why },
        RemoteError::Moved(status, to) => SyncError::Server {
            account: name,
            message: format!(
                "{} (HTTP {status}{}): check `url`, the API's address; {}",
                // Only a permanent redirect says the API itself moved: a passing one is often a login page.
                if matches!(status, 301 | 308) { "the API moved" } else { "the server sent the request elsewhere" },
                to.map(|to| format!(" to {to}")).unwrap_or_default(),
                waiting_line(waiting)
            ),
        },
        RemoteError::Wait(status, secs, body) => SyncError::Server {
            account: name,
            message: format!(
                "the server asked to wait (HTTP {status}{}, Retry-After): {}; nothing here is lost: {}",
                said(&body),
                paused_line(now.saturating_add(i64::try_from(secs).unwrap_or(i64::MAX))),
                waiting_line(waiting)
            ),
        },
        RemoteError::Repeated(what) => SyncError::Server {
            account: name,
            message: format!(
                "the server gave the same continuation twice while listing its {what}, which would never end: the \
                 sync stopped there, keeping what came before"
            ),
        },
    }
}

/// Where the password that was refused came from, as the config names it.
fn password_source(account: &AccountConfig) -> String {
    match account.password_source() {
        PasswordSource::Given(_) => "the config's `password`".into(),
        PasswordSource::Command(command) => {
            format!("what `password_command` ({}) prints", crate::sanitize::one_line(&command, 100))
        }
        PasswordSource::File(path) => {
            format!("the first line of `password_file` ({})", crate::sanitize::one_line(&path.to_string_lossy(), 200))
        }
    }
}

pub(super) fn waiting_line(waiting: i64) -> String {
    format!("{waiting} {} waiting", if waiting == 1 { "change" } else { "changes" })
}

/// "not synced until 14:05 UTC" (with the date when it is not today).
fn paused_line(until: i64) -> String {
    let Some(at) = chrono::DateTime::from_timestamp(until, 0) else { return "not synced for now".into() };
    let today = chrono::Utc::now().date_naive() == at.date_naive();
    format!("not synced until {} UTC", at.format(if today { "%H:%M:%S" } else { "%Y-%m-%d %H:%M:%S" }))
}

/// An account whose server asked to wait, before `until`: no request is made.
pub(super) fn paused(account: &AccountConfig, until: i64, waiting: i64) -> SyncError {
    SyncError::Server {
        account: account.name.clone(),
        message: format!(
            "the server asked to wait (Retry-After): {}; nothing here is lost: {}",
            paused_line(until),
            waiting_line(waiting)
        ),
    }
}
