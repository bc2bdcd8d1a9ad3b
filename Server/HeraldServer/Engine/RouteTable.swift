import HeraldWebSocket

/// The server's routes, frozen at start: exact paths to endpoints, plus an optional fallback for the rest.
struct RouteTable: Sendable {
    /// What a path leads to.
    enum Endpoint: Sendable {
        /// `GET /healthz`: 200 "ok".
        case health
        /// A WebSocket endpoint; `decide` accepts or rejects each valid upgrade request.
        case webSocket(@Sendable (HTTPRequestHead) -> UpgradeDecision)
    }

    var exact: [String: Endpoint] = ["/healthz": .health]
    /// Used for any path not in `exact` (the benchmark broadcast endpoint); nil means 404.
    var fallback: Endpoint?

    func endpoint(for path: String) -> Endpoint? { exact[path] ?? fallback }

    /// Plain-HTTP handlers by path prefix (the backend API under `/api/v1/`), tried before `exact` and `fallback`.
    var prefixHandlers: [(prefix: String, handler: any HTTPRequestHandler)] = []

    /// The handler whose prefix `path` starts with, if any.
    func httpHandler(for path: String) -> (any HTTPRequestHandler)? {
        prefixHandlers.first { path.hasPrefix($0.prefix) }?.handler
    }
}
