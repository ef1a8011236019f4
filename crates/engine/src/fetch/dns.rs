//! The DNS cache every client of a [`super::Fetcher`] resolves names through: the system resolver's answers kept
//! for a while, and shared by lookups of one name at the same time. It only resolves names; which of the
//! addresses a fetch may connect to is [`super::reach`]'s.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a DNS answer is reused: long enough to cover a refresh, short enough to follow a host that moves.
const DNS_TTL: Duration = Duration::from_secs(300);

/// The system resolver (getaddrinfo, on tokio's blocking pool) with its answers kept for [`DNS_TTL`]: a refresh
/// opening several connections to one host looks it up once, and lookups of one name at the same time share
/// one query. Failures are not kept (the next connection asks again); expired answers are dropped when many
/// hosts have been seen.
#[derive(Clone, Default)]
pub(super) struct DnsCache(Arc<DnsCacheInner>);

impl DnsCache {
    /// How many host names it looked up (the others came from its cache).
    pub(super) fn lookups(&self) -> usize {
        self.0.lookups.load(Ordering::Relaxed)
    }
}

#[derive(Default)]
struct DnsCacheInner {
    answers: Mutex<HashMap<String, Arc<DnsAnswer>>>,
    lookups: AtomicUsize,
}

struct DnsAnswer {
    asked_at: Instant,
    addrs: tokio::sync::OnceCell<Result<Vec<SocketAddr>, String>>,
}

impl reqwest::dns::Resolve for DnsCache {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let answer = {
            let mut answers = self.0.answers.lock().unwrap_or_else(|e| e.into_inner());
            match answers.get(&host) {
                Some(answer) if answer.asked_at.elapsed() < DNS_TTL => answer.clone(),
                _ => {
                    if answers.len() >= 4096 {
                        answers.retain(|_, answer| answer.asked_at.elapsed() < DNS_TTL);
                    }
                    let answer = Arc::new(DnsAnswer { asked_at: Instant::now(), addrs: Default::default() });
                    answers.insert(host.clone(), answer.clone());
                    answer
                }
            }
        };
        let cache = self.0.clone();
        Box::pin(async move {
            let addrs = answer
                .addrs
                .get_or_init(|| async {
                    cache.lookups.fetch_add(1, Ordering::Relaxed);
                    match tokio::net::lookup_host((host.as_str(), 0)).await {
                        Ok(found) => {
                            let addrs: Vec<SocketAddr> = found.collect();
                            if addrs.is_empty() { Err("the name has no addresses".to_string()) } else { Ok(addrs) }
                        }
                        Err(e) => Err(e.to_string()),
                    }
                })
                .await;
            match addrs {
                Ok(addrs) => Ok(Box::new(addrs.clone().into_iter()) as reqwest::dns::Addrs),
                Err(e) => {
                    let mut answers = cache.answers.lock().unwrap_or_else(|e| e.into_inner());
                    if answers.get(&host).is_some_and(|a| Arc::ptr_eq(a, &answer)) {
                        answers.remove(&host);
                    }
                    Err(Box::new(std::io::Error::other(format!("failed to lookup address: {e}"))) as _)
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn dns_answers_are_cached_and_shared_by_lookups_at_the_same_time() {
        use reqwest::dns::Resolve;
        let cache = DnsCache::default();
        let name = || "LocalHost".parse::<reqwest::dns::Name>().unwrap();
        let at_once: Vec<_> = (0..8).map(|_| cache.resolve(name())).collect();
        for resolving in at_once {
            let addrs: Vec<SocketAddr> = resolving.await.unwrap().collect();
            assert!(addrs.iter().all(|a| a.ip().is_loopback()) && !addrs.is_empty(), "{addrs:?}");
        }
        let later: Vec<SocketAddr> = cache.resolve(name()).await.unwrap().collect();
        assert!(!later.is_empty());
        assert_eq!(cache.0.lookups.load(Ordering::Relaxed), 1, "one lookup for nine connections");
    }
}
