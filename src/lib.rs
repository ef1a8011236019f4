//! tidings: a terminal feed reader.
//!
//! The pure core ([`decode`], [`parse`], [`ingest`], [`opml`], [`render`], [`text`], [`sanitize`]) takes bytes
//! and strings and returns values. I/O lives in [`fetch`] and [`store`]; [`refresh`] orchestrates them. The
//! reader is a state machine ([`app`]) drawn by a pure function ([`ui`]) and driven by [`runtime`].

pub mod app;
pub mod canonical;
pub mod cli;
pub mod config;
pub mod decode;
pub mod discover;
pub mod fetch;
pub mod import;
pub mod ingest;
pub mod inspect;
pub mod markup;
pub mod model;
pub mod opml;
pub mod parse;
pub mod refresh;
pub mod render;
pub mod runtime;
pub mod sanitize;
pub mod store;
pub mod text;
pub mod ui;
