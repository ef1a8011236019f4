//! One delivery: the body on a program's standard input (no shell, bounded by [`crate::process`]), or POSTed to
//! an address with the headers a receiver checks — `X-Tidings-Event` (the kind), `X-Tidings-Delivery` (the
//! event's stable id: the same on every try) and, with a secret, `X-Tidings-Signature`.

use super::{Hook, Secret, Target};
use crate::command::CommandLine;
use crate::process::Limits;
use crate::store::hooks::Delivery;
use std::process::Command;
use std::time::Duration;

/// What of a hook's output is kept: its first line of errors is said when it fails.
const OUTPUT: usize = 4096;
/// The most read of what a `secret_command` prints: the secret is its first line.
const SECRET_READ: usize = 4096;

/// Gives `delivery` to `hook` within `timeout`; why not, in words.
pub(super) async fn make(
    hook: &Hook,
    delivery: &Delivery,
    http: &reqwest::Client,
    timeout: Duration,
) -> Result<(), String> {
    match &hook.target {
        Target::Command(line) => {
            let (command, body) = (command(line), delivery.body.clone().into_bytes());
            tokio::task::spawn_blocking(move || {
                crate::process::run_to_success(command, body, Limits { deadline: timeout, output: OUTPUT })
            })
            .await
            .map_err(crate::panics::join_message)?
        }
        Target::Webhook { url, secret } => {
            let secret = match secret.clone() {
                Some(secret) => Some(
                    tokio::task::spawn_blocking(move || read_secret(&secret, timeout))
                        .await
                        .map_err(crate::panics::join_message)??,
                ),
                None => None,
            };
            post(http, url, delivery, secret.as_deref(), timeout).await
        }
    }
}

fn command(line: &CommandLine) -> Command {
    let mut command = Command::new(&line.words[0]);
    command.args(&line.words[1..]);
    command
}

/// The secret: as given, or the first line its program printed.
fn read_secret(secret: &Secret, timeout: Duration) -> Result<String, String> {
    match secret {
        Secret::Given(secret) => Ok(secret.clone()),
        Secret::Command(line) => {
            let limits = Limits { deadline: timeout, output: SECRET_READ };
            let finished =
                crate::process::run(command(line), Vec::new(), limits).map_err(|e| format!("`secret_command`: {e}"))?;
            if !finished.status.success() {
                return Err(format!("`secret_command` ended with {}", finished.status));
            }
            let text = String::from_utf8_lossy(&finished.stdout);
            Ok(text.lines().next().unwrap_or("").to_string())
        }
    }
}

/// POSTs the body to `url`; success is an answer 2xx.
async fn post(
    http: &reqwest::Client,
    url: &str,
    delivery: &Delivery,
    secret: Option<&str>,
    timeout: Duration,
) -> Result<(), String> {
    let mut request = http
        .post(url)
        .timeout(timeout)
        .header("Content-Type", "application/json")
        .header("X-Tidings-Event", &delivery.kind)
        .header("X-Tidings-Delivery", delivery.id.to_string());
    if let Some(secret) = secret {
        request =
            request.header("X-Tidings-Signature", super::sign::signature(secret.as_bytes(), delivery.body.as_bytes()));
    }
    let answer = request.body(delivery.body.clone()).send().await.map_err(|e| {
        if e.is_timeout() {
            format!("{url} did not answer within {} s", timeout.as_secs())
        } else {
            format!("{url}: {e}")
        }
    })?;
    let status = answer.status();
    if status.is_success() { Ok(()) } else { Err(format!("{url} answered {status}")) }
}
