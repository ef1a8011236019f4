//! A server that answers over HTTP/2 is sent its revalidations at once, while its host's revalidations last.

use super::waves::unchanged_refresh;
use super::*;

#[test]
fn unchanged_feeds_of_200_http2_hosts_take_two_round_trips_once_each_host_answered_once() {
    // The first answer of each host tells it multiplexes: its other revalidations go at once, on that connection.
    assert_eq!(unchanged_refresh(&Courtesy::new(256, 6), "https", true).1, 2, "a process started afresh");
    // A later refresh finds no connection open (nor does the limiter remember): it learns again.
    let courtesy = after_304s(256, 6);
    unchanged_refresh(&courtesy, "https", true);
    assert_eq!(unchanged_refresh(&courtesy, "https", true).1, 2, "the next refresh of the same process");
}

#[test]
fn a_hosts_waiting_revalidations_go_at_once_when_it_answers_over_http2_and_wait_again_when_it_no_longer_does() {
    let courtesy = Courtesy::new(64, 6);
    let mut a: Vec<Ticket> = on_tls(&courtesy, "a.test", 8, REVAL);
    let mut first = granted(&mut a);
    assert_eq!(first.len(), 3, "before any answer: a connection for every three");
    assert!(first.iter_mut().all(Turn::keep_alive), "each keeps its connection for one waiting");
    first[0].answered_over(false);
    assert!(granted(&mut a).is_empty(), "an answer over HTTP/1 changes nothing");

    first[0].answered_over(true);
    let more = granted(&mut a);
    assert_eq!(more.len(), 3, "over HTTP/2 none waits for a connection: up to the host's limit of six");
    assert_eq!(courtesy.host_load("https://a.test/"), (6, 2));
    drop(first.remove(0));
    let handed = granted(&mut a);
    assert_eq!(handed.len(), 1, "an ending request hands its slot on");
    let mut other = on_tls(&courtesy, "b.test", 5, REVAL);
    assert_eq!(granted(&mut other).len(), 2, "only the host that answered over HTTP/2 is exempt");

    // Back on HTTP/1: a connection for every three again.
    drop((first, more));
    let mut again: Vec<Ticket> = on_tls(&courtesy, "a.test", 5, REVAL);
    let going: Vec<Turn> = [granted(&mut a), granted(&mut again), handed].into_iter().flatten().collect();
    assert_eq!(going.len(), 6, "still known to multiplex: the last two of the first eight and four of five more");
    assert_eq!(courtesy.host_load("https://a.test/"), (6, 1));
    going[0].answered_over(false);
    drop(going);
    let mut later: Vec<Ticket> = on_tls(&courtesy, "a.test", 6, REVAL);
    assert_eq!(granted(&mut later).len(), 2, "six revalidations over HTTP/1: two connections");
}

#[test]
fn the_exemption_is_the_servers_that_answered_not_another_port_or_scheme_of_its_host() {
    // Exempt: all five beside the first (six to the host). Not: one connection more for every two on plain HTTP
    // (two beside the first), for every three over TLS (one).
    for (other, going) in
        [("https://a.test", 5), ("https://A.test:443", 5), ("http://a.test", 2), ("https://a.test:8443", 1)]
    {
        let courtesy = Courtesy::new(64, 6);
        let mut asked = vec![courtesy.queue("https://a.test/feed", REVAL)];
        let answered = granted(&mut asked);
        answered[0].answered_over(true);
        let mut next = queued(&courtesy, other, 5, REVAL);
        assert_eq!(granted(&mut next).len(), going, "{other}");
    }
}

#[test]
fn only_an_answer_over_http1_from_the_same_server_ends_its_exemption() {
    let courtesy = Courtesy::new(64, 6);
    let mut two = vec![courtesy.queue("https://a.test/1", REVAL), courtesy.queue("http://a.test/2", DOC)];
    let turns = granted(&mut two);
    let multiplexing = || courtesy.0.lock().hosts["a.test"].multiplexing;
    turns[0].answered_over(true);
    assert_eq!(multiplexing(), Some(Origin { secure: true, port: 443 }));
    turns[1].answered_over(false);
    assert!(multiplexing().is_some(), "the plain server's HTTP/1 says nothing of the secure one");
    turns[0].answered_over(false);
    assert_eq!(multiplexing(), None, "its own answer over HTTP/1 ends it");
}

#[test]
fn the_exemption_ends_with_the_hosts_revalidations_even_while_a_download_holds_the_host() {
    for downloading in [false, true] {
        let courtesy = Courtesy::new(64, 6);
        // A download by a client of its own, for minutes: the host stays known to the limiter meanwhile.
        let mut download = downloading.then(|| courtesy.join("https://a.test/episode.mp3", DOC, true));
        let _downloading = download.as_mut().map(|d| now(d).expect("the download goes"));
        let mut checks = queued(&courtesy, "https://a.test", 2, REVAL);
        let first = granted(&mut checks);
        assert_eq!(first.len(), 1);
        first[0].answered_over(true);
        let second = granted(&mut checks);
        assert_eq!(second.len(), 1, "the other goes at once beside it");
        drop((first, second));
        assert_eq!(courtesy.host_load("https://a.test/"), (usize::from(downloading), 0));
        // The connection they shared closes once idle: the next ones open connections as on HTTP/1.
        let mut later = queued(&courtesy, "https://a.test", 6, REVAL);
        assert_eq!(granted(&mut later).len(), 2, "six revalidations, before any answer: two connections");
    }
}

#[test]
fn a_request_on_http2_keeps_its_connection_for_no_one_and_hands_none_to_another_server() {
    let courtesy = Courtesy::new(64, 6);
    let mut secure = queued(&courtesy, "https://a.test", 4, REVAL);
    let mut going = granted(&mut secure);
    going[0].answered_over(true);
    going.extend(granted(&mut secure));
    assert_eq!(going.len(), 4, "the server answered over HTTP/2: its other three at once");
    let mut other = queued(&courtesy, "https://a.test:8443", 6, REVAL);
    assert!(granted(&mut other).is_empty(), "four revalidations in flight, ten in all: no connection more");
    assert!(going.iter_mut().all(Turn::keep_alive), "an HTTP/2 connection stays open");
    assert_eq!(courtesy.0.lock().hosts["a.test"].keeping, 0, "and is kept for no request in particular");
    drop(going);
    // The other server's six are held to a connection for every three, not handed the HTTP/2 one's places.
    assert_eq!(granted(&mut other).len(), 2);
}

#[test]
fn a_connection_is_kept_and_taken_over_only_for_a_request_to_its_server() {
    let courtesy = Courtesy::new(64, 6);
    let mut on_443 = queued(&courtesy, "https://a.test", 4, REVAL);
    let mut going = granted(&mut on_443);
    assert_eq!(going.len(), 2);
    drop(on_443);
    let mut on_8443 = vec![courtesy.queue("https://a.test:8443/0", REVAL)];
    assert!(granted(&mut on_8443).is_empty(), "two revalidations in flight, three in all: no connection more");
    assert!(!going[0].keep_alive(), "only another server's request waits: the connection would sit idle");
    let mut on_443 = vec![courtesy.queue("https://a.test/4", REVAL)];
    assert!(going[1].keep_alive(), "one to its own server waits now");
    drop(going.remove(1));
    let (first, behind) = (granted(&mut on_8443), granted(&mut on_443));
    assert!(first.is_empty() && behind.is_empty(), "the first in line is another server's: no taking over");
    drop(going);
    assert_eq!(granted(&mut on_8443).len(), 1, "a connection of its own once the host's rule allows it");
}

#[test]
fn a_host_and_its_server_are_what_the_url_parser_reads_whether_or_not_it_is_asked() {
    for url in [
        "http://example.com/feed",
        "https://a-b.example.org:8443/x?y#z",
        "http://127.0.1.7:39827/feed/3.xml",
        "https://example.com:443/",
        // Read by the parser: upper case, an international name, a user, an address it rewrites, a backslash.
        "HTTPS://Example.COM/feed",
        "http://café.fr/",
        "http://u:p@e.com:8080/",
        "http://127.1/",
        "http://e.com\\feed",
    ] {
        let parsed = url::Url::parse(url).unwrap();
        let origin = Origin { secure: parsed.scheme() == "https", port: parsed.port_or_known_default().unwrap() };
        assert_eq!(host_and_origin(url), (parsed.host_str().unwrap().to_string(), origin), "{url}");
    }
    assert_eq!(host_and_origin("not a url"), Default::default());
}
