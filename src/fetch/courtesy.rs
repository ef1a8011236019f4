//! Courtesy toward servers, shared by everything that fetches on the user's behalf — feeds, full articles and
//! (later) pictures: at most so many requests in flight at once, and never more than `per_host` to one host.
//! Both limits are shared by every clone, so two refreshes at once (a key press during an automatic refresh)
//! and a full-text fetch beside them are still polite together.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, SemaphorePermit};

/// The limits, and the hosts with a request in flight or waiting. Cheap to clone; clones share the limits.
#[derive(Clone)]
pub struct Courtesy(Arc<Limits>);

struct Limits {
    in_flight: Semaphore,
    per_host: usize,
    /// One semaphore of `per_host` permits for each host with a request in flight or waiting.
    hosts: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// A place in a host's queue; the host may take the next request once it is dropped.
pub struct HostTurn {
    _permit: OwnedSemaphorePermit,
}

impl Courtesy {
    /// At most `in_flight` requests at once — fewer when the process may not open enough files for that many
    /// connections (see [`super::socket_budget`]) — and `per_host` to one host.
    pub fn new(in_flight: usize, per_host: usize) -> Courtesy {
        let in_flight_allowed = in_flight.min(super::socket_budget()).max(1);
        if in_flight_allowed < in_flight {
            tracing::info!(
                "{in_flight_allowed} requests at once, not {in_flight}: the open-files limit allows no more"
            );
        }
        Courtesy(Arc::new(Limits {
            in_flight: Semaphore::new(in_flight_allowed),
            per_host: per_host.max(1),
            hosts: Mutex::default(),
        }))
    }

    /// Waits for `url`'s host to take one more request. Taken before a global slot, so a busy host's backlog
    /// holds no slot that another host could use.
    pub async fn host_turn(&self, url: &str) -> HostTurn {
        let host = {
            let mut hosts = self.0.hosts.lock().unwrap_or_else(|e| e.into_inner());
            hosts.entry(host_key(url)).or_insert_with(|| Arc::new(Semaphore::new(self.0.per_host))).clone()
        };
        HostTurn { _permit: host.acquire_owned().await.expect("host semaphores are never closed") }
    }

    /// Waits for one of the global slots.
    pub async fn slot(&self) -> SemaphorePermit<'_> {
        self.0.in_flight.acquire().await.expect("the courtesy semaphore is never closed")
    }

    /// Drops the semaphores of hosts nobody is waiting on, so the map does not grow with every host ever seen.
    pub fn forget_idle_hosts(&self) {
        let per_host = self.0.per_host;
        let mut hosts = self.0.hosts.lock().unwrap_or_else(|e| e.into_inner());
        hosts.retain(|_, limit| Arc::strong_count(limit) > 1 || limit.available_permits() < per_host);
    }
}

/// The host a URL names, lowercased; per-host limits count by it.
pub fn host_key(url: &str) -> String {
    url::Url::parse(url).ok().and_then(|u| u.host_str().map(str::to_ascii_lowercase)).unwrap_or_default()
}
