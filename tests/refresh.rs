//! Refreshing against a loopback server with a real SQLite file: identity, updates and read state across
//! refreshes.

mod support;

use support::server::{Reply, Server};
use support::{Sandbox, opml, rss};
use tidings::fetch::{FetchConfig, Fetcher};
use tidings::refresh::{Refresher, Summary};
use tidings::store::{self, DbThread, read, write};

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
    let feeds: Vec<(Option<&str>, &str, String)> = routes.iter().map(|(p, _)| (None, *p, server.url(p))).collect();
    let list: Vec<(Option<&str>, &str, &str)> = feeds.iter().map(|(f, t, u)| (*f, *t, u.as_str())).collect();
    let file = sandbox.write("subs.opml", opml(&list));
    tidings::import::import_file(&sandbox.db(), &file).unwrap();
    let writer = DbThread::spawn("test-writer", store::open_write(&sandbox.db()).unwrap());
    let config = FetchConfig {
        connect_timeout: std::time::Duration::from_secs(5),
        timeout: std::time::Duration::from_secs(5),
        max_body_bytes: 1 << 20,
    };
    let refresher = Refresher::new(Fetcher::new(config).unwrap(), writer.clone(), 4);
    Setup { server, sandbox, writer, refresher }
}

async fn refresh(s: &Setup) -> Summary {
    s.refresher.run(tidings::refresh::Which::All, false, |_| {}).await.unwrap()
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
    let feed_id = s.writer.call(|c| Ok(read::feeds(c)?[0].id)).await.unwrap();
    let entries = s.writer.call(move |c| read::entries(c, feed_id)).await.unwrap();
    let two = entries.iter().find(|e| e.title.as_deref() == Some("Two")).unwrap().id;
    s.writer.call(move |c| write::set_read(c, &[two], true)).await.unwrap();

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
    let (title, is_read): (String, bool) =
        conn.query_row("SELECT title, read FROM entries WHERE id = ?1", [two], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
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
