//! tidings-core: the pure heart of tidings. Every function here takes bytes and strings and returns values; no
//! module reads a file, opens a socket, touches SQLite or draws on a terminal (this crate's `Cargo.toml` does not
//! list tokio, rusqlite, reqwest, ratatui or crossterm, so the compiler keeps it that way).
//!
//! - [`decode`]: bytes + HTTP Content-Type → UTF-8 text and the [`decode::Decision`] that explains it.
//! - [`parse`]: UTF-8 text → [`model::ParsedFeed`] (tidings's own RSS, Atom and JSON Feed readers, with
//!   repairs and our own dates).
//! - [`ingest`]: decode judged by parse (the first reading that gives a feed wins).
//! - [`feedlinks`]: an HTML page → the feed addresses it offers (fetching and verifying them is the reader's
//!   `fetch::discovery`).
//! - [`opml`]: OPML ⇄ subscriptions.
//! - [`newsboat`]: a newsboat home (urls, config, cached items, filters) in tidings's terms.
//! - [`greader`]: the Google Reader API's answers (FreshRSS, Miniflux, Inoreader…) → subscriptions and items.
//! - [`fever`]: the Fever API's answers (FreshRSS, Coldsweat, Miniflux…) → subscriptions, items and id sets.
//! - [`render`]: article HTML → styled, wrapped lines with numbered links.
//! - [`extract`]: a web page → its main article (Readability), sanitized, for feeds that send only snippets.
//! - [`inspect`]: the report `tidings inspect` prints.
//! - [`health`]: which feeds are dead, gone, moved, quiet or throttled, judged from what their fetches left.
//! - [`search`]: what the full-text index reads for an entry, a person's query as an FTS5 expression, and
//!   where its words are in an article (CJK as bigrams, widths and diacritics folded).
//! - [`model`]: the data every layer shares: parsed feeds, and the rows the reader shows.
//! - helpers: [`clock`] (dates for people, in a zone the caller picks), [`text`] (plain text), [`sanitize`]
//!   (what may reach a terminal), [`canonical`] (URLs), [`markup`] (tag scanning), [`command`] (the config's
//!   command lines, split into arguments, never a shell).

pub mod canonical;
pub mod clock;
pub mod command;
pub mod decode;
pub mod extract;
pub mod feedlinks;
pub mod fever;
pub mod filename;
pub mod greader;
pub mod health;
pub mod ingest;
pub mod inspect;
pub mod markdown;
pub mod markup;
pub mod miniflux;
pub mod model;
pub mod newsboat;
pub mod opml;
pub mod parse;
pub mod query;
pub mod render;
pub mod sanitize;
pub mod search;
pub mod text;

/// What the tests share.
#[cfg(test)]
mod testing {
    /// A stream of pseudo-random numbers (xorshift64) from `seed`: the same every run, for tests that try many
    /// generated inputs.
    pub(crate) fn numbers(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }
}
