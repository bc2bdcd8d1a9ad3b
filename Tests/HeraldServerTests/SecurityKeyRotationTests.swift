import Foundation
import Glibc
import HeraldCrypto
@testable import HeraldServer
import HeraldStore
import HeraldTestSupport
import Testing

/// Rotating the token signing secret with a grace period: several keys, the first signs, all verify, tokens name theirs.
@Suite("Security: signing keys rotate without logging everyone out", .serialized)
struct SecurityKeyRotationTests {
    static let claims = TokenClaims(sub: "alice", name: "Alice", iat: 1_763_800_000, exp: 1_763_803_600)
    static let now: Int64 = 1_763_800_001

    @Test("RFC 7515 §4.1.4 kid: a token names its key; the first line signs, every line verifies; an unknown kid or a removed key is refused")
    func keyringSignsWithTheFirstAndVerifiesWithAll() throws {
        let old = try #require(SigningKeys(lines: "old-secret"))
        let rotated = try #require(SigningKeys(lines: "new-secret\r\nold-secret\n"))
        let finished = try #require(SigningKeys(lines: "new-secret\n"))
        #expect(rotated.signing == Array("new-secret".utf8) && rotated.accepted.count == 2)
        #expect(SigningKeys(lines: "\n\n") == nil)

        let before = JSONWebToken.sign(Self.claims, keys: old)
        let after = JSONWebToken.sign(Self.claims, keys: rotated)
        let header = String(decoding: try #require(Base64URL.decode(after.split(separator: ".")[0])), as: UTF8.self)
        #expect(header.contains(#""kid":"\#(SigningKeys.keyID(of: Array("new-secret".utf8)))""#))
        #expect(SigningKeys.keyID(of: Array("new-secret".utf8)) != SigningKeys.keyID(of: Array("old-secret".utf8)))
        #expect(JSONWebToken.verify(before, keys: rotated, now: Self.now) == .success(Self.claims), "old tokens survive the rotation")
        #expect(JSONWebToken.verify(after, keys: rotated, now: Self.now) == .success(Self.claims))
        #expect(JSONWebToken.verify(after, keys: old, now: Self.now) == .failure(.badSignature), "a node without the new key refuses it")
        #expect(JSONWebToken.verify(before, keys: finished, now: Self.now) == .failure(.badSignature), "the old key's line is gone")
        // A token minted before keys had ids carries no kid: every key is tried.
        let legacy = JSONWebToken.sign(Self.claims, secret: Array("old-secret".utf8))
        #expect(JSONWebToken.verify(legacy, keys: rotated, now: Self.now) == .success(Self.claims))
    }

    static func writeSecret(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    @Test("Rotation through the binary: old tokens work while the old secret is a second line of --secret-file, new tokens use the new one, removing the old line ends the old tokens")
    func rotationThroughTheBinary() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-rotate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("herald.db").path, secret = directory.appendingPathComponent("secret").path
        func token() throws -> String {
            let result = try runToCompletion(ServerHarness.binaryPath(), ["token", "alice", "--db", database, "--secret-file", secret], timeout: .seconds(30))
            try #require(result.status == 0, "\(result.standardError)")
            return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func withServer(_ body: (Int) throws -> Void) throws {
            let server = try ServerHarness.start(["--db", database, "--secret-file", secret])
            defer { server.stop() }
            try body(server.port)
        }
        try Self.writeSecret("old-secret-0123456789\n", to: secret)
        try SQLiteStore.createDatabase(at: database)
        let oldToken = try token()
        try withServer { (port: Int) throws in #expect(try Hardening.syncUpgradeStatus(port: port, token: oldToken) == 101) }

        try Self.writeSecret("new-secret-9876543210\nold-secret-0123456789\n", to: secret)
        let newToken = try token()
        try withServer { (port: Int) throws in
            #expect(try Hardening.syncUpgradeStatus(port: port, token: oldToken) == 101, "still valid during the grace period")
            #expect(try Hardening.syncUpgradeStatus(port: port, token: newToken) == 101)
        }

        try Self.writeSecret("new-secret-9876543210\n", to: secret)
        try withServer { (port: Int) throws in
            #expect(try Hardening.syncUpgradeStatus(port: port, token: oldToken) == 401, "refused once the old line is removed")
            #expect(try Hardening.syncUpgradeStatus(port: port, token: newToken) == 101)
        }
    }
}
