import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import HeraldWebSocket
import Logging

/// A herald.v1 client over a real socket for tests: JSON requests with ids, responses matched by id,
/// events buffered in arrival order.
final class SyncTestClient {
    let raw: RawWebSocketClient
    private var nextId = 1
    /// Events received and not yet taken, but typing and presence (E1, E2).
    private(set) var events: [EventFrame] = []
    /// Typing and presence events, kept apart: a sync brings the contacts' presence, which the stream's tests ignore.
    private(set) var ephemeralEvents: [EventFrame] = []
    /// Every frame in arrival order (responses and events).
    private(set) var log: [ServerFrame] = []

    init(port: Int, token: String, device: String? = nil, timeoutMilliseconds: Int = 5_000) throws {
        let path = "/sync" + (device.map { "?device=\($0)" } ?? "")
        raw = try RawWebSocketClient.connect(
            port: port, path: path, extraHeaders: [("Authorization", "Bearer \(token)"), ("Sec-WebSocket-Protocol", "herald.v1")],
            timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sends a request (JSON object without `id`; one is added) and waits for its response.
    @discardableResult
    func request(_ json: String) throws -> ResponseFrame {
        let id = nextId
        nextId += 1
        var text = json
        text.removeFirst()
        try raw.sendText("{\"id\":\(id),\(text)")
        return try response(id: id)
    }

    /// Reads frames until the response with `id`.
    func response(id: Int?) throws -> ResponseFrame {
        while true {
            let frame = try read()
            if case .response(let response) = frame, response.id == id { return response }
        }
    }

    /// Reads frames until a response whose id is `id` or one of `ids`.
    func response(id: Int?, orAnyOf ids: Set<Int>) throws -> ResponseFrame {
        while true {
            let frame = try read()
            if case .response(let response) = frame, response.id == id || response.id.map(ids.contains) == true { return response }
        }
    }

    /// Sends raw text without waiting.
    func sendRaw(_ text: String) throws { try raw.sendText(text) }

    private func read(timeoutMilliseconds: Int? = nil) throws -> ServerFrame {
        let message = try raw.readMessage(timeoutMilliseconds: timeoutMilliseconds)
        switch ServerFrame.decode(message.payload) {
        case .success(let frame):
            log.append(frame)
            if case .event(let event) = frame {
                if event.event == .typing || event.event == .presence { ephemeralEvents.append(event) } else { events.append(event) }
            }
            return frame
        case .failure(let error):
            throw error
        }
    }

    /// Waits for an event matching `where` (taking it and everything before it).
    func event(timeoutMilliseconds: Int = 3_000, where match: (EventFrame) -> Bool) throws -> EventFrame {
        let deadline = syncTestNow() + Int64(timeoutMilliseconds)
        while true {
            if let index = events.firstIndex(where: match) {
                let found = events[index]
                events.removeFirst(index + 1)
                return found
            }
            let left = deadline - syncTestNow()
            guard left > 0 else { throw RawClientError.timeout }
            _ = try read(timeoutMilliseconds: Int(left))
        }
    }

    /// Collects whatever arrives within `milliseconds` (for "nothing arrives" checks) and returns the buffered events.
    func settle(milliseconds: Int) -> [EventFrame] {
        let deadline = syncTestNow() + Int64(milliseconds)
        while true {
            let left = deadline - syncTestNow()
            if left <= 0 { break }
            do { _ = try read(timeoutMilliseconds: Int(left)) } catch { break }
        }
        defer { events = [] }
        return events
    }

    func close() { raw.close() }
}

/// A HeraldHTTPServer with the SyncService, in this process, on an ephemeral port and a temporary database.
final class InProcessSyncServer: @unchecked Sendable {
    let server: HeraldHTTPServer
    let sync: SyncService
    let directory: URL
    let databasePath: String
    let port: Int
    private let stopped = DispatchSemaphore(value: 0)

    init(pushGraceSeconds: Double = 2, databasePath: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.databasePath = databasePath ?? directory.appendingPathComponent("herald.db").path
        var options = HeraldServerOptions()
        options.port = 0
        options.threads = 2
        options.dbPath = self.databasePath
        options.pushGraceSeconds = pushGraceSeconds
        var logger = Logger(label: "sync-test")
        logger.logLevel = .warning
        server = HeraldHTTPServer(options: options, logger: logger)
        sync = try SyncService(
            storage: SyncStorage(store: try SQLiteStore(path: options.dbPath, checkpointsInBackground: true)), options: options, server: server,
            logger: logger)
        try server.start()
        port = server.boundPort
        let server = self.server, stopped = self.stopped
        Thread.detachNewThread {
            server.runUntilShutdown()
            stopped.signal()
        }
    }

    func token(_ user: String, name: String? = nil, ttl: Int = 3_600) throws -> String {
        try TokenIssuer.issue(dbPath: databasePath, user: user, name: name ?? user.capitalized, secret: nil, ttlSeconds: ttl)
    }

    func stop() {
        server.shutdown()
        stopped.wait()
        sync.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Wall-clock milliseconds for test deadlines.
func syncTestNow() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
