//! tidings: a terminal feed reader. This crate is its front ends, over three crates of its own (see
//! `ARCHITECTURE.md`); each layer may use the ones below it and never the ones above.
//!
//! 1. **The pure core** — `tidings-core` (`crates/core`): [`decode`], [`parse`], [`ingest`], [`feedlinks`],
//!    [`opml`], [`render`], [`extract`], [`inspect`], [`model`], [`search`], [`query`], [`text`], [`sanitize`],
//!    [`canonical`], [`markup`], [`clock`], [`command`]. Bytes and strings in, values out.
//! 2. **The engine** — `tidings-engine` (`crates/engine`): [`store`], [`fetch`], [`refresh`], [`sync`], the
//!    picture library, [`process`] and [`os`]. The I/O behind every front end; it knows none of them.
//! 3. **The state machine** — `tidings-app` (`crates/app`), as [`app`]: `update(state, event) → effects`, no I/O.
//! 4. **The front ends**, here: the reader — [`ui`] (drawing, a pure function of the state), [`runtime`] (the
//!    terminal loop and the workers that run effects) and [`pictures`] (pictures prepared for the terminal's
//!    protocol); and the command line: [`cli`] with [`import`] and [`from_newsboat`], configured by [`config`];
//!    the daemon (`cli::daemon`) and the reader beside it speak over [`daemon_socket`].
//!
//! The engine's and the core's modules are re-exported here under their own names, so `tidings::store` is the
//! engine's store.

pub use tidings_app as app;
pub use tidings_core::{
    canonical, clock, command, decode, extract, feedlinks, fever, filename, greader, health, ingest, inspect, markdown,
    markup, model, opml, parse, query, render, sanitize, search, text,
};
pub use tidings_engine::{downloads, export, fetch, hooks, os, panics, process, refresh, session, store, sync};

pub mod cli;
pub mod config;
pub mod daemon_socket;
pub mod from_newsboat;
pub mod import;
pub mod pictures;
pub mod runtime;
pub mod ui;
