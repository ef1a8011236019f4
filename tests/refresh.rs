//! Refreshing against loopback servers with a real SQLite file: identity, updates and read state across
//! refreshes; per-host limits, host interleaving and how many requests go at once on a farm of loopback hosts;
//! results stored all-or-nothing per feed; the cap on "fetch less often"; and the one final event every feed gets,
//! even when its task dies.

mod support;

use std::collections::HashMap;
use std::time::Duration;
use support::server::{Farm, Reply, Server};
use support::{Sandbox, opml, rss};
use tidings::fetch::{Courtesy, FetchConfig, FetchOutcome, Fetcher, Validators};
use tidings::model::{ErrorKind, FeedId, UserWrite};
use tidings::refresh::{RefreshEvent, Refresher, Summary, Which};
use tidings::store::{self, DbThread, entries, feeds, fetches};

struct Setup {
    server: Server,
    sandbox: Sandbox,
    writer: DbThread,
    refresher: Refresher,
}

fn setup(routes: &[(&str, Reply)]) -> Setup {
    let server = Server::start();
    for (path, reply) in routes {
        server.route(path, reply.clone());
    }
    let sandbox = Sandbox::new();
    let urls: Vec<String> = routes.iter().map(|(p, _)| server.url(p)).collect();
    let writer = subscribe(&sandbox, &urls);
    let refresher = Refresher::new(fetcher(), Courtesy::new(4, 4), writer.clone());
    Setup { server, sandbox, writer, refresher }
}

/// Subscribes the sandbox's database to `urls` (each titled by its address); returns its writer thread.
fn subscribe(sandbox: &Sandbox, urls: &[String]) -> DbThread {
    let list: Vec<(Option<&str>, &str, &str)> = urls.iter().map(|u| (None, u.as_str(), u.as_str())).collect();
    let file = sandbox.write("subs.opml", opml(&list));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    DbThread::spawn("test-writer", store::open_write(&sandbox.db()).unwrap())
}

fn fetcher() -> Fetcher {
    Fetcher::new(FetchConfig {
        connect_timeout: Duration::from_secs(5),
        timeout: Duration::from_secs(5),
        max_body_bytes: 1 << 20,
    })
    .unwrap()
}

/// Feed ids by URL.
async fn feed_ids(writer: &DbThread) -> HashMap<String, FeedId> {
    writer.call(|c| Ok(feeds::feeds(c)?.into_iter().map(|f| (f.url, f.id)).collect())).await.unwrap()
}

/// A reporter that sends every event to a channel the test reads, and that channel.
fn events() -> (impl Fn(RefreshEvent) + Send + Sync + 'static, tokio::sync::mpsc::UnboundedReceiver<RefreshEvent>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    (move |ev| tx.send(ev).unwrap_or(()), rx)
}

/// Every event left in the channel, once its sender is gone.
async fn all_events(mut rx: tokio::sync::mpsc::UnboundedReceiver<RefreshEvent>) -> Vec<RefreshEvent> {
    let mut out = Vec::new();
    while let Some(ev) = rx.recv().await {
        out.push(ev);
    }
    out
}

/// The final events of one feed.
fn finals_of(events: &[RefreshEvent], feed: FeedId) -> Vec<&RefreshEvent> {
    events.iter().filter(|ev| ev.feed_id() == feed && ev.is_final()).collect()
}

async fn refresh(s: &Setup) -> Summary {
    s.refresher.run(Which::All, false, |_| {}).await.unwrap()
}

fn db(s: &Setup) -> rusqlite::Connection {
    rusqlite::Connection::open(s.sandbox.db()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refreshing_three_times_never_duplicates_and_keeps_read_state() {
    let items = [("g1", "One", "<p>1</p>"), ("g2", "Two", "<p>2</p>"), ("g3", "Three", "<p>3</p>")];
    let s = setup(&[("/feed.xml", Reply::ok("application/rss+xml", rss("Feed", &items)))]);

    let first = refresh(&s).await;
    assert_eq!((first.updated_feeds, first.new_entries), (1, 3));
    let feed_id = s.writer.call(|c| Ok(feeds::feeds(c)?[0].id)).await.unwrap();
    let entries = s.writer.call(move |c| entries::of_feed(c, feed_id)).await.unwrap();
    let two = entries.iter().find(|e| e.title.as_deref() == Some("Two")).unwrap().id;
    s.writer.call(move |c| store::apply(c, &UserWrite::SetRead { ids: vec![two], read: true }, 0)).await.unwrap();

    // The server changes one title and one body; a second and third refresh update in place.
    let changed =
        [("g1", "One", "<p>1</p>"), ("g2", "Two, corrected", "<p>2</p>"), ("g3", "Three", "<p>3, longer</p>")];
    s.server.route("/feed.xml", Reply::ok("application/rss+xml", rss("Feed", &changed)));
    let second = refresh(&s).await;
    assert_eq!(second.new_entries, 0);
    let third = refresh(&s).await;
    assert_eq!(third.new_entries, 0);

    let conn = db(&s);
    let count: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 3, "no duplicates after three refreshes");
    let (title, is_read): (String, bool) = conn
        .query_row("SELECT title, read FROM entries WHERE id = ?1", [two.0], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((title.as_str(), is_read), ("Two, corrected", true), "updated without touching the read flag");
    let body: String = conn.query_row("SELECT content_html FROM entries WHERE key = 'g3'", [], |r| r.get(0)).unwrap();
    assert_eq!(body, "<p>3, longer</p>");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_guid_in_two_feeds_is_two_entries() {
    let items = [("shared-guid", "Same id", "<p>x</p>")];
    let s = setup(&[
        ("/a.xml", Reply::ok("application/rss+xml", rss("A", &items))),
        ("/b.xml", Reply::ok("application/rss+xml", rss("B", &items))),
    ]);
    refresh(&s).await;
    let count: i64 =
        db(&s).query_row("SELECT count(*) FROM entries WHERE key = 'shared-guid'", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_without_guids_are_matched_by_their_canonical_link() {
    let first = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>F</title><link>http://x.example.com/</link>\
                 <description>d</description><item><title>Post</title><link>http://X.example.com/post/?utm_source=rss</link></item>\
                 </channel></rss>";
    let second = first.replace("?utm_source=rss", "?utm_source=twitter&amp;fbclid=1");
    let s = setup(&[("/f.xml", Reply::ok("application/rss+xml", first))]);
    refresh(&s).await;
    s.server.route("/f.xml", Reply::ok("application/rss+xml", second));
    let summary = refresh(&s).await;
    assert_eq!(summary.new_entries, 0, "a tracking parameter does not make a new entry");
    let count: i64 = db(&s).query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(count, 1);
}

fn good(title: &str) -> Reply {
    Reply::ok("application/rss+xml", rss(title, &[("1", "First", "<p>1</p>"), ("2", "Second", "<p>2</p>")]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_whose_task_panics_still_ends_with_one_failed_event_and_the_others_refresh() {
    let s = setup(&[("/a.xml", good("A")), ("/crash.xml", good("Crash")), ("/c.xml", good("C"))]);
    let crash = s.server.url("/crash.xml");
    let doomed = crash.clone();
    let refresher = s.refresher.clone().with_test_hook(move |url| assert_ne!(url, doomed, "a bug in tidings"));
    let (report, rx) = events();
    let summary = refresher.run(Which::All, false, report).await.unwrap();
    drop(refresher);
    let events = all_events(rx).await;

    let ids = feed_ids(&s.writer).await;
    for (url, id) in &ids {
        assert_eq!(finals_of(&events, *id).len(), 1, "{url}: exactly one final event in {events:#?}");
    }
    let crashed = finals_of(&events, ids[&crash])[0];
    let RefreshEvent::Failed { kind, message, .. } = crashed else { panic!("{crashed:?}") };
    assert_eq!(*kind, ErrorKind::Internal);
    assert!(message.contains("a bug in tidings") && message.contains("next refresh"), "{message}");
    assert_eq!((summary.feeds, summary.updated_feeds, summary.failed.len()), (3, 2, 1), "{summary:?}");
    let stored: String =
        db(&s).query_row("SELECT error_kind FROM feeds WHERE url = ?1", [&crash], |r| r.get(0)).unwrap();
    assert_eq!(stored, "internal", "the feed list shows the failure too");
}

/// A refresh reading in place (as `tidings refresh` does) reads a small document where its task stands and a big
/// one on the blocking pool (`tidings::refresh::READ_IN_PLACE_BYTES`): each is stored, and a panic while reading
/// either fails that feed alone, with the reading named, on both paths.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn small_and_big_documents_are_read_and_a_crash_while_reading_either_fails_that_feed_alone() {
    let body = "<p>".to_string() + &"word ".repeat(200) + "</p>";
    let keys: Vec<String> = (0..300).map(|i| format!("g{i}")).collect();
    let many: Vec<(&str, &str, &str)> = keys.iter().map(|k| (k.as_str(), "Item", body.as_str())).collect();
    let (small, big) = (rss("Small", &many[..3]), rss("Big", &many));
    assert!(small.len() <= tidings::refresh::READ_IN_PLACE_BYTES && big.len() > tidings::refresh::READ_IN_PLACE_BYTES);
    let reply = |doc: &String| Reply::ok("application/rss+xml", doc.clone());
    let s = setup(&[
        ("/small.xml", reply(&small)),
        ("/big.xml", reply(&big)),
        ("/small-crash.xml", reply(&small)),
        ("/big-crash.xml", reply(&big)),
    ]);
    let doomed = [s.server.url("/small-crash.xml"), s.server.url("/big-crash.xml")];
    let refresher = s.refresher.clone().reading_in_place().with_reading_hook({
        let doomed = doomed.clone();
        move |url| assert!(!doomed.iter().any(|d| d == url), "a bug in the parser")
    });
    let (report, rx) = events();
    let summary = refresher.run(Which::All, false, report).await.unwrap();
    drop(refresher);
    let events = all_events(rx).await;

    let ids = feed_ids(&s.writer).await;
    for (path, new) in [("/small.xml", 3), ("/big.xml", 300)] {
        let finals = finals_of(&events, ids[&s.server.url(path)]);
        assert!(matches!(finals[..], [RefreshEvent::Done { new: n, .. }] if *n == new), "{path}: {finals:#?}");
    }
    for url in &doomed {
        let finals = finals_of(&events, ids[url]);
        let [RefreshEvent::Failed { kind, message, .. }] = finals[..] else { panic!("{url}: {finals:#?}") };
        assert_eq!(*kind, ErrorKind::Internal, "{url}");
        assert!(message.starts_with("reading the feed crashed (a bug in the parser)"), "{url}: {message}");
    }
    assert_eq!((summary.updated_feeds, summary.failed.len(), summary.new_entries), (2, 2, 303), "{summary:?}");
}

/// A run asked for the same feed twice (two views naming it) fetches it once and reports it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_named_twice_in_one_run_is_refreshed_once() {
    let s = setup(&[("/a.xml", good("A"))]);
    let id = feed_ids(&s.writer).await[&s.server.url("/a.xml")];
    let (report, rx) = events();
    let summary = s.refresher.run(Which::Feeds(vec![id, id]), false, report).await.unwrap();
    let events = all_events(rx).await;
    assert_eq!(finals_of(&events, id).len(), 1, "{events:#?}");
    assert_eq!((summary.feeds, summary.updated_feeds), (1, 1), "{summary:?}");
    assert_eq!(s.server.requests_for("/a.xml").len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_dropped_midway_ends_each_unfinished_feed_with_a_failed_event() {
    let s = setup(&[
        ("/quick.xml", good("Quick")),
        ("/stuck.xml", Reply::Delay(Duration::from_secs(60), Box::new(good("Stuck")))),
        ("/behind.xml", good("Behind")),
    ]);
    let ids = feed_ids(&s.writer).await;
    let (quick, stuck, behind) =
        (ids[&s.server.url("/quick.xml")], ids[&s.server.url("/stuck.xml")], ids[&s.server.url("/behind.xml")]);
    let (report, mut rx) = events();
    // One request to the host at a time, in the feeds' order: the third still waits for its turn (it has no
    // task yet) while the second is stuck.
    let refresher = Refresher::new(fetcher(), Courtesy::new(4, 1), s.writer.clone());
    let run = tokio::spawn(async move { refresher.run(Which::All, false, report).await });
    // Wait until the quick feed is done and the stuck one is being fetched, then give up on the run.
    let mut seen = Vec::new();
    while !(seen.iter().any(|ev: &RefreshEvent| ev.feed_id() == quick && ev.is_final())
        && seen.iter().any(|ev| matches!(ev, RefreshEvent::Started { feed_id } if *feed_id == stuck)))
    {
        seen.push(tokio::time::timeout(Duration::from_secs(20), rx.recv()).await.unwrap().unwrap());
    }
    run.abort();
    assert!(run.await.unwrap_err().is_cancelled());
    seen.extend(all_events(rx).await);

    assert_eq!(finals_of(&seen, quick).len(), 1, "{seen:#?}");
    let stopped = finals_of(&seen, stuck);
    assert_eq!(stopped.len(), 1, "the stuck feed is not left pending: {seen:#?}");
    let waited = finals_of(&seen, behind);
    assert_eq!(waited.len(), 1, "the feed still waiting for its turn is not left pending: {seen:#?}");
    assert!(!seen.iter().any(|ev| matches!(ev, RefreshEvent::Started { feed_id } if *feed_id == behind)));
    for ev in [stopped[0], waited[0]] {
        let RefreshEvent::Failed { kind, message, .. } = ev else { panic!("{ev:?}") };
        assert_eq!(*kind, ErrorKind::Internal);
        assert!(message.contains("stopped before this feed was done"), "{message}");
    }
}

/// Requests to host 0 of a farm of three wait, unanswered, until the test releases them; the other two hosts'
/// feeds must be done meanwhile, and no host ever sees more than its limit.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_busy_hosts_queue_holds_no_other_host_back_and_no_host_sees_more_than_its_limit() {
    let farm = Farm::start(3, Duration::ZERO).unwrap();
    let mut urls = Vec::new();
    for f in 0..24 {
        let path = format!("/big/{f}.xml");
        farm.route(&path, good(&format!("Big {f}")));
        urls.push(farm.url(0, &path));
    }
    for (host, name) in [(1, "b"), (2, "c")] {
        for f in 0..3 {
            let path = format!("/{name}/{f}.xml");
            farm.route(&path, good(&format!("{name} {f}")));
            urls.push(farm.url(host, &path));
        }
    }
    let sandbox = Sandbox::new();
    let writer = subscribe(&sandbox, &urls);
    let refresher = Refresher::new(fetcher(), Courtesy::new(4, 2), writer.clone());
    farm.hold(0);
    let (report, mut rx) = events();
    let run = tokio::spawn(async move { refresher.run(Which::All, false, report).await.unwrap() });

    let others: Vec<FeedId> =
        feed_ids(&writer).await.into_iter().filter(|(url, _)| !url.contains("/big/")).map(|(_, id)| id).collect();
    let mut done = Vec::new();
    while !others.iter().all(|id| done.contains(id)) {
        let ev = tokio::time::timeout(Duration::from_secs(20), rx.recv()).await.expect("the other hosts finish");
        let ev = ev.unwrap();
        if ev.is_final() {
            assert!(matches!(ev, RefreshEvent::Done { .. }), "{ev:?}");
            done.push(ev.feed_id());
        }
    }
    // The busy host's two requests may still be on their way to it (a new connection each) when the others are
    // done: poll, with a deadline, until it holds them, then check it holds no more than its limit.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while farm.peak_of(0) < 2 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    assert_eq!(farm.peak_of(0), 2, "the busy host has exactly its limit waiting");
    farm.release(0);
    let summary = run.await.unwrap();
    assert_eq!((summary.feeds, summary.updated_feeds), (30, 30), "{summary:?}");
    assert_eq!(farm.peak_per_host(), 2, "no host saw more than per_host_concurrency requests at once");
}

/// `tidings refresh` runs its requests on one thread, where tasks run in turn: a refresh that started every feed
/// its turns allow before letting the others run would open its first wave's every connection before it wrote
/// any request. So there, a feed's task and whatever else is ready run before the next feed starts: a probe task
/// that counts its turns has run between any two feeds' `Started` events.
#[tokio::test] // One thread, as `tidings refresh`.
async fn on_one_thread_a_refresh_lets_other_tasks_run_between_the_feeds_it_starts() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    let farm = Farm::start(8, Duration::ZERO).unwrap();
    let mut urls = Vec::new();
    for f in 0..16 {
        let path = format!("/f/{f}.xml");
        farm.route(&path, good(&format!("Feed {f}")));
        urls.push(farm.url(f % 8, &path));
    }
    let sandbox = Sandbox::new();
    let writer = subscribe(&sandbox, &urls);
    // Every feed's turn comes at once: sixteen slots, two on each of the eight hosts.
    let refresher = Refresher::new(fetcher(), Courtesy::new(16, 2), writer);
    let turns = Arc::new(AtomicUsize::new(0));
    let probe = tokio::spawn({
        let turns = turns.clone();
        async move {
            loop {
                turns.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
            }
        }
    });
    let seen = Arc::new(Mutex::new(Vec::new()));
    let report = {
        let (turns, seen) = (turns.clone(), seen.clone());
        move |ev: RefreshEvent| {
            if matches!(ev, RefreshEvent::Started { .. }) {
                seen.lock().unwrap().push(turns.load(Ordering::SeqCst));
            }
        }
    };
    let summary = refresher.run(Which::All, false, report).await.unwrap();
    probe.abort();
    assert_eq!((summary.feeds, summary.updated_feeds), (16, 16), "{summary:?}");
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), 16);
    let ran_between = seen.windows(2).filter(|pair| pair[1] > pair[0]).count();
    assert_eq!(ran_between, 15, "the probe's turns at each feed's start: {seen:?}");
}

/// A refresh of feeds that all changed since the last one — every request sends validators, every answer is a
/// whole new document — sends about as many requests at once as a cold refresh does. Before any answer a
/// revalidation is taken for three quarters of a slot (two slots hold two, as they hold two documents), and for a
/// whole one once its documents show it; taken for a quarter from the start, the first eight here would have gone
/// at once, their documents waiting for the memory budget. Then a refresh of the same feeds unchanged sends more
/// at once as its 304s come back.
#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refresh_of_changed_feeds_sends_about_as_many_at_once_as_a_cold_one_and_304s_let_more_go() {
    let farm = Farm::start(12, Duration::from_millis(50)).unwrap();
    let version = |path: &str, v: usize| {
        let items = [(format!("{path}#{v}"), format!("Version {v}")), (format!("{path}#0"), "First".to_string())];
        let items: Vec<(&str, &str, &str)> = items.iter().map(|(g, t)| (g.as_str(), t.as_str(), "<p>x</p>")).collect();
        Reply::ok("application/rss+xml", rss(path, &items)).with_header("ETag", &format!("\"{v}\""))
    };
    let mut urls = Vec::new();
    for host in 0..farm.hosts() {
        for f in 0..2 {
            let path = format!("/{host}/{f}.xml");
            farm.route(&path, version(&path, 1));
            urls.push(farm.url(host, &path));
        }
    }
    let sandbox = Sandbox::new();
    let writer = subscribe(&sandbox, &urls);
    let refresher = Refresher::new(fetcher(), Courtesy::new(2, 6), writer.clone());
    let (report, _rx) = events();
    let cold = refresher.run(Which::All, false, report).await.unwrap();
    assert_eq!((cold.feeds, cold.updated_feeds, cold.new_entries), (24, 24, 48), "{cold:?}");
    assert_eq!(farm.peak_all_hosts(), 2, "a cold refresh: two documents at once");

    // A day later, every feed has one entry more and a new ETag.
    for (host, f) in (0..farm.hosts()).flat_map(|host| (0..2).map(move |f| (host, f))) {
        let path = format!("/{host}/{f}.xml");
        farm.route(&path, version(&path, 2));
    }
    farm.reset_counts();
    let (report, _rx) = events();
    let changed = refresher.run(Which::All, false, report).await.unwrap();
    assert_eq!((changed.feeds, changed.updated_feeds, changed.new_entries), (24, 24, 24), "{changed:?}");
    assert_eq!(farm.requests(), 24);
    assert_eq!(farm.peak_all_hosts(), 2, "every feed changed: two slots, two at once, as for documents");

    // Nothing changed since: as the 304s come back (to a process started afresh), more go at once.
    farm.reset_counts();
    let refresher = Refresher::new(fetcher(), Courtesy::new(2, 6), writer.clone());
    let (report, _rx) = events();
    let unchanged = refresher.run(Which::All, false, report).await.unwrap();
    assert_eq!((unchanged.feeds, unchanged.not_modified, unchanged.new_entries), (24, 24, 0), "{unchanged:?}");
    let at_once = farm.peak_all_hosts();
    assert!((3..=8).contains(&at_once), "304s make revalidations cheaper, up to four to a slot: {at_once} at once");
}

/// A feed whose second entry the database refuses (a trigger stands for any failure half-way through) fails
/// alone and leaves no trace — not its first entry, not its new state — while the feeds stored in the same
/// transactions are kept whole.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_that_cannot_be_stored_whole_leaves_no_trace_and_fails_alone() {
    let poisoned = rss("Poisoned", &[("fine", "Fine", "<p>1</p>"), ("poison", "Poison", "<p>2</p>")]);
    let mut routes =
        vec![("/poisoned.xml".to_string(), Reply::ok("application/rss+xml", poisoned).with_header("ETag", "\"p\""))];
    routes.extend((0..20).map(|f| (format!("/f{f}.xml"), good(&format!("F{f}")))));
    let routes: Vec<(&str, Reply)> = routes.iter().map(|(p, r)| (p.as_str(), r.clone())).collect();
    let s = setup(&routes);
    s.writer
        .call(|c| {
            Ok(c.execute_batch(
                "CREATE TRIGGER poison BEFORE INSERT ON entries WHEN NEW.key = 'poison'
                 BEGIN SELECT RAISE(ABORT, 'poisoned entry'); END;",
            )?)
        })
        .await
        .unwrap();
    let (report, rx) = events();
    let summary = s.refresher.run(Which::All, false, report).await.unwrap();
    let events = all_events(rx).await;

    let url = s.server.url("/poisoned.xml");
    let failed = finals_of(&events, feed_ids(&s.writer).await[&url]);
    assert!(matches!(failed[..], [RefreshEvent::Failed { kind: ErrorKind::Store, .. }]), "{failed:?}");
    assert_eq!((summary.updated_feeds, summary.failed.len()), (20, 1), "{summary:?}");
    let conn = db(&s);
    let (entries, etag, fetched): (i64, Option<String>, Option<i64>) = conn
        .query_row(
            "SELECT (SELECT count(*) FROM entries WHERE feed_id = f.id), etag, last_fetched_at FROM feeds f WHERE url = ?1",
            [&url],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((entries, etag, fetched), (0, None, None), "nothing of the failed feed was kept");
    let kept: i64 = conn.query_row("SELECT count(*) FROM entries", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, 40, "every other feed stored whole");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_asking_to_be_left_alone_for_a_year_is_still_refreshed_within_a_day() {
    let year = "<?xml version=\"1.0\"?><rss version=\"2.0\"><channel><title>Slow</title><link>http://example.com/</link>\
                <description>d</description><ttl>525600</ttl><item><guid>1</guid><title>One</title></item></channel></rss>";
    let s = setup(&[(
        "/year.xml",
        Reply::ok("application/rss+xml", year).with_header("Cache-Control", "public, max-age=31536000"),
    )]);
    refresh(&s).await;
    let every: i64 = db(&s).query_row("SELECT refresh_every_secs FROM feeds", [], |r| r.get(0)).unwrap();
    assert_eq!(every, tidings::refresh::MAX_REFRESH_EVERY_SECS, "stored capped at a day");

    // A row stored by an older tidings, uncapped, is read capped too.
    db(&s).execute("UPDATE feeds SET refresh_every_secs = 31536000, last_fetched_at = 1000000", []).unwrap();
    let due = |at: i64| s.writer.call(move |c| feeds::due_feeds(c, at, 3600));
    assert!(due(1_000_000 + 86_399).await.unwrap().is_empty(), "not before a day");
    assert_eq!(due(1_000_000 + 86_400).await.unwrap().len(), 1, "but after a day, not a year");
}

/// Feeds that did not change are asked about on few connections: a plain-HTTP host's seven revalidations go out
/// four at a time (one connection for every two), each taking the next in turn as its answer comes, rather than
/// six at once on six new connections. (Over TLS, one connection for every three: see `fetch::courtesy`.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hosts_unchanged_feeds_are_asked_about_on_one_connection_for_every_two_on_plain_http() {
    let farm = Farm::start(1, Duration::from_millis(200)).unwrap();
    let mut urls = Vec::new();
    for f in 0..7 {
        let path = format!("/f{f}.xml");
        farm.route(&path, good(&format!("F{f}")).with_header("ETag", &format!("\"{f}\"")));
        urls.push(farm.url(0, &path));
    }
    let sandbox = Sandbox::new();
    let writer = subscribe(&sandbox, &urls);
    let first = Refresher::new(fetcher(), Courtesy::new(16, 6), writer.clone());
    let summary = first.run(Which::All, false, |_| {}).await.unwrap();
    assert_eq!(summary.updated_feeds, 7, "{summary:?}");
    assert!(farm.peak_of(0) > 3, "documents go up to per_host_concurrency at a time: {}", farm.peak_of(0));
    // A new client, so no connection the first refresh left in its pool serves the second.
    farm.reset_counts();
    let again = Refresher::new(fetcher(), Courtesy::new(16, 6), writer);
    let summary = again.run(Which::All, false, |_| {}).await.unwrap();
    assert_eq!(summary.not_modified, 7, "{summary:?}");
    assert_eq!(farm.peak_of(0), 4, "seven revalidations of one host, four at a time");
    let (opened, _) = farm.connections();
    // Four connections; one more at most when a request misses a connection on its way back to the pool.
    assert!((4..=5).contains(&opened), "{opened} connections for seven revalidations");
}

/// Whether an answer came over HTTP/2 is told of the server asked alone (the refresher then sends that server's
/// revalidations at once or not): an answer of its own, after a redirect within it too, says HTTP/1 here; one
/// from another server it redirected to says nothing of it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_tells_its_protocol_only_of_the_server_that_gave_it() {
    let (home, elsewhere) = (Server::start(), Server::start());
    home.route("/feed.xml", good("Home"));
    home.route("/moved.xml", Reply::status(302).with_header("Location", "/feed.xml"));
    home.route("/away.xml", Reply::status(302).with_header("Location", &elsewhere.url("/feed.xml")));
    elsewhere.route("/feed.xml", good("Elsewhere"));
    let fetcher = fetcher();
    let told = async |url: String| match fetcher.get(&url, &Validators::default()).await.unwrap() {
        FetchOutcome::Fetched(document) => document.multiplexed,
        FetchOutcome::NotModified { multiplexed, .. } => multiplexed,
    };
    assert_eq!(told(home.url("/feed.xml")).await, Some(false), "its own answer, over HTTP/1");
    assert_eq!(told(home.url("/moved.xml")).await, Some(false), "redirected within the same server");
    assert_eq!(told(home.url("/away.xml")).await, None, "answered by another server: nothing of this one");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_name_is_looked_up_once_for_all_its_connections() {
    let server = Server::start();
    let port = server.url("/").trim_start_matches("http://127.0.0.1:").trim_end_matches('/').to_string();
    let mut urls = Vec::new();
    for f in 0..8 {
        let path = format!("/f{f}.xml");
        server.route(&path, Reply::Delay(Duration::from_millis(100), Box::new(good(&format!("F{f}")))));
        urls.push(format!("http://localhost:{port}{path}"));
    }
    let sandbox = Sandbox::new();
    let writer = subscribe(&sandbox, &urls);
    let fetcher = fetcher();
    let refresher = Refresher::new(fetcher.clone(), Courtesy::new(8, 4), writer);
    let summary = refresher.run(Which::All, false, |_| {}).await.unwrap();
    assert_eq!(summary.updated_feeds, 8, "{summary:?}");
    assert!(server.connections() >= 2, "{} connections", server.connections());
    assert_eq!(fetcher.dns_lookups(), 1, "one lookup for {} connections", server.connections());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_feed_listing_more_than_a_refresh_keeps_is_stored_cut_and_says_how_many_it_listed() {
    let listed = fetches::MAX_ENTRIES_PER_REFRESH + 50;
    let keys: Vec<(String, String)> = (0..listed).map(|i| (format!("g{i}"), format!("Post {i}"))).collect();
    let items: Vec<(&str, &str, &str)> = keys.iter().map(|(k, t)| (k.as_str(), t.as_str(), "<p>b</p>")).collect();
    let s = setup(&[("/huge.xml", Reply::ok("application/rss+xml", rss("Huge", &items)))]);
    let (report, rx) = events();
    let summary = s.refresher.run(Which::All, false, report).await.unwrap();
    assert_eq!(summary.new_entries, fetches::MAX_ENTRIES_PER_REFRESH);
    let events = all_events(rx).await;
    let cut = events.iter().find_map(|ev| match ev {
        RefreshEvent::Done { cut_from, .. } => Some(*cut_from),
        _ => None,
    });
    assert_eq!(cut, Some(Some(listed)), "the event names how many the document listed, not how many were kept");
    let warnings: String = db(&s).query_row("SELECT parse_warnings FROM feeds", [], |r| r.get(0)).unwrap();
    assert!(warnings.contains(&format!("lists {listed} entries")), "{warnings}");
    let last: i64 = db(&s).query_row("SELECT count(*) FROM entries WHERE key = 'g4999'", [], |r| r.get(0)).unwrap();
    let past: i64 = db(&s).query_row("SELECT count(*) FROM entries WHERE key = 'g5000'", [], |r| r.get(0)).unwrap();
    assert_eq!((last, past), (1, 0), "the first ones are kept, in document order");
}

/// A feed that sends its whole document at every request (no validators, as many do) is read once: the same
/// bytes again are neither decoded, parsed nor stored, and count as not modified. A changed document, or an
/// encoding forced on the feed, is read again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_document_again_is_not_read_again_and_a_changed_one_or_a_forced_encoding_is() {
    let one = [("g1", "One", "<p>1</p>")];
    let s = setup(&[("/feed.xml", Reply::ok("application/rss+xml", rss("Feed", &one)))]);
    let first = refresh(&s).await;
    assert_eq!((first.updated_feeds, first.new_entries), (1, 1));
    // Something only a reading of the document would undo: a stored title that is not the document's.
    let edit = |s: &Setup| db(s).execute("UPDATE entries SET title = 'Edited' WHERE key = 'g1'", []).unwrap();
    let title = |s: &Setup| -> String {
        db(s).query_row("SELECT title FROM entries WHERE key = 'g1'", [], |r| r.get(0)).unwrap()
    };
    edit(&s);

    let again = refresh(&s).await;
    assert_eq!((again.updated_feeds, again.not_modified, again.new_entries), (0, 1, 0));
    assert_eq!(title(&s), "Edited", "the same document was not stored again");
    let (status, outcome): (i64, String) = db(&s)
        .query_row("SELECT status, outcome FROM fetch_attempts ORDER BY rowid DESC LIMIT 1", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!((status, outcome.as_str()), (200, "unchanged"), "the history says what came");
    assert_eq!(s.server.requests_for("/feed.xml").len(), 2, "it was fetched each time");

    let two = [("g1", "One", "<p>1</p>"), ("g2", "Two", "<p>2</p>")];
    s.server.route("/feed.xml", Reply::ok("application/rss+xml", rss("Feed", &two)));
    let changed = refresh(&s).await;
    assert_eq!((changed.updated_feeds, changed.new_entries), (1, 1));
    assert_eq!(title(&s), "One", "a changed document is read whole");

    edit(&s);
    let feed_id = s.writer.call(|c| Ok(feeds::feeds(c)?[0].id)).await.unwrap();
    let force = UserWrite::SetEncodingOverride { feed_id, label: Some("windows-1252".into()) };
    s.writer.call(move |c| store::apply(c, &force, 0)).await.unwrap();
    let forced = refresh(&s).await;
    assert_eq!((forced.updated_feeds, forced.not_modified), (1, 0), "a forced encoding reads the document again");
    assert_eq!(title(&s), "One");
}
