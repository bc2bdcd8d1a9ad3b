import HeraldTLS

/// The byte pipe under the WebSocket: a non-blocking TCP socket, optionally with TLS (`wss://`) between the
/// socket and the WebSocket. Plaintext goes in through ``send(_:)`` and comes out of ``read(into:)``; this type
/// keeps the ciphertext (handshake records, alerts, queued writes) and writes it whenever the socket takes it.
///
/// With TLS the engine is a sans-IO byte filter (HeraldTLS on memory BIOs), so every case the loop must handle
/// is visible here: a read that produces only bytes to send ("read wants write"), plaintext written before the
/// handshake finished ("write wants read", kept by the engine), plaintext OpenSSL still buffers after a read
/// (drained before returning), and close_notify from the server (reported as the end of the stream).
package final class ClientTransport {
    /// What one read produced.
    package enum ReadResult: Equatable {
        /// Nothing is ready (EAGAIN), or only TLS records with no application data.
        case nothing
        /// This many plaintext bytes were appended.
        case bytes(Int)
        /// The server ended the stream (TCP EOF or TLS close_notify).
        case ended
    }

    /// A failed read or write: the socket's error, or TLS's (a refused certificate, a bad record).
    package enum Failure: Error, CustomStringConvertible {
        case socket(SocketError)
        case tls(TLSError)
        /// An app's stream failed (HeraldKit's injected transport), for this reason.
        case stream(String)

        package var description: String {
            switch self {
            case .socket(let error): "\(error)"
            case .tls(let error): Self.describe(error)
            case .stream(let reason): reason
            }
        }

        /// One line naming the cause; a certificate problem first, since that is what a user can act on.
        static func describe(_ error: TLSError) -> String {
            if let range = error.detail.firstRange(of: "certificate verification: ") {
                return "TLS handshake failed: server certificate not trusted (\(error.detail[range.upperBound...]))"
            }
            return "\(error)"
        }
    }

    let socket: TCPSocket
    private let tls: TLSEngine?
    /// Bytes for the socket: ciphertext with TLS, else the WebSocket's bytes themselves.
    private var outgoing: [UInt8] = []
    private var cipherBuffer = [UInt8](repeating: 0, count: 65536)

    /// - Parameters:
    ///   - socket: a connected (or connecting) socket.
    ///   - tls: the engine for `wss://`, nil for `ws://`.
    init(socket: TCPSocket, tls: TLSEngine?) {
        self.socket = socket
        self.tls = tls
    }

    /// Whether there are bytes waiting for the socket to take them (poll for POLLOUT).
    package var wantsWrite: Bool { !outgoing.isEmpty }

    /// The negotiated TLS version once the handshake is done (`TLSv1.3`), nil for plain TCP.
    package var tlsVersion: String? { tls?.protocolVersion }

    /// The TCP connection is up: with TLS, queue the ClientHello.
    package func start() throws(Failure) {
        guard let tls else { return }
        do { try tls.start(into: &outgoing) } catch { throw .tls(error) }
    }

    /// Takes plaintext for the server (emptying `plaintext`) and writes what the socket accepts. Before the TLS
    /// handshake completes the engine keeps the plaintext and sends it as soon as it can.
    package func send(_ plaintext: inout [UInt8]) throws(Failure) {
        if !plaintext.isEmpty {
            if let tls {
                do { try tls.write(plaintext, into: &outgoing) } catch { throw .tls(error) }
            } else {
                outgoing.append(contentsOf: plaintext)
            }
            plaintext.removeAll(keepingCapacity: true)
        }
        try flush()
    }

    /// Writes queued bytes as far as the socket takes them.
    package func flush() throws(Failure) {
        guard !outgoing.isEmpty else { return }
        do { try socket.write(&outgoing) } catch { throw .socket(error) }
    }

    /// Reads what the socket has and appends the plaintext to `plaintext`.
    package func read(into plaintext: inout [UInt8]) throws(Failure) -> ReadResult {
        let count: Int?
        do { count = try socket.read(into: &cipherBuffer) } catch { throw .socket(error) }
        guard let count else { return .nothing }
        guard let tls else {
            if count == 0 { return .ended }
            plaintext.append(contentsOf: cipherBuffer[0..<count])
            return .bytes(count)
        }
        if count == 0 {
            // TCP EOF: whatever TLS still holds was already decrypted on earlier reads.
            return .ended
        }
        let before = plaintext.count
        do throws(TLSError) {
            let failure: TLSError? = cipherBuffer.withUnsafeBytes { bytes in
                do throws(TLSError) {
                    try tls.receive(UnsafeRawBufferPointer(rebasing: bytes[0..<count]), plaintext: &plaintext, output: &outgoing)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure { throw failure }
            // Poll will not report records OpenSSL has already taken in: decrypt them now.
            while tls.hasPendingPlaintext {
                let had = plaintext.count
                try tls.receive([], plaintext: &plaintext, output: &outgoing)
                if plaintext.count == had { break }
            }
        } catch {
            // An alert may be waiting in `outgoing`; send it so the server learns why, then report.
            try? socket.write(&outgoing)
            throw .tls(error)
        }
        // Handshake records, session tickets or writes kept until the handshake finished may be waiting.
        try flush()
        let produced = plaintext.count - before
        if tls.hasReceivedCloseNotify {
            return produced > 0 ? .bytes(produced) : .ended
        }
        return produced > 0 ? .bytes(produced) : .nothing
    }

    /// Whether the server sent close_notify (no more data will come).
    package var peerClosed: Bool { tls?.hasReceivedCloseNotify ?? false }

    /// Ends the connection: close_notify with TLS (best effort), then the socket.
    package func close() {
        if let tls, tls.isHandshakeComplete {
            tls.close(into: &outgoing)
            try? socket.write(&outgoing)
        }
        socket.close()
    }
}
