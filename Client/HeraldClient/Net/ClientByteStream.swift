/// The byte pipe under the WebSocket, as the client loop sees it: our own socket with TLS (``ClientTransport``), or a
/// stream an app supplies (HeraldKit's injected transport, e.g. Apple's Network framework). The loop polls
/// ``pollDescriptor`` when there is one; a stream without one wakes the loop through the front end's wake-up instead
/// and says so with ``hasPendingInput``.
package protocol ClientByteStream: AnyObject {
    /// The descriptor to poll for readiness; -1 for a stream that wakes the loop itself.
    var pollDescriptor: Int32 { get }
    /// Whether a stream without a descriptor has something to report (opened, bytes, end).
    var hasPendingInput: Bool { get }
    /// Whether bytes wait for the stream to take them (poll for POLLOUT).
    var wantsWrite: Bool { get }
    /// The negotiated TLS version, when this side runs TLS.
    var tlsVersion: String? { get }
    /// While connecting: the reason the connection failed, if it did.
    func connectFailure() -> String?
    /// Whether the connection is up, so the WebSocket handshake can start (a socket says so by being writable).
    var isOpen: Bool { get }
    /// The connection is up: begin (a TLS ClientHello).
    func start() throws(ClientTransport.Failure)
    /// Takes the bytes for the server (emptying `bytes`) and writes what the stream accepts.
    func send(_ bytes: inout [UInt8]) throws(ClientTransport.Failure)
    /// Writes queued bytes as far as the stream takes them.
    func flush() throws(ClientTransport.Failure)
    /// Appends what the server sent to `bytes`.
    func read(into bytes: inout [UInt8]) throws(ClientTransport.Failure) -> ClientTransport.ReadResult
    /// Whether the server ended the stream under the WebSocket (TLS close_notify).
    var peerClosed: Bool { get }
    /// Ends the connection.
    func close()
}

/// Makes the byte stream for one connection attempt to `host`:`port` (`secure`: the app's stream runs TLS itself).
/// Called on the client loop's thread.
package typealias ClientByteStreamFactory = @Sendable (_ host: String, _ port: Int, _ secure: Bool) -> any ClientByteStream

extension ClientTransport: ClientByteStream {
    package var pollDescriptor: Int32 { socket.fd }
    package var hasPendingInput: Bool { false }
    package var isOpen: Bool { true }
    package func connectFailure() -> String? { socket.connectResult().map { "\($0)" } }
}
