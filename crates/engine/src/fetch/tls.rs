//! The TLS set-up every HTTP client of the process shares: the platform's verifier (the system's root
//! certificates and WebPKI, as reqwest would set it up), made on the first certificate an https server shows.
//!
//! reqwest reads the whole certificate folder (`/etc/ssl/certs` on Linux: hundreds of files) every time a client is
//! built, and a refresh builds two before its first request; a refresh of `http://` feeds, or one where every feed
//! answers 304 in a tenth of a second, paid that at every start. Here the roots are read once per process, and
//! only when an https server is met. Nothing is verified less: every handshake goes through the same verifier.

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::CryptoProvider;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};
use std::sync::{Arc, OnceLock};

/// The TLS set-up for a client: reqwest's own (TLS 1.2 and 1.3, HTTP/2 and HTTP/1.1 offered by ALPN), with the
/// platform's verifier made when first needed.
pub(super) fn client_config() -> rustls::ClientConfig {
    static CONFIG: OnceLock<rustls::ClientConfig> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let provider = CryptoProvider::get_default()
                .cloned()
                .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
            let verifier = Arc::new(LazyVerifier { provider: provider.clone(), made: OnceLock::new() });
            let mut config = rustls::ClientConfig::builder_with_provider(provider)
                .with_safe_default_protocol_versions()
                .expect("ring offers TLS 1.2 and 1.3")
                .dangerous()
                .with_custom_certificate_verifier(verifier)
                .with_no_client_auth();
            config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
            config
        })
        .clone()
}

/// How many times this process has read the system's root certificates (made the platform's verifier).
#[cfg(test)]
static ROOTS_READ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The platform's verifier, made on first use. When it cannot be made (no root certificate on the system), every
/// https handshake fails with that reason, as reqwest's client would have failed to build.
#[derive(Debug)]
struct LazyVerifier {
    provider: Arc<CryptoProvider>,
    made: OnceLock<Result<rustls_platform_verifier::Verifier, rustls::Error>>,
}

impl LazyVerifier {
    fn verifier(&self) -> Result<&rustls_platform_verifier::Verifier, rustls::Error> {
        self.made
            .get_or_init(|| {
                #[cfg(test)]
                ROOTS_READ.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                rustls_platform_verifier::Verifier::new(self.provider.clone())
            })
            .as_ref()
            .map_err(Clone::clone)
    }
}

impl ServerCertVerifier for LazyVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        self.verifier()?.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.verifier()?.verify_tls13_signature(message, cert, dss)
    }

    /// Asked for every ClientHello, before any certificate: the provider's schemes, which are the verifier's.
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider.signature_verification_algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fetch::{FetchConfig, Fetcher, Validators};
    use std::sync::atomic::Ordering;

    /// An https server on 127.0.0.1 showing a self-signed certificate (for 127.0.0.1, made with openssl, valid
    /// for a hundred years) that no system trusts. It serves one handshake, on a thread of its own.
    fn self_signed_server() -> (u16, std::thread::JoinHandle<()>) {
        use rustls::pki_types::PrivateKeyDer;
        let cert = CertificateDer::from(include_bytes!("tls/self-signed.der").to_vec());
        let key = PrivateKeyDer::try_from(include_bytes!("tls/self-signed.key.der").to_vec()).unwrap();
        let config = rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![cert], key)
            .unwrap();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = std::thread::spawn(move || {
            let (mut socket, _) = listener.accept().unwrap();
            let mut tls = rustls::ServerConnection::new(Arc::new(config)).unwrap();
            // The client refuses the certificate and says so with an alert: the handshake ends in an error here.
            while tls.is_handshaking() {
                if tls.complete_io(&mut socket).is_err() {
                    break;
                }
            }
        });
        (port, server)
    }

    #[tokio::test]
    async fn the_system_roots_are_read_at_the_first_https_handshake_not_per_client_and_still_refuse_a_stranger() {
        let before = ROOTS_READ.load(Ordering::SeqCst);
        let fetchers: Vec<Fetcher> = (0..3).map(|_| Fetcher::new(FetchConfig::default()).unwrap()).collect();
        assert_eq!(ROOTS_READ.load(Ordering::SeqCst), before, "building clients reads no certificate");

        let (port, server) = self_signed_server();
        let url = format!("https://127.0.0.1:{port}/feed.xml");
        let err = fetchers[0].get(&url, &Validators::default()).await.unwrap_err();
        server.join().unwrap();
        let said = err.to_string();
        assert!(said.to_lowercase().contains("certificate"), "refused for its certificate: {said}");
        assert_eq!(ROOTS_READ.load(Ordering::SeqCst), 1, "the roots are read once per process");
    }
}
