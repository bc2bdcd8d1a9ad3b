import COpenSSL
import Glibc

/// One connection's TLS, as a byte filter with no IO: ciphertext in gives plaintext out plus ciphertext
/// to send; plaintext written gives ciphertext to send.
///
/// OpenSSL reads from and writes to two memory BIOs that only this type touches, so the engine never blocks and
/// never sees a socket. The transport moves bytes: whatever lands in `output` must be sent to the peer, even when
/// the application wrote nothing (handshake messages, session tickets, alerts: the "read wants write" case).
///
/// ```swift
/// let engine = try TLSEngine(context: clientContext, serverName: "herald.example")
/// try engine.start(into: &toSocket)                                   // ClientHello
/// try engine.receive(fromSocket, plaintext: &received, output: &toSocket)
/// if engine.isHandshakeComplete { try engine.write(request, into: &toSocket) }
/// if engine.hasPendingPlaintext { /* call receive with no new bytes before sleeping in epoll */ }
/// ```
///
/// Writes made before the handshake finishes are kept and sent once it does (the "write wants read" case,
/// ``isWriteWaitingForRead``). After an error the engine stays failed. Loop-confined; not `Sendable`.
public final class TLSEngine {
    /// The context this engine was made from (kept alive for the engine's life).
    public let context: TLSContext
    /// Whether the handshake has completed; application data flows only afterwards.
    public private(set) var isHandshakeComplete = false
    /// The peer sent close_notify: it will send no more data (answer with ``close(into:)``).
    public private(set) var hasReceivedCloseNotify = false
    /// We sent close_notify; further writes fail with ``TLSError/Kind/closed``.
    public private(set) var hasSentCloseNotify = false

    private let ssl: OpaquePointer
    /// Ciphertext from the peer, waiting for OpenSSL to read it.
    private let networkIn: OpaquePointer
    /// Ciphertext OpenSSL produced for the peer.
    private let networkOut: OpaquePointer
    private var failure: TLSError?
    /// Plaintext written before the handshake completed.
    private var unsentPlaintext: [UInt8] = []
    /// The last receive stopped at its plaintext limit, so OpenSSL may still hold decryptable records.
    private var stoppedAtReadLimit = false

    /// Plaintext is read in steps of this size (one TLS record's maximum).
    static let readChunk = 16 << 10

    /// Creates an engine for one connection.
    ///
    /// - Parameters:
    ///   - context: a server or client context; decides the role.
    ///   - serverName: client only: the host name sent as SNI (RFC 6066; not for IP literals) and checked against
    ///     the certificate (`SSL_set1_host`), or the IP address checked against the certificate's IP SANs.
    ///     Ignored by servers, which are SNI-agnostic.
    public init(context: TLSContext, serverName: String? = nil) throws(TLSError) {
        ERR_clear_error()
        guard let ssl = SSL_new(context.context) else { throw .fromOpenSSL(.context, "SSL_new") }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .fromOpenSSL(.context, "BIO_new")
        }
        SSL_set_bio(ssl, networkIn, networkOut)  // the SSL owns both BIOs from here on
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        self.context = context
        if context.isServer {
            SSL_set_accept_state(ssl)
        } else {
            SSL_set_connect_state(ssl)
            if let serverName, !serverName.isEmpty { try configurePeerName(serverName) }
        }
    }

    deinit { SSL_free(ssl) }

    private func configurePeerName(_ name: String) throws(TLSError) {
        if Self.isIPAddress(name) {
            // RFC 6066 §3: literal IP addresses are not permitted in SNI; verify the IP SAN instead.
            if context.verifiesPeer, X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) != 1 {
                throw .fromOpenSSL(.context, "X509_VERIFY_PARAM_set1_ip_asc(\(name))")
            }
            return
        }
        guard copenssl_set_tlsext_host_name(ssl, name) == 1 else { throw .fromOpenSSL(.context, "SSL_set_tlsext_host_name(\(name))") }
        if context.verifiesPeer, SSL_set1_host(ssl, name) != 1 { throw .fromOpenSSL(.context, "SSL_set1_host(\(name))") }
    }

    private static func isIPAddress(_ name: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, name, &buffer) == 1 || inet_pton(AF_INET6, name, &buffer) == 1
    }

    // MARK: - API

    /// Whether OpenSSL still holds plaintext a ``receive(_:plaintext:output:maxPlaintext:)`` with no new bytes would
    /// return. The loop must drain such engines before sleeping: epoll will not report bytes already read.
    public var hasPendingPlaintext: Bool { SSL_pending(ssl) > 0 || stoppedAtReadLimit }

    /// Ciphertext given to ``receive(_:plaintext:output:maxPlaintext:)`` that OpenSSL has not yet taken a record from.
    public var unprocessedCiphertextBytes: Int { Int(BIO_ctrl_pending(networkIn)) }

    /// Plaintext written before the handshake completed is waiting to be encrypted (it goes out automatically once a
    /// ``receive(_:plaintext:output:maxPlaintext:)`` completes the handshake).
    public var isWriteWaitingForRead: Bool { !unsentPlaintext.isEmpty }

    /// The negotiated protocol, e.g. `TLSv1.3`, once the handshake is complete.
    public var protocolVersion: String? {
        guard isHandshakeComplete, let name = SSL_get_version(ssl) else { return nil }
        return String(cString: name)
    }

    /// The peer certificate's subject in OpenSSL's one-line form (`/CN=localhost`), if the peer sent one.
    public var peerCertificateSubject: String? {
        guard let certificate = SSL_get1_peer_certificate(ssl) else { return nil }
        defer { X509_free(certificate) }
        var buffer = [CChar](repeating: 0, count: 512)
        guard X509_NAME_oneline(X509_get_subject_name(certificate), &buffer, Int32(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The SNI host name: on a server, the one the client asked for (logging only: the server is SNI-agnostic);
    /// on a client, the one sent.
    public var serverName: String? {
        guard let name = SSL_get_servername(ssl, Int32(TLSEXT_NAMETYPE_host_name)) else { return nil }
        return String(cString: name)
    }

    /// Starts the handshake. A client appends its ClientHello to `output`; a server does nothing until bytes arrive.
    public func start(into output: inout [UInt8]) throws(TLSError) {
        try checkUsable()
        defer { drain(into: &output) }
        if !context.isServer { try advanceHandshake() }
    }

    /// Feeds ciphertext from the peer.
    ///
    /// - Parameters:
    ///   - ciphertext: bytes read from the socket (may be empty, to drain ``hasPendingPlaintext``).
    ///   - plaintext: decrypted application data is appended here.
    ///   - output: ciphertext that must be sent to the peer is appended here (handshake, alerts, queued writes).
    ///   - maxPlaintext: stop after about this many plaintext bytes (fairness between connections); the rest stays
    ///     inside OpenSSL and ``hasPendingPlaintext`` says so.
    /// - Throws: ``TLSError`` on a failed handshake or bad records; `output` may then hold an alert worth sending
    ///   before closing. The engine stays failed.
    public func receive(_ ciphertext: UnsafeRawBufferPointer, plaintext: inout [UInt8], output: inout [UInt8],
                        maxPlaintext: Int = .max) throws(TLSError) {
        try checkUsable()
        defer { drain(into: &output) }
        if ciphertext.count > 0, let base = ciphertext.baseAddress {
            var offset = 0
            while offset < ciphertext.count {
                let step = Int32(min(ciphertext.count - offset, Int(Int32.max)))
                let written = BIO_write(networkIn, base + offset, step)
                guard written > 0 else { throw fail(.fromOpenSSL(.context, "BIO_write")) }
                offset += Int(written)
            }
        }
        if !isHandshakeComplete {
            try advanceHandshake()
            guard isHandshakeComplete else { return }
        }
        if !unsentPlaintext.isEmpty {
            let queued = unsentPlaintext
            unsentPlaintext = []
            try withBytes(of: queued) { (bytes) throws(TLSError) in try encrypt(bytes) }
        }
        try readPlaintext(into: &plaintext, limit: maxPlaintext)
    }

    /// ``receive(_:plaintext:output:maxPlaintext:)`` for an array.
    public func receive(_ ciphertext: [UInt8], plaintext: inout [UInt8], output: inout [UInt8], maxPlaintext: Int = .max) throws(TLSError) {
        try withBytes(of: ciphertext) { (bytes) throws(TLSError) in
            try receive(bytes, plaintext: &plaintext, output: &output, maxPlaintext: maxPlaintext)
        }
    }

    /// Encrypts application data and appends the records to `output`. Before the handshake completes the data is
    /// kept and sent as soon as it does.
    public func write(_ plaintext: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(TLSError) {
        try checkUsable()
        guard !hasSentCloseNotify else { throw .init(kind: .closed, operation: "SSL_write", detail: "close_notify already sent") }
        guard plaintext.count > 0 else { return }
        defer { drain(into: &output) }
        guard isHandshakeComplete, unsentPlaintext.isEmpty else {
            unsentPlaintext.append(contentsOf: plaintext)
            return
        }
        try encrypt(plaintext)
    }

    /// ``write(_:into:)`` for an array.
    public func write(_ plaintext: [UInt8], into output: inout [UInt8]) throws(TLSError) {
        try withBytes(of: plaintext) { (bytes) throws(TLSError) in try write(bytes, into: &output) }
    }

    /// Sends close_notify (RFC 8446 §6.1). The transport may close TCP once `output` is flushed; waiting for the
    /// peer's close_notify is not required.
    public func close(into output: inout [UInt8]) {
        guard failure == nil, !hasSentCloseNotify else { return }
        hasSentCloseNotify = true
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
        drain(into: &output)
    }

    // MARK: - Steps

    private func checkUsable() throws(TLSError) {
        if let failure { throw failure }
    }

    private func fail(_ error: TLSError) -> TLSError {
        failure = error
        return error
    }

    private func advanceHandshake() throws(TLSError) {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            isHandshakeComplete = true
            return
        }
        let reason = SSL_get_error(ssl, result)
        if reason == SSL_ERROR_WANT_READ || reason == SSL_ERROR_WANT_WRITE { return }
        var verification: String?
        if !context.isServer {
            let verifyResult = SSL_get_verify_result(ssl)
            if verifyResult != X509_V_OK, let text = X509_verify_cert_error_string(verifyResult) {
                verification = "certificate verification: \(String(cString: text))"
            }
        }
        throw fail(.fromOpenSSL(.handshake, "SSL_do_handshake", extra: verification))
    }

    private func encrypt(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        guard let base = plaintext.baseAddress else { return }
        var offset = 0
        while offset < plaintext.count {
            ERR_clear_error()
            // Memory BIOs accept every write, so SSL_write takes the whole step (no partial writes).
            let step = Int32(min(plaintext.count - offset, 1 << 30))
            let result = SSL_write(ssl, base + offset, step)
            if result > 0 {
                offset += Int(result)
                continue
            }
            let reason = SSL_get_error(ssl, result)
            if reason == SSL_ERROR_WANT_READ {
                // Write wants read: OpenSSL needs the peer's bytes first (e.g. a post-handshake message).
                unsentPlaintext.append(contentsOf: UnsafeRawBufferPointer(rebasing: plaintext[offset...]))
                return
            }
            throw fail(.fromOpenSSL(.protocolViolation, "SSL_write"))
        }
    }

    private func readPlaintext(into plaintext: inout [UInt8], limit: Int) throws(TLSError) {
        stoppedAtReadLimit = false
        var produced = 0
        while !hasReceivedCloseNotify {
            if produced >= limit {
                stoppedAtReadLimit = true
                return
            }
            let start = plaintext.count
            plaintext.append(contentsOf: repeatElement(0, count: Self.readChunk))
            ERR_clear_error()
            let result = plaintext.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress! + start, Int32(Self.readChunk)) }
            plaintext.removeSubrange((start + max(0, Int(result)))...)
            if result > 0 {
                produced += Int(result)
                continue
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                return  // everything buffered has been decrypted
            case SSL_ERROR_ZERO_RETURN:
                hasReceivedCloseNotify = true
            default:
                throw fail(.fromOpenSSL(.protocolViolation, "SSL_read"))
            }
        }
    }

    /// Moves every ciphertext byte OpenSSL produced into `output`.
    private func drain(into output: inout [UInt8]) {
        while true {
            let pending = Int(BIO_ctrl_pending(networkOut))
            guard pending > 0 else { return }
            let start = output.count
            output.append(contentsOf: repeatElement(0, count: pending))
            let read = output.withUnsafeMutableBytes { BIO_read(networkOut, $0.baseAddress! + start, Int32(pending)) }
            output.removeSubrange((start + max(0, Int(read)))...)
            if read <= 0 { return }
        }
    }
}

/// `Array.withUnsafeBytes` with a typed error (its `rethrows` would widen it to `any Error`).
private func withBytes(of array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(TLSError) -> Void) throws(TLSError) {
    let failure: TLSError? = array.withUnsafeBytes { bytes in
        do throws(TLSError) {
            try body(bytes)
            return nil
        } catch {
            return error
        }
    }
    if let failure { throw failure }
}

@available(*, unavailable, message: "A TLS engine belongs to one connection on one event loop")
extension TLSEngine: Sendable {}
