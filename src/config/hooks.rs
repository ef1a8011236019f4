//! `[[hooks]]`: what the config says of each hook, checked when it is read (an error names the hook's line and
//! says what to write), and composed into the engine's [`HookSettings`].

use super::Config;
use crate::command::CommandLine;
use crate::hooks::{Hook, HookSettings, Secret, Target};
use serde::Deserialize;
use std::time::Duration;

/// `[[hooks]]`: a program or an address told of one kind of event.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HookConfig {
    /// new_entries | starred | unstarred | feed_failing | feed_recovered | downloaded
    pub on: String,
    /// Only the entries this query (the query language of views) matches.
    pub query: Option<String>,
    /// A program, run without a shell, the event as JSON on its standard input.
    pub command: Option<String>,
    /// Or an address the event is POSTed to.
    pub url: Option<String>,
    /// The webhook's secret (its signature's key), or the program that prints it.
    pub secret: Option<String>,
    pub secret_command: Option<String>,
}

impl Config {
    /// Checks `[[hooks]]` and the keys that say how they run; an error names the hook's line.
    pub(super) fn validate_hooks(&self, text: &str) -> Result<(), String> {
        if !(1..=3600).contains(&self.hook_timeout_seconds) {
            return Err("key `hook_timeout_seconds`: must be between 1 and 3600".into());
        }
        if self.hook_retries > 100 {
            return Err("key `hook_retries`: must be at most 100".into());
        }
        if !(1..=86_400).contains(&self.hook_retry_seconds) {
            return Err("key `hook_retry_seconds`: must be between 1 and 86400 (a day)".into());
        }
        let lines: Vec<usize> =
            text.lines().enumerate().filter(|(_, l)| l.trim() == "[[hooks]]").map(|(i, _)| i + 1).collect();
        for (i, hook) in self.hooks.iter().enumerate() {
            let at = lines.get(i).map_or("[[hooks]]".to_string(), |line| format!("line {line}, [[hooks]]"));
            hook.check().map_err(|message| format!("{at}: {message}"))?;
        }
        Ok(())
    }

    /// The hooks, as the engine runs them.
    pub fn hook_settings(&self) -> HookSettings {
        HookSettings {
            hooks: self.hooks.iter().filter_map(|h| h.hook().ok()).collect(),
            timeout: Duration::from_secs(self.hook_timeout_seconds),
            retries: self.hook_retries,
            retry_after: Duration::from_secs(self.hook_retry_seconds),
        }
    }
}

impl HookConfig {
    fn check(&self) -> Result<(), String> {
        self.hook().map(|_| ())
    }

    /// The hook this says, or what is wrong with it.
    fn hook(&self) -> Result<Hook, String> {
        if !crate::store::hooks::KINDS.contains(&self.on.as_str()) {
            return Err(format!(
                "`on` '{}' is not an event; write one of {}",
                crate::sanitize::one_line(&self.on, 60),
                crate::store::hooks::KINDS.join(", ")
            ));
        }
        let query = match &self.query {
            Some(text) => Some((text.clone(), crate::query::parse(text).map_err(|e| format!("`query`: {e}"))?)),
            None => None,
        };
        let command = |key: &str, line: &str| {
            CommandLine::parse(line, Some(false))
                .map_err(|e| format!("`{key}`: {e} (write it like \"notify-me --urgent\")"))
        };
        let target = match (&self.command, &self.url) {
            (Some(line), None) => {
                if self.secret.is_some() || self.secret_command.is_some() {
                    return Err("a `secret` signs a webhook: it goes with `url`, not `command`".into());
                }
                Target::Command(command("command", line)?)
            }
            (None, Some(url)) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err("`url` must be an http(s) address".into());
                }
                let secret = match (&self.secret, &self.secret_command) {
                    (Some(_), Some(_)) => return Err("give `secret` or `secret_command`, not both".into()),
                    (Some(secret), None) => Some(Secret::Given(secret.clone())),
                    (None, Some(line)) => Some(Secret::Command(command("secret_command", line)?)),
                    (None, None) => None,
                };
                Target::Webhook { url: url.clone(), secret }
            }
            _ => return Err("give `command` (a program) or `url` (a webhook), one of them".into()),
        };
        Ok(Hook { on: self.on.clone(), query, target })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hook_is_a_command_or_a_signed_address_and_a_mistake_names_its_line() {
        let config = Config::parse(
            "hook_timeout_seconds = 3\n[[hooks]]\non = \"new_entries\"\nquery = 'folder = \"Work\"'\n\
             command = \"notify-me --urgent\"\n\n[[hooks]]\non = \"starred\"\nurl = \"http://127.0.0.1:9000/hook\"\n\
             secret_command = \"pass show hook\"\n",
        )
        .unwrap();
        let settings = config.hook_settings();
        assert_eq!(settings.hooks.len(), 2);
        assert_eq!(settings.timeout, Duration::from_secs(3));
        assert!(matches!(&settings.hooks[0].target, Target::Command(line) if line.words == ["notify-me", "--urgent"]));
        assert!(matches!(&settings.hooks[1].target, Target::Webhook { secret: Some(Secret::Command(_)), .. }));
        for (text, said) in [
            ("\n[[hooks]]\non = \"new\"\ncommand = \"x\"\n", "line 2, [[hooks]]: `on` 'new' is not an event"),
            ("[[hooks]]\non = \"starred\"\n", "give `command` (a program) or `url`"),
            ("[[hooks]]\non = \"starred\"\ncommand = \"x\"\nsecret = \"s\"\n", "goes with `url`"),
            ("[[hooks]]\non = \"starred\"\nurl = \"ftp://x\"\n", "http(s) address"),
            ("[[hooks]]\non = \"starred\"\nquery = 'title ~'\ncommand = \"x\"\n", "`query`"),
            ("hook_timeout_seconds = 0\n", "hook_timeout_seconds"),
        ] {
            let error = Config::parse(text).unwrap_err();
            assert!(error.contains(said), "{text:?}: {error}");
        }
    }
}
