//! What a server answering over HTTP/2 changes (see the module's notes): its requests share one connection, so
//! its host's revalidations to it need not wait for connections, nor keep theirs for one another. Learned from
//! an answer of its own ([`Turn::answered_over`]), and forgotten once its host has no revalidation in flight or
//! waiting: the connection they shared goes with them (the client closes it once idle for 90 s; pictures,
//! articles and downloads go by clients of their own), and requests sent at once before a connection is open
//! would each open their own. Another server's revalidation in flight keeps it for as long as that one lasts:
//! the fetch timeout at most (30 s unless set longer), within which the shared connection stays open.

use super::{Host, Turn, Weight};

/// Which of a host's servers a request goes to: its scheme and port.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Origin {
    pub(super) secure: bool,
    pub(super) port: u16,
}

/// The host a URL names, lowercased, and which of its servers: the scheme and port. Most feeds' addresses are
/// read without the URL parser (a refresh asks this three times per feed).
pub(super) fn host_and_origin(url: &str) -> (String, Origin) {
    if let Some(plain) = crate::canonical::plain_web_address(url) {
        return (plain.host.to_string(), Origin { secure: plain.secure, port: plain.port_or_default() });
    }
    parsed_host_and_origin(url)
}

/// [`host_and_origin`] by the URL parser, for any address.
fn parsed_host_and_origin(url: &str) -> (String, Origin) {
    let Ok(url) = url::Url::parse(url) else { return Default::default() };
    let origin = Origin { secure: url.scheme() == "https", port: url.port_or_known_default().unwrap_or(0) };
    (url.host_str().map(str::to_ascii_lowercase).unwrap_or_default(), origin)
}

impl Host {
    /// Whether requests to `origin` share the connection open to it.
    pub(super) fn shares_connection(&self, origin: Origin) -> bool {
        self.multiplexing == Some(origin)
    }

    /// Forgets its server on HTTP/2 once it has no revalidation in flight or waiting (see the module's notes).
    pub(super) fn forget_multiplexing_when_done(&mut self) {
        if self.multiplexing.is_some()
            && self.revalidating == 0
            && !self.waiting.iter().any(|&(weight, ..)| weight == Weight::Revalidation)
        {
            self.multiplexing = None;
        }
    }
}

impl Turn {
    /// This request's server answered over HTTP/2 (`multiplexed`) or HTTP/1: from now on, while its host has
    /// revalidations in flight or waiting, those to that server wait for no connection when it multiplexes, and
    /// do again when it no longer does.
    pub fn answered_over(&self, multiplexed: bool) {
        let mut state = self.shared.lock();
        let Some(host) = state.hosts.get_mut(&self.host) else { return };
        let before = host.multiplexing;
        if multiplexed {
            host.multiplexing = Some(self.origin);
        } else if before == Some(self.origin) {
            host.multiplexing = None;
        }
        if host.multiplexing != before {
            // Its revalidations waiting may go now.
            state.settle(&self.host, self.shared.per_host);
            state.hand_out(&self.shared);
        }
    }
}
