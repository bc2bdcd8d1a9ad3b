import COpenSSL
import Synchronization

/// The lowest TLS version a context accepts or offers.
public enum TLSVersion: Sendable, Hashable {
    /// TLS 1.1, only for tests that prove it is refused.
    case tls11
    /// TLS 1.2 (the floor for Herald).
    case tls12
    /// TLS 1.3.
    case tls13

    var openSSLValue: Int32 {
        switch self {
        case .tls11: copenssl_tls1_1_version()
        case .tls12: copenssl_tls1_2_version()
        case .tls13: copenssl_tls1_3_version()
        }
    }
}

/// How a client decides whether to trust the server's certificate.
public enum TLSTrust: Sendable, Hashable {
    /// The system's CA store (`SSL_CTX_set_default_verify_paths`), and the name checked against the certificate.
    case system
    /// Only the CAs in this PEM file (e.g. a self-signed server certificate), and the name checked.
    case caFile(String)
    /// No verification at all. For development only: anyone on the path can read and alter the traffic.
    case insecure
}

/// Shared TLS configuration (an `SSL_CTX`): one per server certificate or per client trust setting.
///
/// Creating an ``TLSEngine`` from a context is cheap; the context holds certificates and the trust store.
/// OpenSSL makes `SSL_CTX` safe to share between threads once configured, so a context may be used by every loop.
///
/// ```swift
/// let server = try TLSContext.server(certificateChainFile: "cert.pem", privateKeyFile: "key.pem")
/// let client = try TLSContext.client(trust: .caFile("cert.pem"))
/// ```
public final class TLSContext: @unchecked Sendable {
    // @unchecked: the SSL_CTX is configured in the factory and only read afterwards (SSL_new up-refs it), which
    // OpenSSL documents as thread-safe.
    let context: OpaquePointer
    /// Whether engines made from this context accept (server) or connect (client).
    public let isServer: Bool
    /// Whether client engines check the certificate's name (false for ``TLSTrust/insecure``).
    let verifiesPeer: Bool

    private init(context: OpaquePointer, isServer: Bool, verifiesPeer: Bool) {
        self.context = context
        self.isServer = isServer
        self.verifiesPeer = verifiesPeer
    }

    deinit { SSL_CTX_free(context) }

    /// A server context: the certificate chain and key from PEM files, TLS 1.2 (ECDHE with AEAD suites only) or later.
    ///
    /// The server is SNI-agnostic: it presents this certificate whatever name the client asks for.
    ///
    /// - Parameters:
    ///   - certificateChainFile: PEM, leaf first, then intermediates.
    ///   - privateKeyFile: PEM private key matching the leaf.
    /// - Throws: ``TLSError`` of kind `.certificate` when a file is missing, unreadable, or the key does not match.
    public static func server(certificateChainFile: String, privateKeyFile: String) throws(TLSError) -> TLSContext {
        let context = try makeContext(method: TLS_server_method(), minimumVersion: .tls12)
        let made = TLSContext(context: context, isServer: true, verifiesPeer: false)
        guard SSL_CTX_set_cipher_list(context, tls12ServerCiphers) == 1 else {
            throw .fromOpenSSL(.context, "SSL_CTX_set_cipher_list")
        }
        guard SSL_CTX_use_certificate_chain_file(context, certificateChainFile) == 1 else {
            throw .fromOpenSSL(.certificate, "SSL_CTX_use_certificate_chain_file(\(certificateChainFile))")
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyFile, SSL_FILETYPE_PEM) == 1 else {
            throw .fromOpenSSL(.certificate, "SSL_CTX_use_PrivateKey_file(\(privateKeyFile))")
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .fromOpenSSL(.certificate, "SSL_CTX_check_private_key")
        }
        return made
    }

    /// The TLS 1.2 suites a server accepts: ECDHE key exchange (forward secrecy) with an AEAD cipher only.
    ///
    /// OpenSSL's default list also accepts static-RSA key exchange (no forward secrecy, RFC 7525 §4.2) and CBC suites
    /// (MAC-then-encrypt, the Lucky13/POODLE family, RFC 7457 §2). Both key types are listed so an RSA or an ECDSA
    /// certificate works. TLS 1.3 suites are configured separately (`SSL_CTX_set_ciphersuites`) and are all AEAD,
    /// so this list leaves them as they are.
    static let tls12ServerCiphers = [
        "ECDHE-ECDSA-AES128-GCM-SHA256", "ECDHE-RSA-AES128-GCM-SHA256",
        "ECDHE-ECDSA-AES256-GCM-SHA384", "ECDHE-RSA-AES256-GCM-SHA384",
        "ECDHE-ECDSA-CHACHA20-POLY1305", "ECDHE-RSA-CHACHA20-POLY1305",
    ].joined(separator: ":")

    /// A client context.
    ///
    /// - Parameters:
    ///   - trust: where trusted CAs come from, or no verification.
    ///   - minimumVersion: the lowest version offered (TLS 1.2 by default).
    ///   - maximumVersion: the highest version offered (`nil`: the newest OpenSSL has); for tests.
    public static func client(trust: TLSTrust = .system, minimumVersion: TLSVersion = .tls12,
                              maximumVersion: TLSVersion? = nil) throws(TLSError) -> TLSContext {
        let context = try makeContext(method: TLS_client_method(), minimumVersion: minimumVersion)
        let made = TLSContext(context: context, isServer: false, verifiesPeer: trust != .insecure)
        if let maximumVersion, copenssl_ctx_set_max_proto_version(context, maximumVersion.openSSLValue) != 1 {
            throw .fromOpenSSL(.context, "SSL_CTX_set_max_proto_version")
        }
        switch trust {
        case .system:
            guard SSL_CTX_set_default_verify_paths(context) == 1 else { throw .fromOpenSSL(.context, "SSL_CTX_set_default_verify_paths") }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        case .caFile(let path):
            guard SSL_CTX_load_verify_locations(context, path, nil) == 1 else {
                throw .fromOpenSSL(.context, "SSL_CTX_load_verify_locations(\(path))")
            }
            SSL_CTX_set_verify(context, SSL_VERIFY_PEER, nil)
        case .insecure:
            SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        }
        return made
    }

    private static func makeContext(method: OpaquePointer?, minimumVersion: TLSVersion) throws(TLSError) -> OpaquePointer {
        ERR_clear_error()
        guard let context = SSL_CTX_new(method) else { throw .fromOpenSSL(.context, "SSL_CTX_new") }
        guard copenssl_ctx_set_min_proto_version(context, minimumVersion.openSSLValue) == 1 else {
            SSL_CTX_free(context)
            throw .fromOpenSSL(.context, "SSL_CTX_set_min_proto_version")
        }
        // Renegotiation is a DoS lever and TLS compression leaks secrets (CRIME); neither is needed.
        SSL_CTX_set_options(context, copenssl_op_no_renegotiation() | copenssl_op_no_compression())
        // Idle connections give back their 34 KiB read/write buffers: matters at 5,000 connections.
        _ = copenssl_ctx_set_mode(context, copenssl_mode_release_buffers())
        return context
    }
}

/// A server context that can be replaced while the server runs (certificate renewal on SIGHUP).
///
/// New connections take ``current``; existing engines keep the context they were made with (OpenSSL reference
/// counts it), so a reload never disturbs an open connection.
///
/// ```swift
/// let tls = try ReloadableTLSContext(certificateChainFile: cert, privateKeyFile: key)
/// let engine = try TLSEngine(context: tls.current)       // per accepted connection
/// try tls.reload()                                        // on SIGHUP: a failed reload keeps the old context
/// ```
public final class ReloadableTLSContext: Sendable {
    /// The certificate chain file, re-read on every reload.
    public let certificateChainFile: String
    /// The private key file, re-read on every reload.
    public let privateKeyFile: String
    private let context: Mutex<TLSContext>

    /// Loads the files once; throws like ``TLSContext/server(certificateChainFile:privateKeyFile:)``.
    public init(certificateChainFile: String, privateKeyFile: String) throws(TLSError) {
        self.certificateChainFile = certificateChainFile
        self.privateKeyFile = privateKeyFile
        context = Mutex(try TLSContext.server(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile))
    }

    /// The context for new connections.
    public var current: TLSContext { context.withLock { $0 } }

    /// Re-reads the files into a new context and swaps it in. On error the previous context stays in use.
    public func reload() throws(TLSError) {
        let fresh = try TLSContext.server(certificateChainFile: certificateChainFile, privateKeyFile: privateKeyFile)
        context.withLock { $0 = fresh }
    }
}
