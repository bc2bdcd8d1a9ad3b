import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// Identity, idempotency-key and token-lifetime findings of the security review, through the real `herald-server`.
@Suite("Security: identities, clientMessageId reuse, token lifetime (binary)", .serialized)
struct SecurityIdentityTests {
    /// `Kate` with U+212A KELVIN SIGN instead of K, and `José` with a combining acute accent: canonically equivalent to
    /// `Kate` and `José` (so one key in a Swift dictionary), different bytes in the database.
    static let kelvinKate = "\u{212A}ate"
    static let decomposedJose = "Jose\u{0301}"

    static func storedSecret(_ path: String) throws -> [UInt8] {
        let store = try SQLiteStore(path: path)
        defer { store.close() }
        return try store.secret(orCreate: { [] })
    }

    @Test("Identities: ids canonically equivalent to another user's (Kelvin sign, decomposed é) cannot be minted nor used, live or after a restart; the real user's messages reach only her")
    func canonicallyEquivalentIdsNeverShareAnIdentity() throws {
        // A database of the test's own, so it outlives the first server.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-identity-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("herald.db").path
        func token(_ user: String) throws -> String {
            try TokenIssuer.issue(dbPath: database, user: user, name: nil, secret: nil, ttlSeconds: 600)
        }
        var server = try ServerHarness.start(["--db", database])
        defer { server.stop() }
        for id in [Self.kelvinKate, Self.decomposedJose, "ali ce", "bob\n", ".dot", ""] {
            let minted = try runToCompletion(ServerHarness.binaryPath(), ["token", id, "--db", database], timeout: .seconds(30))
            #expect(minted.status != 0, "token \(id.debugDescription) was minted")
            #expect(minted.standardError.contains("user id must be"), "\(minted.standardError)")
        }
        // A holder of the signing secret (a backend) cannot mint one either: the server checks every token's subject.
        let secret = try Self.storedSecret(database)
        let now = Int64(Date().timeIntervalSince1970)
        let forged = JSONWebToken.sign(TokenClaims(sub: Self.kelvinKate, name: "Mallory", iat: now, exp: now + 3_600), secret: secret)
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: forged) == 401)

        let kate = try SyncTestClient(port: server.port, token: try token("Kate"))
        let alice = try SyncTestClient(port: server.port, token: try token("alice"))
        try kate.request(#"{"type":"sync"}"#)
        try alice.request(#"{"type":"sync"}"#)
        // The look-alike cannot be addressed either: a request naming it is refused before the store.
        #expect(try alice.request(#"{"type":"dm","user":"\#(Self.kelvinKate)"}"#).error?.code == .badRequest)
        #expect(try alice.request(#"{"type":"group","title":"g","members":["\#(Self.decomposedJose)"]}"#).error?.code == .badRequest)
        #expect(try alice.request(#"{"type":"follow","user":"\#(Self.kelvinKate)"}"#).error?.code == .badRequest)
        let c = try #require(try alice.request(#"{"type":"dm","user":"Kate"}"#).conversation?.id)
        try alice.request(#"{"type":"send","conversation":"\#(c)","clientMessageId":"a-1","text":"for Kate only"}"#)
        #expect(try kate.event { $0.event == .message }.message?.text == "for Kate only")
        kate.close()
        alice.close()

        server.stop()
        server = try ServerHarness.start(["--db", database])
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: forged) == 401, "still refused after a restart")
        let again = try SyncTestClient(port: server.port, token: try token("Kate"))
        defer { again.close() }
        try again.request(#"{"type":"sync"}"#)
        #expect(try again.request(#"{"type":"history","conversation":"\#(c)"}"#).messages?.map(\.text) == ["for Kate only"])
    }

    @Test("R4: a clientMessageId reused in another conversation is refused with conflict; nothing is dropped silently, the retry in the first stays a duplicate")
    func clientMessageIdReusedElsewhereIsRefused() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let alice = try SyncTestClient(port: server.port, token: try Hardening.token(server, "alice"))
        defer { alice.close() }
        _ = try Hardening.token(server, "bob")
        _ = try Hardening.token(server, "carol")
        try alice.request(#"{"type":"sync"}"#)
        let withBob = try #require(try alice.request(#"{"type":"dm","user":"bob"}"#).conversation?.id)
        let withCarol = try #require(try alice.request(#"{"type":"dm","user":"carol"}"#).conversation?.id)
        let first = try alice.request(#"{"type":"send","conversation":"\#(withBob)","clientMessageId":"k-1","text":"to bob"}"#)
        #expect(first.ok && first.duplicate == false)
        let reused = try alice.request(#"{"type":"send","conversation":"\#(withCarol)","clientMessageId":"k-1","text":"to carol"}"#)
        #expect(reused.error?.code == .conflict, "\(String(describing: reused.error))")
        #expect(reused.message == nil, "never answered with the other conversation's message")
        let retry = try alice.request(#"{"type":"send","conversation":"\#(withBob)","clientMessageId":"k-1","text":"to bob"}"#)
        #expect(retry.duplicate == true && retry.message?.id == first.message?.id)
        let fresh = try alice.request(#"{"type":"send","conversation":"\#(withCarol)","clientMessageId":"k-2","text":"to carol"}"#)
        #expect(fresh.ok)
        #expect(try alice.request(#"{"type":"history","conversation":"\#(withCarol)"}"#).messages?.map(\.text) == ["to carol"])
    }

    @Test("A connection ends with its token: a 3 s token kept alive by pings is closed with 4001 when it expires, and cannot reconnect")
    func tokenExpiryClosesTheConnection() throws {
        let server = try ServerHarness.start(["--ping-interval-ms", "500"])
        defer { server.stop() }
        let token = try TokenIssuer.issue(dbPath: server.databasePath, user: "alice", name: "Alice", secret: nil, ttlSeconds: 3)
        let opened = Date()
        let alice = try SyncTestClient(port: server.port, token: token)
        defer { alice.close() }
        try alice.request(#"{"type":"sync"}"#)
        let code = try alice.raw.readCloseCode(timeoutMilliseconds: 8_000)
        #expect(code == HeraldCloseCode.credentialsEnded)
        #expect(Date().timeIntervalSince(opened) >= 1.5, "not closed before the token ran out")
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: token) == 401)
    }

    @Test("The herald client stops (exit 3, unauthorized) when its token expires instead of reconnecting in a loop")
    func clientStopsWhenItsTokenExpires() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let token = try TokenIssuer.issue(dbPath: server.databasePath, user: "alice", name: "Alice", secret: nil, ttlSeconds: 3)
        let errorPath = server.directory.appendingPathComponent("client.err").path
        // Script mode with stdin held open: only the server can end this client.
        let client = try ChildProcess(
            HeraldBinaries.client, ["--server", "ws://127.0.0.1:\(server.port)", "--token", token, "--script"], input: .pipe, error: .file(errorPath))
        defer { if let input = client.pipes.input { close(input) } }
        let status = client.waitForExitOrKill(timeout: .seconds(20))
        let standardError = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
        #expect(status == 3, "exit \(status): \(standardError)")
        #expect(standardError.contains("get a new token"), "\(standardError)")
    }
}
