//! Which feeds a run fetches, and in what order: the ones left alone (paused, gone, asked to wait) and the rest
//! spread over their hosts.

use crate::fetch::host_key;
use crate::model::Skip;
use crate::store::feeds::RefreshTarget;
use std::collections::{HashMap, VecDeque};

/// The targets reordered round-robin by host (first feed of each host, then the second of each, …), keeping
/// each host's own order: the first feeds to start are spread over as many hosts as possible.
pub(super) fn interleave_by_host(targets: Vec<RefreshTarget>) -> Vec<RefreshTarget> {
    let total = targets.len();
    let mut order: Vec<String> = Vec::new();
    let mut by_host: HashMap<String, VecDeque<RefreshTarget>> = HashMap::new();
    for target in targets {
        let host = host_key(&target.url);
        by_host
            .entry(host)
            .or_insert_with_key(|host| {
                order.push(host.clone());
                VecDeque::new()
            })
            .push_back(target);
    }
    let mut queues: Vec<VecDeque<RefreshTarget>> = order.iter().filter_map(|host| by_host.remove(host)).collect();
    let mut out = Vec::with_capacity(total);
    while out.len() < total {
        for queue in &mut queues {
            out.extend(queue.pop_front());
        }
    }
    out
}

/// Why a feed is left alone, if it is. A paused feed always is (the user paused it: resuming it is how it comes
/// back); a forced refresh (the user asked for that very feed) fetches the others. A feed that is gone or failing
/// waits out its backoff — at most a day, so nothing is given up on.
pub(super) fn skip_reason(target: &RefreshTarget, now: i64, force: bool) -> Option<Skip> {
    if target.paused {
        return Some(Skip::Paused);
    }
    if force {
        return None;
    }
    let waiting = target.retry_at.filter(|at| *at > now);
    match waiting {
        Some(_) if target.dead => Some(Skip::Gone),
        Some(until) => Some(Skip::Waiting { until }),
        None => None,
    }
}
