import Foundation
import HeraldProtocol
import HeraldStore
@testable import HeraldSync
import Testing

/// `push.register` / `push.unregister` on the sync core: the one rule for what a push target is (the backend API goes
/// through the same code), and that a refused registration changes nothing.
@Suite("Push targets: registration")
struct PushRegistrationTests {
    static let settings: PushSettings = {
        var settings = PushSettings()
        settings.providers = [.apns, .webpush, .webhook]
        return settings
    }()

    static let hexToken = String(repeating: "0123456789abcdef", count: 4)
    /// A 65-byte uncompressed point (0x04 first) and a 16-byte secret, base64url: the sizes RFC 8291 requires.
    static let p256dh = "B" + String(repeating: "A", count: 86)
    static let auth = String(repeating: "A", count: 22)

    func fixture(loopbackHTTP: Bool = false) throws -> SyncCoreFixture {
        var settings = Self.settings
        settings.allowsLoopbackHTTP = loopbackHTTP
        return try SyncCoreFixture(graceMilliseconds: 0, push: settings)
    }

    @Test("Malformed targets, unknown providers and providers without credentials are refused with a reason; nothing is stored", arguments: [
        (#""provider":"pigeon","token":"x""#, ErrorCode.badRequest, "unknown push provider 'pigeon'"),
        (#""provider":"fcm","token":"abc""#, .conflict, "no credentials for fcm"),
        (#""provider":"apns","token":"not-hex","topic":"com.example.app""#, .badRequest, "APNs device token"),
        (#""provider":"apns","token":"abc","topic":"com.example.app""#, .badRequest, "APNs device token"),
        (#""provider":"apns","token":"\#(hexToken)""#, .badRequest, "missing field 'topic'"),
        (#""provider":"apns","token":"\#(hexToken)","topic":"com example""#, .badRequest, "bundle id"),
        (#""provider":"apns","token":"\#(hexToken)","topic":"a.b","endpoint":"https://x""#, .badRequest, "'endpoint' does not belong"),
        (#""provider":"webpush","endpoint":"http://push.example.com/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "https://"),
        (#""provider":"webpush","endpoint":"http://127.0.0.1:9/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "https://"),
        (#""provider":"webpush","endpoint":"https://user:pw@push.example.com/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "https://"),
        // The server posts to the endpoint: a user may not point it at the server's own network.
        (#""provider":"webpush","endpoint":"https://169.254.169.254/latest","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "DNS host name"),
        (#""provider":"webpush","endpoint":"https://10.0.0.5:8443/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "DNS host name"),
        (#""provider":"webpush","endpoint":"https://[::1]/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "DNS host name"),
        (#""provider":"webpush","endpoint":"https://LocalHost:443/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "DNS host name"),
        (#""provider":"webpush","endpoint":"https://intranet/s","p256dh":"\#(p256dh)","auth":"\#(auth)""#, .badRequest, "DNS host name"),
        (#""provider":"webpush","endpoint":"https://push.example.com/s","p256dh":"\#(p256dh.dropLast(2))","auth":"\#(auth)""#, .badRequest, "65 bytes"),
        (#""provider":"webpush","endpoint":"https://push.example.com/s","p256dh":"\#(p256dh)","auth":"\#(auth.dropLast())""#, .badRequest, "16-byte"),
        (#""provider":"webpush","endpoint":"https://push.example.com/s","auth":"\#(auth)""#, .badRequest, "missing field 'p256dh'"),
        (#""provider":"webhook","token":"has spaces""#, .badRequest, "the app's id for the device"),
    ] as [(String, ErrorCode, String)])
    func refused(fields: String, code: ErrorCode, reason: String) throws {
        let fixture = try fixture()
        fixture.online(1, "bob", deviceName: "bob-phone")
        let response = fixture.request(1, #"{"type":"push.register",\#(fields)}"#)
        #expect(response.ok == false)
        #expect(response.error?.code == code)
        #expect(response.error?.message.contains(reason) == true, "\(response.error?.message ?? "no error")")
        #expect(try fixture.store.pushTargets(users: ["bob"]).isEmpty)
    }

    @Test("A connection without a device name cannot register: nothing lasting may hang on a name made up for one connection")
    func unnamedDeviceRefused() throws {
        let fixture = try fixture()
        fixture.online(1, "bob")
        let response = fixture.request(1, #"{"type":"push.register","provider":"webhook","token":"d1"}"#)
        #expect(response.error?.code == .badState)
        #expect(try fixture.store.pushTargets(users: ["bob"]).isEmpty)
    }

    @Test("Plain http Web Push endpoints are taken on loopback only, and only when the server allows it (tests)")
    func loopbackHTTPWhenAllowed() throws {
        let fixture = try fixture(loopbackHTTP: true)
        fixture.online(1, "bob", deviceName: "bob-browser")
        let fields = #""p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)""#
        #expect(fixture.request(1, #"{"type":"push.register","provider":"webpush","endpoint":"http://127.0.0.1:9/s",\#(fields)}"#).ok)
        #expect(fixture.request(1, #"{"type":"push.register","provider":"webpush","endpoint":"http://10.0.0.1:9/s",\#(fields)}"#).ok == false)
        #expect(try fixture.store.pushTargets(users: ["bob"]).map(\.token) == ["http://127.0.0.1:9/s"])
    }

    @Test("Registering again replaces the device's target (one per device); push.unregister and sign-out remove it")
    func replaceUnregisterSignOut() throws {
        let fixture = try fixture()
        fixture.online(1, "bob", deviceName: "bob-phone")
        fixture.online(2, "bob", deviceName: "bob-tablet")
        #expect(fixture.request(1, #"{"type":"push.register","provider":"apns","token":"\#(Self.hexToken)","topic":"com.example.app"}"#).device == "bob-phone")
        let first = try fixture.store.pushTargets(users: ["bob"])
        let upper = Self.hexToken.uppercased()
        #expect(fixture.request(1, #"{"type":"push.register","provider":"apns","token":"\#(upper)","topic":"com.example.app","sandbox":true}"#).ok)
        let replaced = try fixture.store.pushTargets(users: ["bob"])
        #expect(replaced.count == 1 && replaced[0].id == first[0].id, "the same row: pushes queued for the device follow it")
        #expect(replaced[0].token == Self.hexToken && replaced[0].sandbox, "APNs tokens are stored in one case")
        #expect(fixture.request(2, #"{"type":"push.register","provider":"webhook","token":"tablet-1"}"#).ok)
        #expect(fixture.request(1, #"{"type":"push.unregister"}"#).ok)
        #expect(try fixture.store.pushTargets(users: ["bob"]).map(\.device) == ["bob-tablet"])
        #expect(fixture.request(2, #"{"type":"signOut"}"#).ok)
        #expect(try fixture.store.pushTargets(users: ["bob"]).isEmpty, "a signed-out device is never alerted again")
    }

    @Test("P1 over registered devices: a target whose device is connected is reached over its connection only; one without a connection gets the queued push")
    func connectedDeviceIsNotPushedTwice() throws {
        let fixture = try fixture()
        fixture.online(1, "alice", deviceName: "alice-laptop")
        fixture.online(2, "bob", deviceName: "bob-phone")
        #expect(fixture.request(2, #"{"type":"push.register","provider":"webhook","token":"phone"}"#).ok)
        #expect(fixture.request(2, #"{"type":"scene","scene":"background"}"#).ok)
        let c = fixture.dm(1, with: "bob")
        fixture.say(1, in: c, "connected in the background")
        fixture.advance(milliseconds: 1)
        #expect(fixture.events(2).contains { $0.event == .push }, "the phone's connection carries the push")
        #expect(try fixture.store.pushQueueDepth() == 0, "and nothing is queued for its provider")
        fixture.process([.disconnect(2)])
        fixture.say(1, in: c, "now it is locked")
        fixture.advance(milliseconds: 1)
        #expect(try fixture.store.pushQueueDepth() == 1, "without a connection, its provider gets it")
    }

    @Test("--push-preview: full shows sender and text, sender hides the text, none hides both; the queue never holds more", arguments: [
        (PushPreviewLevel.full, "Alice", "the secret plan"), (.sender, "Alice", "New message"), (.none, "Herald", "New message"),
    ])
    func previewLevels(level: PushPreviewLevel, title: String, body: String) throws {
        var settings = Self.settings
        settings.preview = level
        let fixture = try SyncCoreFixture(graceMilliseconds: 0, push: settings)
        fixture.online(1, "alice", deviceName: "alice-laptop")
        fixture.online(2, "bob", deviceName: "bob-phone")
        #expect(fixture.request(2, #"{"type":"push.register","provider":"webhook","token":"phone"}"#).ok)
        fixture.process([.disconnect(2)])
        let c = fixture.dm(1, with: "bob")
        fixture.say(1, in: c, "the secret plan")
        fixture.advance(milliseconds: 1)
        let queued = try fixture.store.claimPushDeliveries(provider: .webhook, limit: 10, now: fixture.now, leaseMilliseconds: 1_000)
        #expect(queued.map(\.title) == [title])
        #expect(queued.map(\.body) == [body])
        #expect(queued.map(\.badge) == [1])
    }

    @Test("Web Push endpoint ports are 1-65535: 0, 65536 and 99999 are refused with a reason naming the port; nothing is stored", arguments: [
        "https://push.example.com:99999/s", "https://push.example.com:0/s", "https://push.example.com:65536/s", "https://push.example.com:/s",
        "http://127.0.0.1:99999/s", "https://[::1]:70000/s",
    ])
    func refusedPorts(endpoint: String) throws {
        let fixture = try fixture(loopbackHTTP: true)
        fixture.online(1, "bob", deviceName: "bob-phone")
        let response = fixture.request(
            1, #"{"type":"push.register","provider":"webpush","endpoint":"\#(endpoint)","p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}"#)
        #expect(response.ok == false)
        #expect(response.error?.code == .badRequest)
        #expect(response.error?.message.contains("1 to 65535") == true, "\(response.error?.message ?? "no error")")
        #expect(try fixture.store.pushTargets(users: ["bob"]).isEmpty)
        let valid = fixture.request(
            1, #"{"type":"push.register","provider":"webpush","endpoint":"https://push.example.com:65535/s","p256dh":"\#(Self.p256dh)","auth":"\#(Self.auth)"}"#)
        #expect(valid.ok, "the highest port is a port")
    }

    @Test("At most --push-max-targets-per-user targets per user (10 by default): past it a new device is refused (conflict) and nothing is stored; a device already registered may still replace its own")
    func targetCap() throws {
        let fixture = try fixture()
        let cap = PushSettings.defaultMaxTargetsPerUser
        for index in 0...cap {
            fixture.online(index + 1, "bob", deviceName: "bob-device-\(index)")
        }
        for index in 0..<cap {
            #expect(fixture.request(index + 1, #"{"type":"push.register","provider":"webhook","token":"device-\#(index)"}"#).ok)
        }
        let refused = fixture.request(cap + 1, #"{"type":"push.register","provider":"webhook","token":"one-too-many"}"#)
        #expect(refused.ok == false)
        #expect(refused.error?.code == .conflict)
        #expect(refused.error?.message.contains("already has \(cap) push targets") == true, "\(refused.error?.message ?? "no error")")
        #expect(try fixture.store.pushTargets(users: ["bob"]).count == cap)
        #expect(try !fixture.store.pushTargets(users: ["bob"]).contains { $0.token == "one-too-many" })
        #expect(fixture.request(1, #"{"type":"push.register","provider":"webhook","token":"device-0-renewed"}"#).ok, "one target per device: replacing is no new target")
        #expect(try fixture.store.pushTargets(users: ["bob"]).contains { $0.token == "device-0-renewed" })
        #expect(fixture.request(1, #"{"type":"push.unregister"}"#).ok)
        #expect(fixture.request(cap + 1, #"{"type":"push.register","provider":"webhook","token":"now-room"}"#).ok, "room again once one is gone")
    }

    @Test("--push-preview none: the queued message push holds no sender and no link, and carries its outbox row's id as opaque reference, which push.resolve turns back into the message for its own user only")
    func opaqueReference() throws {
        var settings = Self.settings
        settings.preview = .none
        let fixture = try SyncCoreFixture(graceMilliseconds: 0, push: settings)
        fixture.online(1, "alice", deviceName: "alice-laptop")
        fixture.online(2, "bob", deviceName: "bob-phone")
        #expect(fixture.request(2, #"{"type":"push.register","provider":"webhook","token":"phone"}"#).ok)
        fixture.process([.disconnect(2)])
        let c = fixture.dm(1, with: "bob")
        fixture.say(1, in: c, "the secret plan")
        fixture.advance(milliseconds: 1)
        let queued = try #require(try fixture.store.claimPushDeliveries(provider: .webhook, limit: 10, now: fixture.now, leaseMilliseconds: 1_000).first)
        #expect(queued.sender == nil)
        #expect(queued.url == nil)
        let outbox = try fixture.store.pushes(user: "bob")
        #expect(queued.reference == outbox.first.map { "p\($0.id)" })
        let reference = try #require(queued.reference)
        // Awake and connected, the app resolves the reference to the message and its conversation (to follow D2).
        fixture.online(3, "bob", deviceName: "bob-phone")
        let resolved = fixture.request(3, #"{"type":"push.resolve","token":"\#(reference)"}"#)
        #expect(resolved.ok)
        #expect(resolved.message?.conversation == c)
        #expect(resolved.message?.text == "the secret plan")
        // Only the user's own pushes: alice, or a made-up reference, learns nothing.
        #expect(fixture.request(1, #"{"type":"push.resolve","token":"\#(reference)"}"#).error?.code == .notFound)
        #expect(fixture.request(3, #"{"type":"push.resolve","token":"p999999"}"#).error?.code == .notFound)
        #expect(fixture.request(3, #"{"type":"push.resolve","token":"m1"}"#).error?.code == .notFound)
    }
}
