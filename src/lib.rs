//! tidings: a terminal feed reader.
//!
//! The crate is laid out in three layers; each may use the ones below it and never the ones above.
//!
//! 1. **The pure core** — the `tidings-core` crate (`crates/core`), re-exported here: [`decode`], [`parse`],
//!    [`ingest`], [`feedlinks`], [`opml`], [`render`], [`extract`], [`inspect`], [`model`], [`search`], [`query`], [`text`],
//!    [`sanitize`], [`canonical`], [`markup`], [`clock`], [`command`]. Bytes and strings in, values out; its manifest lists
//!    no I/O crate.
//! 2. **The I/O edge** — [`fetch`] (one shared HTTP client, discovery over the network), [`store`] (SQLite:
//!    schema, one writer thread, queries, and `store::apply`, the one write path), [`refresh`] (the pipeline that
//!    fetches, ingests and stores), [`sync`] (two-way sync with the servers of `[[accounts]]`) and [`pictures`]
//!    (the article's pictures: fetched, cached, decoded, prepared for the terminal's protocol).
//! 3. **The front ends** — the reader: [`app`] (the state machine: `update(state, event) → effects`, no I/O),
//!    [`ui`] (drawing, a pure function of the state), [`runtime`] (the terminal loop and the workers that run
//!    effects); and the command line: [`cli`] with [`import`] and [`from_newsboat`], configured by [`config`].

pub use tidings_app as app;
pub use tidings_core::{
    canonical, clock, command, decode, extract, feedlinks, greader, ingest, inspect, markup, model, opml, parse, query,
    render, sanitize, search, text,
};

pub mod cli;
pub mod config;
pub mod fetch;
pub mod from_newsboat;
pub mod import;
pub mod os;
pub mod panics;
pub mod pictures;
pub mod process;
pub mod refresh;
pub mod runtime;
pub mod store;
pub mod sync;
pub mod ui;
