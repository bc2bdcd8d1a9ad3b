import Foundation
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// API keys as an operator manages them: `herald-server apikey create|list|revoke` on the database of a running
/// `herald-server`, and what the server then lets each key do over HTTP.
@Suite("API: key scopes, expiry and revocation (binary)", .serialized)
struct APIKeyScopeTests {
    /// `herald-server apikey <arguments> --db <db>`: exit status, stdout and stderr.
    static func apikey(_ arguments: [String], db: String) throws -> CompletedProcess {
        try runToCompletion(ServerHarness.binaryPath(), ["apikey"] + arguments + ["--db", db], timeout: .seconds(30))
    }

    /// A new key from `apikey create` with `arguments` (e.g. `--scope read`).
    static func createKey(_ server: ServerHarness, _ arguments: [String]) throws -> String {
        let result = try apikey(["create"] + arguments, db: server.databasePath)
        let key = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, APIKey.id(of: key) != nil else { throw APITestError.unexpected("apikey create: \(result.status) \(result.standardError)") }
        return key
    }

    @Test("A read key may call the GET endpoints; every write and minting a token is 403 forbidden; a full key may do both")
    func readKeyIsReadOnly() throws {
        let server = try ServerHarness.start(["--api-rate-limit", "0"])
        defer { server.stop() }
        let full = try APIClient(port: server.port, key: try Self.createKey(server, ["--scope", "full", "--name", "backend"]))
        let read = try APIClient(port: server.port, key: try Self.createKey(server, ["--scope", "read", "--name", "dashboard"]))
        #expect(try full.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        #expect(try full.request("POST", "/api/v1/users", json: #"{"id":"bob","name":"Bob"}"#).status == 201)

        #expect(try read.request("GET", "/api/v1/users/alice").status == 200)
        #expect(try read.request("GET", "/api/v1/users/alice/unread").status == 200)
        let writes: [(String, String)] = [
            ("/api/v1/users/alice/tokens", "{}"),
            ("/api/v1/users", #"{"id":"carol","name":"Carol"}"#),
            ("/api/v1/users/alice/notifications", #"{"kind":"mention","text":"hi"}"#),
            ("/api/v1/conversations", #"{"type":"dm","users":["alice","bob"]}"#),
            ("/api/v1/conversations/1/messages", #"{"sender":"alice","clientMessageId":"m1","text":"hi"}"#),
        ]
        for (path, json) in writes {
            let response = try read.request("POST", path, json: json)
            #expect(response.status == 403 && response.errorCode == "forbidden", "POST \(path): \(response.status) \(response.body)")
        }
        #expect(try full.request("GET", "/api/v1/users/carol").status == 404, "the refused create wrote nothing")

        let token = try full.request("POST", "/api/v1/users/alice/tokens", json: "{}")
        #expect(token.status == 201 && token.object?["token"] is String)
    }

    @Test("An expired key is refused 401 exactly like an unknown one; a key with time left works")
    func expiredKeyIsUnauthorized() throws {
        let server = try ServerHarness.start(["--api-rate-limit", "0"])
        defer { server.stop() }
        let now = APIKey.nowMilliseconds
        let expired = try APIKey.create(dbPath: server.databasePath, name: "old", scope: .full, createdAt: now - 120_000, expiresAt: now - 60_000)
        let unknown = "hk_\(String(repeating: "0", count: 16))_\(String(repeating: "a", count: 64))"
        let expiredAnswer = try APIClient(port: server.port, key: expired).request("GET", "/api/v1/users/alice")
        let unknownAnswer = try APIClient(port: server.port, key: unknown).request("GET", "/api/v1/users/alice")
        #expect(expiredAnswer.status == 401 && expiredAnswer.errorCode == "unauthorized")
        #expect(expiredAnswer.body == unknownAnswer.body && expiredAnswer.header("WWW-Authenticate") == unknownAnswer.header("WWW-Authenticate"))

        let hour = try APIClient(port: server.port, key: try Self.createKey(server, ["--ttl-seconds", "3600"]))
        #expect(try hour.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        // A key made to expire in a second stops working once that second has passed, on the same running server.
        let second = try APIClient(port: server.port, key: try Self.createKey(server, ["--ttl-seconds", "1"]))
        let refused = try Hardening.eventually(timeoutMs: 5_000) { try second.request("GET", "/api/v1/users/alice").status == 401 }
        #expect(refused)
        #expect(try hour.request("GET", "/api/v1/users/alice").status == 200)
    }

    @Test("`apikey revoke <id>` on a running server's database: the key's next request is 401, other keys keep working")
    func revokedKeyIsRefusedAtOnce() throws {
        let server = try ServerHarness.start(["--api-rate-limit", "0"])
        defer { server.stop() }
        let doomedKey = try Self.createKey(server, ["--name", "leaked"])
        let keptKey = try Self.createKey(server, ["--name", "kept"])
        let doomed = try APIClient(port: server.port, key: doomedKey)
        #expect(try doomed.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)

        let id = try #require(APIKey.id(of: doomedKey))
        let revoke = try Self.apikey(["revoke", id], db: server.databasePath)
        #expect(revoke.status == 0 && revoke.standardOutput.contains("revoked \(id)"), "\(revoke.standardError)")
        let after = try doomed.request("GET", "/api/v1/users/alice")
        #expect(after.status == 401 && after.errorCode == "unauthorized", "the same keep-alive connection is refused at its next request")
        #expect(try APIClient(port: server.port, key: doomedKey).request("GET", "/api/v1/users/alice").status == 401)
        #expect(try APIClient(port: server.port, key: keptKey).request("GET", "/api/v1/users/alice").status == 200)
        #expect(server.isRunning)
        #expect(try Self.apikey(["revoke", id], db: server.databasePath).status == 0, "revoking twice is not an error")
    }

    @Test("`apikey list` shows each key's id, name, scope, expiry and revocation, never the key nor its hash")
    func listNeverShowsSecrets() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let reader = try Self.createKey(server, ["--scope", "read", "--name", "dashboard", "--ttl-seconds", "3600"])
        let writer = try Self.createKey(server, ["--name", "backend"])
        let writerID = try #require(APIKey.id(of: writer)), readerID = try #require(APIKey.id(of: reader))
        #expect(try Self.apikey(["revoke", writerID], db: server.databasePath).status == 0)

        let list = try Self.apikey(["list"], db: server.databasePath)
        #expect(list.status == 0, "\(list.standardError)")
        let lines = list.standardOutput.split(separator: "\n").map(String.init)
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true) == ["ID", "NAME", "SCOPE", "CREATED", "EXPIRES", "REVOKED"])
        let readerLine = try #require(lines.first { $0.hasPrefix(readerID) })
        let writerLine = try #require(lines.first { $0.hasPrefix(writerID) })
        let readerFields = readerLine.split(separator: " ").map(String.init), writerFields = writerLine.split(separator: " ").map(String.init)
        #expect(readerFields.count == 6 && readerFields[1] == "dashboard" && readerFields[2] == "read" && readerFields[4] != "never" && readerFields[5] == "-")
        #expect(writerFields.count == 6 && writerFields[1] == "backend" && writerFields[2] == "full" && writerFields[4] == "never" && writerFields[5] != "-")
        for key in [reader, writer] {
            let secret = String(key.split(separator: "_").last ?? "")
            #expect(!list.standardOutput.contains(secret), "the key's secret part is never printed")
            #expect(!list.standardOutput.contains(APIKey.hex(APIKey.hash(key))), "nor its hash")
        }
    }

    @Test("apikey refuses an unknown scope, a lifetime out of range, an unknown id and a missing database, with a message and no trap")
    func badArgumentsAreRefused() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let scope = try Self.apikey(["create", "--scope", "admin"], db: server.databasePath)
        #expect(scope.status == 64 && scope.standardError.contains("--scope must be read or full"), "\(scope.standardError)")
        for lifetime in ["0", "-5", "99999999999999"] {
            let result = try Self.apikey(["create", "--ttl-seconds=\(lifetime)"], db: server.databasePath)
            #expect(result.status == 64 && result.standardError.contains("--ttl-seconds"), "\(lifetime): \(result.standardError)")
        }
        let unknown = try Self.apikey(["revoke", "0123456789abcdef"], db: server.databasePath)
        #expect(unknown.status == 1 && unknown.standardError.contains("no API key with id 0123456789abcdef"), "\(unknown.standardError)")
        let missing = server.directory.appendingPathComponent("typo.db").path
        let noDatabase = try Self.apikey(["list"], db: missing)
        #expect(noDatabase.status == 1 && noDatabase.standardError.contains("no database at"), "\(noDatabase.standardError)")
        #expect(!FileManager.default.fileExists(atPath: missing), "listing a mistyped path creates no database there")
    }
}
