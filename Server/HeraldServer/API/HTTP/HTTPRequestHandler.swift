import HeraldWebSocket

/// Serves plain HTTP requests under a path prefix (the backend API under `/api/v1/`), on keep-alive connections.
///
/// Registered with ``HeraldHTTPServer/addHTTPRoute(prefix:handler:)``. The engine reads each request's body
/// (Content-Length or chunked, up to ``maxBodySize``), calls ``handle(_:connection:respond:)`` and holds later
/// pipelined requests of the connection until `respond` was called, so answers go out in order.
public protocol HTTPRequestHandler: Sendable {
    /// The largest request body accepted; a larger one is answered 413 and the connection closed.
    var maxBodySize: Int { get }
    /// Called on a loop thread for each complete request; must not block. Call `respond` exactly once, from any thread.
    func handle(_ request: HTTPRequest, connection: HTTPConnectionInfo, respond: @escaping @Sendable (HTTPResponse) -> Void)
}

/// What a handler may know about the connection and the server.
public struct HTTPConnectionInfo: Sendable {
    /// The peer as "ip:port".
    public var remoteAddress: String
    /// Connections the server has open right now (HTTP and WebSocket).
    public var openConnections: Int
}
