//! From fetched bytes to a parsed feed: decode, then parse. Pure: the fetcher hands in bytes, the caller gets
//! values back.

use crate::decode::{self, Decision};
use crate::model::ParsedFeed;
use crate::parse::{self, ParseError};

/// A feed read from bytes, with the decoding decision that made its text.
#[derive(Clone, Debug)]
pub struct Ingested {
    pub feed: ParsedFeed,
    pub decision: Decision,
}

#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    #[error("cannot decode the document: {0}")]
    Decode(#[from] decode::DecodeError),
    #[error("{0}")]
    Parse(#[from] ParseError),
}

impl IngestError {
    /// A short, stable name for the kind of failure, stored with the feed.
    pub fn kind(&self) -> &'static str {
        match self {
            IngestError::Decode(_) => "decode",
            IngestError::Parse(ParseError::Html) => "not-a-feed",
            IngestError::Parse(ParseError::NotAFeed(_)) => "not-a-feed",
            IngestError::Parse(ParseError::Malformed(_)) => "parse",
        }
    }
}

/// Decodes and parses a feed document. `content_type` is the HTTP header (`None` for a file); `url` resolves
/// relative links; `forced` is an encoding the user chose for this feed.
pub fn ingest(
    bytes: &[u8],
    content_type: Option<&str>,
    url: Option<&str>,
    forced: Option<&str>,
) -> Result<Ingested, IngestError> {
    let decoded = decode::decode(bytes, content_type, forced)?;
    let feed = parse::parse(&decoded.text, url)?;
    Ok(Ingested { feed, decision: decoded.decision })
}
