import Foundation
import HeraldProtocol
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import HeraldWebSocket
import Logging
import Testing

/// HeraldHTTPServer + SyncService + APIService in this process, on an ephemeral port and a temporary database,
/// with one API key.
final class InProcessAPIServer: @unchecked Sendable {
    let server: HeraldHTTPServer
    let sync: SyncService
    let api: APIService
    let directory: URL
    let databasePath: String
    let port: Int
    let key: String
    private let stopped = DispatchSemaphore(value: 0)

    init(api apiOptions: APIOptions = APIOptions(rateLimitPerSecond: 0), pushGraceSeconds: Double = 2) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("api-it-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("herald.db").path
        key = try APIKey.create(dbPath: databasePath, name: "test")
        var options = HeraldServerOptions()
        options.port = 0
        options.threads = 2
        options.dbPath = databasePath
        options.pushGraceSeconds = pushGraceSeconds
        options.handshakeTimeoutMs = 3_000
        var logger = Logger(label: "api-test")
        logger.logLevel = .warning
        server = HeraldHTTPServer(options: options, logger: logger)
        sync = try SyncService(
            storage: SyncStorage(store: try SQLiteStore(path: options.dbPath, checkpointsInBackground: true)), options: options, server: server,
            logger: logger)
        api = APIService(sync: sync, server: server, options: apiOptions, logger: logger)
        try server.start()
        port = server.boundPort
        let server = self.server, stopped = self.stopped
        Thread.detachNewThread {
            server.runUntilShutdown()
            stopped.signal()
        }
    }

    /// A token for `user` as a /sync client would get it from the API.
    func token(_ user: String) throws -> String {
        let client = try APIClient(port: port, key: key)
        let response = try client.request("POST", "/api/v1/users/\(user)/tokens", json: "{}")
        guard response.status == 201, let token = response.object?["token"] as? String else { throw APITestError.unexpected(response.body) }
        return token
    }

    func stop() {
        server.shutdown()
        stopped.wait()
        sync.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}

enum APITestError: Error { case unexpected(String) }

/// An HTTP/1.1 client on one keep-alive socket (the raw test client), speaking JSON to /api/v1.
final class APIClient {
    let raw: RawWebSocketClient
    let key: String?

    init(port: Int, key: String?) throws {
        raw = try RawWebSocketClient(port: port)
        self.key = key
    }

    /// The bytes of a request with a Content-Length body (or none).
    static func requestBytes(_ method: String, _ path: String, json: String? = nil, key: String?, extraHeaders: [(String, String)] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let key { head += "Authorization: Bearer \(key)\r\n" }
        for (name, value) in extraHeaders { head += "\(name): \(value)\r\n" }
        if let json { head += "Content-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n" }
        return Array((head + "\r\n" + (json ?? "")).utf8)
    }

    /// Sends one request and reads its response.
    func request(_ method: String, _ path: String, json: String? = nil, extraHeaders: [(String, String)] = []) throws -> APIResponse {
        try raw.send(Self.requestBytes(method, path, json: json, key: key, extraHeaders: extraHeaders))
        return try read()
    }

    func read() throws -> APIResponse {
        APIResponse(try raw.readHTTPResponse())
    }

    func close() { raw.close() }
}

/// A response with its JSON body parsed.
struct APIResponse {
    let raw: RawHTTPResponse
    var status: Int { raw.status }
    var body: String { raw.body }
    func header(_ name: String) -> String? { raw.header(name) }

    init(_ raw: RawHTTPResponse) { self.raw = raw }

    var object: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(raw.body.utf8))) as? [String: Any]
    }

    /// The stable error code of an error response.
    var errorCode: String? { (object?["error"] as? [String: Any])?["code"] as? String }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: Data(raw.body.utf8))
    }
}

extension APIClient {
    /// Creates alice, bob and carol (named after themselves) and returns the id of a new DM between alice and bob:
    /// the common start of the API tests that act on a conversation.
    func aliceBobDMWithCarolOutside() throws -> String {
        for user in ["alice", "bob", "carol"] { _ = try request("POST", "/api/v1/users", json: #"{"id":"\#(user)","name":"\#(user.capitalized)"}"#) }
        return try #require(try request("POST", "/api/v1/conversations", json: #"{"kind":"direct","members":["alice","bob"]}"#).object?["id"] as? String)
    }
}
