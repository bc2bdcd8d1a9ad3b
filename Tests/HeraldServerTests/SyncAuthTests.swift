import Foundation
import HeraldCrypto
import HeraldProtocol
import HeraldStore
@testable import HeraldServer
import HeraldWebSocket
import Testing

@Suite("Auth: HS256 tokens and /sync upgrade decisions")
struct SyncAuthTests {
    /// Made with python3: hmac.new(b"herald-test-secret", header.payload, hashlib.sha256), base64url without padding,
    /// claims json.dumps(sort_keys=True, separators=(',',':')).
    static let pythonToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJleHAiOjE3NjM4MDM2MDAsImlhdCI6MTc2MzgwMDAwMCwibmFtZSI6IkFsaWNlIiwic3ViIjoiYWxpY2UifQ.BYn0rfjdVOSMqn29tnP3pez15kIfcPGAhtmpnIbUXaA"
    static let secret = Array("herald-test-secret".utf8)
    static let claims = TokenClaims(sub: "alice", name: "Alice", iat: 1_763_800_000, exp: 1_763_803_600)

    @Test("RFC 7519: a token signed by python3's hmac verifies, and signing the same claims gives the same bytes")
    func knownVector() {
        #expect(JSONWebToken.verify(Self.pythonToken, secret: Self.secret, now: 1_763_800_001) == .success(Self.claims))
        #expect(JSONWebToken.sign(Self.claims, secret: Self.secret) == Self.pythonToken)
    }

    @Test("an expired token is refused (exp must be after now)")
    func expired() {
        #expect(JSONWebToken.verify(Self.pythonToken, secret: Self.secret, now: 1_763_803_600) == .failure(.expired))
    }

    @Test("a tampered signature, payload, wrong secret or alg none is refused")
    func tampered() {
        var signature = Array(Self.pythonToken.utf8)
        signature[signature.count - 2] = signature[signature.count - 2] == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
        #expect(JSONWebToken.verify(String(decoding: signature, as: UTF8.self), secret: Self.secret, now: 1_763_800_001) == .failure(.badSignature))
        let parts = Self.pythonToken.split(separator: ".")
        let forged = Base64URL.encode(Array(#"{"exp":1763803600,"iat":1763800000,"name":"Mallory","sub":"bob"}"#.utf8))
        #expect(JSONWebToken.verify("\(parts[0]).\(forged).\(parts[2])", secret: Self.secret, now: 1_763_800_001) == .failure(.badSignature))
        #expect(JSONWebToken.verify(Self.pythonToken, secret: Array("other".utf8), now: 1_763_800_001) == .failure(.badSignature))
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        #expect(JSONWebToken.verify("\(none).\(parts[1]).", secret: Self.secret, now: 1_763_800_001) == .failure(.unsupportedAlgorithm("none")))
        #expect(JSONWebToken.verify("a.b", secret: Self.secret, now: 0) == .failure(.malformed("expected three segments")))
        #expect(JSONWebToken.verify("!!.??.**", secret: Self.secret, now: 0) == .failure(.malformed("segment is not base64url")))
    }

    @Test("base64url round-trips every length and refuses padding and stray characters")
    func base64url() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(Base64URL.decode("YQ==") == nil)
        #expect(Base64URL.decode("Y") == nil)
        #expect(Base64URL.decode("YR") == nil, "non-zero trailing bits")
    }

    func head(_ target: String, _ headers: [(String, String)] = []) -> HTTPRequestHead {
        HTTPRequestHead(method: "GET", target: target, headers: HTTPHeaders([("Host", "x")] + headers))
    }

    @Test("/sync: the token comes from Authorization: Bearer or ?token=; missing, bad or expired gives 401")
    func authorizer() {
        let authorizer = SyncUpgradeAuthorizer(secret: Self.secret)
        let now: Int64 = 1_763_800_001
        let bearer = authorizer.authorize(head("/sync", [("Authorization", "Bearer \(Self.pythonToken)")]), now: now)
        #expect((try? bearer.get())?.claims == Self.claims)
        #expect((try? bearer.get())?.subprotocol == nil, "no subprotocol offered: accepted without one")
        let query = authorizer.authorize(head("/sync?token=\(Self.pythonToken)&device=phone-1"), now: now)
        #expect((try? query.get())?.deviceName == "phone-1")
        for refused in [head("/sync"), head("/sync?token=abc"), head("/sync", [("Authorization", "Basic abc")])] {
            guard case .failure(let refusal) = authorizer.authorize(refused, now: now) else { Issue.record("accepted \(refused.target)"); continue }
            #expect(refusal.status == 401)
        }
        guard case .failure(let late) = authorizer.authorize(head("/sync?token=\(Self.pythonToken)"), now: 1_763_803_601) else {
            Issue.record("expired token accepted"); return
        }
        #expect(late.status == 401)
    }

    @Test("/sync: herald.v1 is selected when offered; offering only other subprotocols is refused")
    func subprotocol() {
        let authorizer = SyncUpgradeAuthorizer(secret: Self.secret)
        let now: Int64 = 1_763_800_001
        let offered = authorizer.authorize(head("/sync?token=\(Self.pythonToken)", [("Sec-WebSocket-Protocol", "chat, herald.v1")]), now: now)
        #expect((try? offered.get())?.subprotocol == "herald.v1")
        guard case .failure(let refusal) = authorizer.authorize(head("/sync?token=\(Self.pythonToken)", [("Sec-WebSocket-Protocol", "chat")]), now: now)
        else { Issue.record("accepted without herald.v1"); return }
        #expect(refusal.status == 400)
    }

    @Test("TokenIssuer creates the user, keeps one generated secret in the database, and --secret overrides it")
    func issuer() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-auth-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let db = directory.appendingPathComponent("h.db").path
        let token = try TokenIssuer.issue(dbPath: db, user: "zoe", name: "Zoë", secret: nil, ttlSeconds: 60)
        let store = try SQLiteStore(path: db)
        defer { store.close() }
        let secret = try #require(try store.secret())
        #expect(secret.count == 32)
        let claims = try JSONWebToken.verify(token, secret: secret, now: Int64(Date().timeIntervalSince1970)).get()
        #expect(claims.sub == "zoe" && claims.name == "Zoë")
        #expect(claims.exp - claims.iat == 60)
        #expect(try store.user(id: "zoe")?.name == "Zoë")
        let second = try TokenIssuer.issue(dbPath: db, user: "zoe", name: nil, secret: nil, ttlSeconds: 60)
        #expect((try? JSONWebToken.verify(second, secret: secret, now: claims.iat).get())?.name == "Zoë", "same secret, name kept")
        let custom = try TokenIssuer.issue(dbPath: db, user: "zoe", name: nil, secret: "s3cret", ttlSeconds: 60)
        #expect((try? JSONWebToken.verify(custom, secret: Array("s3cret".utf8), now: claims.iat).get()) != nil)
        #expect(throws: TokenIssueError.self) { try TokenIssuer.issue(dbPath: db, user: "", name: nil, secret: nil, ttlSeconds: 60) }
    }
}
