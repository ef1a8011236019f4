//! From fetched bytes to a parsed feed: decode, with the parser as the judge of each candidate text, so a
//! mislabelled feed falls back to the encoding that gives a feed. Pure: bytes in, values out.

use crate::decode::{self, Decision, Failure, Rejection};
use crate::model::{ErrorKind, ParsedFeed};
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
    #[error("{error}")]
    Parse { error: ParseError, decision: Box<Decision> },
}

impl IngestError {
    /// A short, stable name for the kind of failure, stored with the feed.
    pub fn kind(&self) -> ErrorKind {
        match self {
            IngestError::Decode(_) => ErrorKind::Decode,
            IngestError::Parse { error: ParseError::Html | ParseError::NotAFeed(_), .. } => ErrorKind::NotAFeed,
            IngestError::Parse { error: ParseError::Malformed(_), .. } => ErrorKind::Parse,
        }
    }

    /// The decoding decision, when decoding got as far as one.
    pub fn decision(&self) -> Option<&Decision> {
        match self {
            IngestError::Parse { decision, .. } => Some(decision),
            IngestError::Decode(_) => None,
        }
    }
}

/// Decodes and parses a feed document. `content_type` is the HTTP header (`None` for a file); `url` resolves
/// relative links and hints the detector with its top-level domain; `forced` is an encoding the user chose.
pub fn ingest(
    bytes: &[u8],
    content_type: Option<&str>,
    url: Option<&str>,
    forced: Option<&str>,
) -> Result<Ingested, IngestError> {
    let tld = url.and_then(decode::tld_of);
    let options = decode::Options { content_type, forced, tld: tld.as_deref() };
    let judge = |text: &str| {
        parse::parse(text, url).map_err(|error| {
            // An HTML page stays an HTML page in every encoding; anything else may read better in another.
            let retry = !matches!(error, ParseError::Html);
            Rejection { error, retry }
        })
    };
    match decode::decode_with(bytes, &options, judge) {
        Ok((feed, decision)) => Ok(Ingested { feed, decision }),
        Err(Failure::Decode(e)) => Err(IngestError::Decode(e)),
        Err(Failure::Rejected { error, decision }) => Err(IngestError::Parse { error, decision }),
    }
}
