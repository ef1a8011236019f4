//! An HTTPS server on 127.0.0.1 that speaks HTTP/2 only (ALPN `h2`), as most of the web's big hosts do, built on
//! hyper's own HTTP/2 server: fixed routes with an ETag each (a matching `If-None-Match` gets 304, as from
//! `server::Server`), and counts
//! of the connections it accepted and of the most requests it held at once. A client that does not speak
//! HTTP/2 gets no answer at all (the only protocol offered is `h2`). Its certificate (for 127.0.0.1) is signed
//! by the test authority in `tests/fixtures/tls/ca.pem`; a process trusts it with `SSL_CERT_FILE` pointing
//! there (see `tests/fixtures/tls/README.md`).
//!
//! [`H2Server::hold_until`] makes it answer the first request at once and hold every other one until that
//! many are in flight together: a test then sees whether a client sends its requests at once or one after
//! another, without timing anything. A hold that is never met ends after [`HOLD_BOUND`], so a test fails on
//! its assertion rather than hanging.
#![allow(dead_code)]

use super::server::Reply;
use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// The longest a held answer waits for the others.
pub(crate) const HOLD_BOUND: Duration = Duration::from_secs(10);

/// The test authority's certificate, for `SSL_CERT_FILE`.
pub(crate) fn authority() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls/ca.pem")
}

#[derive(Default)]
struct State {
    routes: HashMap<String, Reply>,
    /// Requests being answered now.
    in_flight: usize,
    most_in_flight: usize,
    /// Connections accepted (their TLS handshakes begun).
    connections: usize,
    /// While set: the first request is answered at once, the others wait until this many are in flight.
    hold: Option<usize>,
    answered_at_once: bool,
    /// The hold was met (or waited for in vain): nothing waits any more.
    released: bool,
}

pub(crate) struct H2Server {
    pub(crate) addr: SocketAddr,
    state: Arc<Mutex<State>>,
    runtime: Option<tokio::runtime::Runtime>,
}

impl H2Server {
    pub(crate) fn start() -> H2Server {
        let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).expect("bind 127.0.0.1");
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(tls_config()));
        let shared = state.clone();
        runtime.spawn(async move {
            // Told every time a request comes or goes.
            let changed = watch::Sender::new(());
            while let Ok((socket, _)) = listener.accept().await {
                shared.lock().unwrap_or_else(|e| e.into_inner()).connections += 1;
                let (acceptor, state, changed) = (acceptor.clone(), shared.clone(), changed.clone());
                tokio::spawn(async move {
                    serve(&acceptor, socket, move |request| answer(request, state.clone(), changed.clone())).await;
                });
            }
        });
        H2Server { addr, state, runtime: Some(runtime) }
    }

    /// Serves the feed `body` at `path`, with an ETag: a request naming it gets 304.
    pub(crate) fn route(&self, path: &str, etag: &str, body: impl Into<Vec<u8>>) {
        let reply = Reply::ok("application/rss+xml; charset=utf-8", body).with_header("ETag", etag);
        self.lock().routes.insert(path.to_string(), reply);
    }

    pub(crate) fn url(&self, path: &str) -> String {
        format!("https://{}{path}", self.addr)
    }

    /// From now on: the next request is answered at once, and every other waits until `n` are in flight (or
    /// [`HOLD_BOUND`] passed). Resets the counts of connections and of the most in flight.
    pub(crate) fn hold_until(&self, n: usize) {
        let mut state = self.lock();
        state.hold = Some(n);
        state.answered_at_once = false;
        state.released = false;
        state.most_in_flight = 0;
        state.connections = 0;
    }

    /// The most requests this server held at once (since [`H2Server::hold_until`]).
    pub(crate) fn most_in_flight(&self) -> usize {
        self.lock().most_in_flight
    }

    /// The connections accepted (since [`H2Server::hold_until`]).
    pub(crate) fn connections(&self) -> usize {
        self.lock().connections
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for H2Server {
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

async fn answer(
    request: Request<hyper::body::Incoming>,
    state: Arc<Mutex<State>>,
    changed: watch::Sender<()>,
) -> Result<Response<Full<Bytes>>, std::convert::Infallible> {
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    let mut waiting = changed.subscribe();
    let held = {
        let mut s = lock();
        s.in_flight += 1;
        s.most_in_flight = s.most_in_flight.max(s.in_flight);
        if s.hold.is_some_and(|n| s.in_flight >= n) {
            s.released = true;
        }
        let first = !std::mem::replace(&mut s.answered_at_once, true);
        s.hold.is_some() && !first && !s.released
    };
    changed.send_replace(());
    if held {
        let _ = tokio::time::timeout(HOLD_BOUND, waiting.wait_for(|_| lock().released)).await;
        // Met or not, nothing waits any more.
        lock().released = true;
        changed.send_replace(());
    }
    let reply = lock().routes.get(request.uri().path()).cloned();
    lock().in_flight -= 1;
    changed.send_replace(());
    Ok(super::server::h2_response(&request, reply))
}

/// Serves one connection accepted on a test server: its TLS handshake by `acceptor`, then HTTP/2, each request
/// answered by `answer`. Returns when the connection ends.
pub(crate) async fn serve<F, Fut>(acceptor: &tokio_rustls::TlsAcceptor, socket: tokio::net::TcpStream, answer: F)
where
    F: Fn(Request<hyper::body::Incoming>) -> Fut + Send + Clone + 'static,
    Fut: Future<Output = Result<Response<Full<Bytes>>, std::convert::Infallible>> + Send + 'static,
{
    let Ok(tls) = acceptor.accept(socket).await else { return };
    let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
        .serve_connection(hyper_util::rt::TokioIo::new(tls), hyper::service::service_fn(answer))
        .await;
}

/// The TLS set-up of the test servers: the certificate for the loopback addresses, HTTP/2 alone.
pub(crate) fn tls_config() -> rustls::ServerConfig {
    use rustls::pki_types::{CertificateDer, PrivateKeyDer};
    let cert = CertificateDer::from(include_bytes!("../fixtures/tls/server.der").to_vec());
    let key = PrivateKeyDer::try_from(include_bytes!("../fixtures/tls/server.key.der").to_vec()).expect("a key");
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .expect("ring offers TLS 1.2 and 1.3")
        .with_no_client_auth()
        .with_single_cert(vec![cert], key)
        .expect("the test certificate and its key");
    config.alpn_protocols = vec![b"h2".to_vec()];
    config
}
