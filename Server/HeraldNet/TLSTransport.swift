import HeraldTLS

/// A connection's TLS, as a byte filter between its socket and its handler.
///
/// The handler never sees TLS: the loop feeds each read's ciphertext to the ``TLSEngine`` (memory BIOs, so it
/// never blocks) and hands the plaintext to `connectionDidRead`; the connection's writes are encrypted into its
/// ordinary write queue. Two crossovers are explicit:
/// - *read wants write*: a read may produce ciphertext nobody asked to write (handshake replies, session tickets,
///   alerts); the loop queues whatever the engine emits after every receive.
/// - *write wants read*: plaintext written before the handshake finishes stays inside the engine and goes out on the
///   receive that completes it.
///
/// A receive stops after one slice of plaintext (one TLS record), so one fast sender cannot monopolise the loop; what OpenSSL
/// still holds (``TLSEngine/hasPendingPlaintext``) is not visible to epoll, so the connection goes on the loop's
/// pending-read list, which is drained before the loop sleeps. Loop-confined.
@usableFromInline
final class TLSTransport {
    /// The OpenSSL state of this connection.
    let engine: TLSEngine
    /// On the loop's pending-read list already (avoids duplicates).
    var isPendingRead = false

    init(engine: TLSEngine) {
        self.engine = engine
    }
}

@available(*, unavailable)
extension TLSTransport: Sendable {}
