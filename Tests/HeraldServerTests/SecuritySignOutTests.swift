import Foundation
import Glibc
import HeraldProtocol
@testable import HeraldServer
import HeraldTestSupport
import Testing

/// Revocation: a user (over /sync) or the backend (over the API) signs devices out; their live connections end at once
/// with 4001 and the tokens they hold are refused from then on.
@Suite("Security: signing devices out ends their connections and their tokens", .serialized)
struct SecuritySignOutTests {
    /// Waits for the next whole second: sign-outs cover the second they happen in (token times are whole seconds).
    static func waitForNextSecond() {
        let now = Date().timeIntervalSince1970
        usleep(useconds_t((now.rounded(.down) + 1.05 - now) * 1_000_000))
    }

    /// Connects and sends `sync`; returns the close code when the server ends the connection instead of answering.
    static func closeCodeOnConnect(port: Int, token: String, device: String? = nil) throws -> UInt16? {
        let client = try SyncTestClient(port: port, token: token, device: device)
        defer { client.close() }
        do {
            try client.request(#"{"type":"sync"}"#)
            return nil
        } catch RawClientError.closedByServer(let code) {
            return code ?? 1005
        }
    }

    /// Alice's phone and laptop on `server`, both live, with the token they share.
    static func phoneAndLaptop(_ server: ServerHarness) throws -> (token: String, phone: SyncTestClient, laptop: SyncTestClient) {
        let token = try Hardening.token(server, "alice")
        let phone = try SyncTestClient(port: server.port, token: token, device: "phone")
        let laptop = try SyncTestClient(port: server.port, token: token, device: "laptop")
        try phone.request(#"{"type":"sync"}"#)
        try laptop.request(#"{"type":"sync"}"#)
        return (token, phone, laptop)
    }

    @Test("/sync signOut without a device: every live device of the user gets 4001 (the asking one after its answer), their tokens are refused, a new token works")
    func userSignsOutEveryDevice() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let (token, phone, laptop) = try Self.phoneAndLaptop(server)
        defer { phone.close(); laptop.close() }
        let bob = try SyncTestClient(port: server.port, token: try Hardening.token(server, "bob"))
        defer { bob.close() }
        try bob.request(#"{"type":"sync"}"#)
        #expect(try phone.request(#"{"type":"signOut"}"#).ok)
        #expect(try phone.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try laptop.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try bob.request(#"{"type":"conversations"}"#).ok, "another user is untouched")
        #expect(try Self.closeCodeOnConnect(port: server.port, token: token) == HeraldCloseCode.credentialsEnded)
        Self.waitForNextSecond()
        #expect(try Self.closeCodeOnConnect(port: server.port, token: try Hardening.token(server, "alice")) == nil, "a token minted after works")
    }

    @Test("A sign-out refuses tokens dated up to the clock skew ahead (iat now+50) too; a token dated beyond the skew is refused outright; one minted the second after the sign-out works")
    func signOutCoversFutureDatedTokens() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let token = try Hardening.token(server, "alice")
        let secret = try SecurityIdentityTests.storedSecret(server.databasePath)
        func dated(_ offset: Int64) -> String {
            let now = Int64(Date().timeIntervalSince1970)
            return JSONWebToken.sign(TokenClaims(sub: "alice", name: "Alice", iat: now + offset, exp: now + 3_600), secret: secret)
        }
        // Minted by a clock 50 s fast: within the skew a verifier allows, so it is a valid token until the sign-out.
        let fastClock = dated(50), wholeSkew = dated(TokenTimes.clockSkewSeconds)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: fastClock) == nil)
        #expect(try Hardening.syncUpgradeStatus(port: server.port, token: dated(TokenTimes.clockSkewSeconds + 5)) == 401,
                "a token dated beyond the skew is refused before any sign-out")

        let phone = try SyncTestClient(port: server.port, token: token, device: "phone")
        defer { phone.close() }
        try phone.request(#"{"type":"sync"}"#)
        #expect(try phone.request(#"{"type":"signOut"}"#).ok)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: token) == HeraldCloseCode.credentialsEnded)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: fastClock) == HeraldCloseCode.credentialsEnded,
                "the future-dated token minted before the sign-out outlived it")
        #expect(try Self.closeCodeOnConnect(port: server.port, token: wholeSkew) == HeraldCloseCode.credentialsEnded,
                "a token dated the whole skew ahead before the sign-out outlived it")

        Self.waitForNextSecond()
        #expect(try Self.closeCodeOnConnect(port: server.port, token: try Hardening.token(server, "alice")) == nil,
                "a token minted by herald-server token after the sign-out works at once")
    }

    @Test("API: a token minted the second after a sign-out is dated past it and connects at once")
    func apiMintsPastTheSignOut() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        #expect(try api.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        func token(device: String) throws -> String {
            let minted = try api.request("POST", "/api/v1/users/alice/tokens", json: #"{"ttlSeconds":600,"device":"\#(device)"}"#)
            return try #require(minted.object?["token"] as? String)
        }
        let before = try token(device: "phone")
        #expect(try api.request("POST", "/api/v1/users/alice/signout", json: #"{"device":"phone"}"#).status == 200)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: before) == HeraldCloseCode.credentialsEnded)
        Self.waitForNextSecond()
        #expect(try Self.closeCodeOnConnect(port: server.port, token: try token(device: "phone")) == nil)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: try token(device: "laptop")) == nil)
    }

    @Test("/sync signOut {device}: only the named device is closed; the asking device stays")
    func userSignsOutOneDevice() throws {
        let server = try ServerHarness.start()
        defer { server.stop() }
        let (token, phone, laptop) = try Self.phoneAndLaptop(server)
        defer { phone.close(); laptop.close() }
        #expect(try phone.request(#"{"type":"signOut","device":"laptop"}"#).ok)
        #expect(try laptop.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try phone.request(#"{"type":"conversations"}"#).ok, "the phone is still connected")
        #expect(try Self.closeCodeOnConnect(port: server.port, token: token, device: "laptop") == HeraldCloseCode.credentialsEnded)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: token, device: "tablet") == nil, "other device names still connect")
    }

    @Test("API: POST /users/{id}/signout {device} ends that device's connection and refuses its token; the other device and its token keep working; without a device every one is signed out")
    func backendSignsOutOneDevice() throws {
        let server = try InProcessAPIServer()
        defer { server.stop() }
        let api = try APIClient(port: server.port, key: server.key)
        #expect(try api.request("POST", "/api/v1/users", json: #"{"id":"alice","name":"Alice"}"#).status == 201)
        func token(device: String) throws -> String {
            let minted = try api.request("POST", "/api/v1/users/alice/tokens", json: #"{"ttlSeconds":600,"device":"\#(device)"}"#)
            return try #require(minted.object?["token"] as? String)
        }
        let phoneToken = try token(device: "phone"), laptopToken = try token(device: "laptop")
        let phone = try SyncTestClient(port: server.port, token: phoneToken)
        defer { phone.close() }
        let laptop = try SyncTestClient(port: server.port, token: laptopToken)
        defer { laptop.close() }
        try phone.request(#"{"type":"sync"}"#)
        try laptop.request(#"{"type":"sync"}"#)
        // A token bound to a device cannot connect under another name.
        #expect(throws: (any Error).self) { try SyncTestClient(port: server.port, token: phoneToken, device: "laptop") }

        let signedOut = try api.request("POST", "/api/v1/users/alice/signout", json: #"{"device":"phone"}"#)
        #expect(signedOut.status == 200 && signedOut.object?["device"] as? String == "phone")
        #expect(try phone.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try laptop.request(#"{"type":"conversations"}"#).ok, "the laptop is still connected")
        #expect(try Self.closeCodeOnConnect(port: server.port, token: phoneToken) == HeraldCloseCode.credentialsEnded)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: laptopToken) == nil)

        #expect(try api.request("POST", "/api/v1/users/alice/signout", json: "").status == 200)
        #expect(try laptop.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try Self.closeCodeOnConnect(port: server.port, token: laptopToken) == HeraldCloseCode.credentialsEnded)
        #expect(try api.request("POST", "/api/v1/users/ghost/signout", json: "").status == 404)
        #expect(try api.request("POST", "/api/v1/users/alice/signout", json: #"{"device":"a b"}"#).status == 400)
    }
}

/// Sign-out across nodes: the node that takes it tells the others through PostgreSQL.
@Suite("Security: sign-out on several nodes", .serialized, .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct SecurityMultiNodeSignOutTests {
    @Test("A sign-out on node A closes the user's live connection on node B at once, and B refuses the old token")
    func signOutReachesEveryNode() throws {
        let url = try PostgresCluster.newDatabase()
        let a = try ServerHarness.start(["--store", url])
        defer { a.stop() }
        let b = try ServerHarness.start(["--store", url])
        defer { b.stop() }
        let token = try ServerHarness.token("alice", store: url)
        let onA = try SyncTestClient(port: a.port, token: token, device: "phone")
        defer { onA.close() }
        let onB = try SyncTestClient(port: b.port, token: token, device: "laptop")
        defer { onB.close() }
        try onA.request(#"{"type":"sync"}"#)
        try onB.request(#"{"type":"sync"}"#)
        #expect(try onA.request(#"{"type":"signOut"}"#).ok)
        #expect(try onB.raw.readCloseCode(timeoutMilliseconds: 5_000) == HeraldCloseCode.credentialsEnded)
        #expect(try SecuritySignOutTests.closeCodeOnConnect(port: b.port, token: token) == HeraldCloseCode.credentialsEnded)
    }
}
