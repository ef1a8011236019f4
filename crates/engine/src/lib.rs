//! tidings's engine: the I/O behind every front end — the reader, the commands and the daemon.
//!
//! - [`store`]: SQLite (schema, one writer thread, queries, and `store::apply`, the one write path);
//! - [`fetch`]: one shared HTTP client, its courtesy to hosts, discovery over the network;
//! - [`refresh`]: the pipeline that fetches, ingests and stores feeds, and what follows a refresh;
//! - [`sync`]: two-way sync with the servers of `[[accounts]]`;
//! - [`pictures`]: the article's pictures fetched, kept on disk and decoded (drawing them is the front end's);
//! - [`process`]: the user's commands, run bounded; [`os`]: the few calls into the C library;
//! - [`session`]: the front door — what every front end opens, and the one place start-up and the aftermath
//!   of a refresh or a sync happen.
//!
//! It uses the pure core ([`tidings_core`], re-exported here under its modules' names) and knows no front end:
//! its manifest lists neither the state machine nor a terminal library. It reports through observer traits and
//! return values.

pub use tidings_core::{
    canonical, clock, command, decode, extract, feedlinks, fever, filename, greader, health, ingest, inspect, markdown,
    markup, miniflux, model, opml, parse, query, render, sanitize, search, text,
};

pub mod downloads;
pub mod export;
pub mod fetch;
pub mod hooks;
pub mod os;
pub mod panics;
pub mod pictures;
pub mod process;
pub mod refresh;
pub mod session;
pub mod store;
pub mod sync;
