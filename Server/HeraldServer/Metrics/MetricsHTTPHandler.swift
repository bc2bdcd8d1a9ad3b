import HeraldNet
import HeraldProtocol
import HeraldWebSocket
import Logging
import Synchronization

/// `GET /metrics`: every ``ServerMetrics`` counter plus the loops' socket counters, in Prometheus text format.
///
/// The outbound-queue gauge is summed on each loop's own thread (a task per loop), so the answer is assembled
/// once the last loop reported; nothing on the frame path takes a lock for it.
final class MetricsHTTPHandler: HTTPRequestHandler {
    let maxBodySize = 0
    private let metrics: ServerMetrics
    private let loops: @Sendable () -> [EventLoop]
    /// With `--metrics-token-file`: the bearer token every request must carry; nil: no authentication.
    private let authorization: MetricsAuthorization?
    private let warnings: LimitWarnings?
    /// The server's input budget, whose charge is reported as a gauge.
    private let inputBudget: InputBudget?

    init(metrics: ServerMetrics, loops: @escaping @Sendable () -> [EventLoop], authorization: MetricsAuthorization? = nil,
         warnings: LimitWarnings? = nil, inputBudget: InputBudget? = nil) {
        self.inputBudget = inputBudget
        self.metrics = metrics
        self.loops = loops
        self.authorization = authorization
        self.warnings = warnings
    }

    func handle(_ request: HTTPRequest, connection: HTTPConnectionInfo, respond: @escaping @Sendable (HTTPResponse) -> Void) {
        guard request.head.path == "/metrics" else {
            return respond(.error(404, code: "not_found", "no such endpoint: \(request.head.path.prefix(64))"))
        }
        if let authorization, !authorization.permits(request.head.headers["Authorization"]) {
            warnings?.warn(.authenticationFailed, "refused: authentication failed",
                           metadata: ["peer": "\(connection.remoteAddress)", "route": "/metrics", "status": "401",
                                      "reason": "\(request.head.headers["Authorization"] == nil ? "no bearer token" : "wrong bearer token")"])
            return respond(.error(401, code: "unauthorized", "this server's metrics need Authorization: Bearer <metrics token>",
                                  headers: [("WWW-Authenticate", "Bearer")]))
        }
        guard request.head.method == "GET" || request.head.method == "HEAD" else {
            return respond(.error(405, code: "method_not_allowed", "use GET", headers: [("Allow", "GET, HEAD")]))
        }
        let loops = self.loops()
        let open = connection.openConnections
        guard !loops.isEmpty else { return respond(render(queued: [], open: open)) }
        // Each loop adds its queued bytes; the last one to answer renders.
        let gathered = Mutex<(pending: Int, queued: [Int])>((loops.count, Array(repeating: 0, count: loops.count)))
        for loop in loops {
            loop.execute {
                let bytes = loop.queuedOutputBytes
                let done = gathered.withLock { state -> [Int]? in
                    state.queued[loop.index % state.queued.count] = bytes
                    state.pending -= 1
                    return state.pending == 0 ? state.queued : nil
                }
                if let queued = done { respond(self.render(queued: queued, open: open)) }
            }
        }
    }

    private func render(queued: [Int], open: Int) -> HTTPResponse {
        var out = PrometheusText()
        let loops = self.loops()
        let sessions = metrics.webSocketSessions.load()
        out.family("herald_connections", "gauge", "Open TCP connections by state.")
        out.sample("herald_connections", [("state", "websocket")], sessions)
        out.sample("herald_connections", [("state", "http")], max(0, open - sessions))
        out.single("herald_connections_accepted_total", "counter", "TCP connections accepted.",
                   loops.reduce(0) { $0 + $1.counters.accepted.load(ordering: .relaxed) })
        out.single("herald_websocket_upgrades_total", "counter", "Connections upgraded to WebSocket.", metrics.upgrades.load())
        out.family("herald_connections_refused_total", "counter", "Connections refused before any upgrade, by limit.")
        for (index, refusal) in ServerMetrics.Refusal.allCases.enumerated() {
            out.sample("herald_connections_refused_total", [("reason", refusal.rawValue)], metrics.refusals[index].load())
        }
        if let inputBudget {
            out.single("herald_buffered_input_bytes", "gauge",
                       "Bytes held in unfinished WebSocket messages and unanswered large /sync requests (--max-buffered-input-bytes).",
                       inputBudget.chargedBytes)
        }
        out.single("herald_http_bad_requests_total", "counter", "HTTP requests answered with a 4xx/5xx refusal (bad handshake, unknown path).",
                   metrics.badRequests.load())
        out.single("herald_handshake_timeouts_total", "counter", "Connections dropped for not sending a request head in time.",
                   metrics.handshakeTimeouts.load())
        out.single("herald_slow_consumer_closes_total", "counter", "Connections closed because their outbound queue hit its byte bound.",
                   loops.reduce(0) { $0 + $1.counters.slowConsumerCloses.load(ordering: .relaxed) })
        out.single("herald_accept_descriptor_exhaustion_total", "counter",
                   "accept4 failures for lack of descriptors or kernel memory (EMFILE, ENFILE, ENOBUFS, ENOMEM); each pauses the listener one tick.",
                   loops.reduce(0) { $0 + $1.counters.descriptorExhaustions.load(ordering: .relaxed) })
        out.family("herald_websocket_closes_total", "counter", "WebSocket sessions failed or ended by the server, by close code.")
        for (index, code) in ServerMetrics.countedCloseCodes.enumerated() {
            out.sample("herald_websocket_closes_total", [("code", String(code))], metrics.closesByCode[index].load())
        }
        out.sample("herald_websocket_closes_total", [("code", "other")], metrics.closesByCode[ServerMetrics.countedCloseCodes.count].load())
        out.single("herald_bytes_received_total", "counter", "Bytes read from sockets.",
                   loops.reduce(0) { $0 + $1.counters.bytesRead.load(ordering: .relaxed) })
        out.single("herald_bytes_sent_total", "counter", "Bytes written to sockets.",
                   loops.reduce(0) { $0 + $1.counters.bytesWritten.load(ordering: .relaxed) })
        out.single("herald_websocket_messages_received_total", "counter", "WebSocket data messages received.",
                   metrics.loops.reduce(0) { $0 + $1.messagesIn.load() })
        out.single("herald_websocket_control_frames_received_total", "counter", "WebSocket ping, pong and close frames received.",
                   metrics.loops.reduce(0) { $0 + $1.controlFramesIn.load() })
        // Sync deliveries are counted once by the sync thread; echoes and session-written messages per loop.
        out.single("herald_websocket_frames_sent_total", "counter", "WebSocket data frames queued for sending (session messages and /sync deliveries).",
                   metrics.loops.reduce(0) { $0 + $1.framesOut.load() } + metrics.fanoutDeliveries.load())
        out.single("herald_outbound_queue_bytes", "gauge", "Bytes queued for sending and not yet taken by the kernel.", queued.reduce(0, +))
        out.single("herald_messages_stored_total", "counter", "Chat messages stored (retries not counted).", metrics.messagesStored.load())
        out.single("herald_fanout_deliveries_total", "counter", "Frames handed to /sync sessions (one per device per delivery).",
                   metrics.fanoutDeliveries.load())
        out.single("herald_resumes_total", "counter", "sync requests answered in resume mode.", metrics.resumes.load())
        out.single("herald_resume_replayed_events_total", "counter", "Stream events replayed to resuming devices.",
                   metrics.replayedEvents.load())
        out.single("herald_stream_gap_reads_total", "counter", "Live devices brought up to date from the store because their next event would have skipped some.",
                   metrics.streamGapReads.load())
        out.single("herald_stream_held_events_total", "counter",
                   "Several nodes: stream events held for a device until another node's earlier events reached it.", metrics.heldStreamEvents.load())
        out.single("herald_stream_held_timeouts_total", "counter", "Holds that waited too long and read the gap from the store.",
                   metrics.heldFramesTimedOut.load())
        out.family("herald_sync_errors_total", "counter", "herald.v1 error responses by code.")
        for (index, code) in ErrorCode.allCases.enumerated() {
            out.sample("herald_sync_errors_total", [("code", code.rawValue)], metrics.syncErrors[index].load())
        }
        out.histogram("herald_delivery_latency_seconds", "Sync batch commit to its frames queued on the event loop.", metrics.deliveryLatency)
        out.histogram("herald_sync_batch_seconds", "One batch of the sync thread: its requests' work and the store transaction, commit included.",
                      metrics.syncBatchDuration)
        let appended = metrics.appended.withLock { $0 }.map { $0() }.joined()
        return HTTPResponse(
            status: 200, headers: [("Content-Type", "text/plain; version=0.0.4; charset=utf-8")], body: Array((out.text + appended).utf8))
    }
}
