import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// One user's hosts cannot hold up, flood, or be used to reach anything but public addresses: requests run
    /// concurrently per provider with a share per host (a tarpit holds only its share, for a stall timeout), a failing
    /// host gets a bounded number of requests, and the address a name resolves to is checked where the connection is
    /// made. The Web Push stand-in plays the healthy provider; ``TarpitListener`` plays hosts that accept and never
    /// answer, and witnesses that no connection was made.
    @Suite("Push isolation between hosts")
    struct PushIsolation {
        typealias Providers = EndToEnd.PushProviders

        /// A server with Web Push, alice connected, and the stand-in's subscriptions (endpoint, p256dh, auth).
        struct Scene {
            let world: World
            let key: String
            let alice: ClientProcess
            let subscriptions: [[String: String]]
        }

        static func scene(standIn: PushStandIn, subscriptionsFile: String, arguments: [String]) throws -> Scene {
            let vapid = try Providers.p256Key()
            let world = try World(
                serverArguments: [
                    "--push-ca-file", standIn.certificate.certificateFile, "--push-max-backoff-ms", "3000", "--metrics", "--vapid-key-file", vapid,
                    "--vapid-subject", "mailto:ops@example.com",
                ] + arguments)
            let made = try runToCompletion(HeraldBinaries.server, ["apikey", "create", "--name", "e2e", "--db", world.server.databasePath])
            try #require(made.status == 0, "apikey create failed: \(made.standardError)")
            let subscriptions = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: subscriptionsFile))) as? [[String: String]] ?? []
            let key = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            return Scene(world: world, key: key, alice: try world.connect("alice"), subscriptions: subscriptions)
        }

        /// Registers `user`'s device `device` at `endpoint`, with a stand-in subscription's keys (the registration checks
        /// their form; a tarpit never reads them).
        static func register(_ scene: Scene, _ user: String, device: String, endpoint: String, keys: [String: String]) throws {
            try scene.world.createUser(user)
            let body = #"{"device":"\#(device)","provider":"webpush","endpoint":"\#(endpoint)","p256dh":"\#(keys["p256dh"] ?? "")","auth":"\#(keys["auth"] ?? "")"}"#
            let (status, answer) = try Providers.api(scene.world, key: scene.key, "POST", "/users/\(user)/push-targets", body: body)
            try #require(status == 200, "registration of \(endpoint) answered \(status): \(answer)")
        }

        static func webPushStandIn(subscriptions: Int, arguments: [String] = []) throws -> (PushStandIn, String) {
            let file = Providers.temporary("subscriptions.json")
            let standIn = try PushStandIn(
                "webpush.py", ["--subscriptions-out", file, "--subscriptions", String(subscriptions)] + arguments, certificate: try SelfSignedCertificate.make())
            return (standIn, file)
        }

        @Test("A tarpit does not delay another device's push: three tarpit endpoints take their share, bob's push leaves within 2 s of being due")
        func tarpitDoesNotDelayOthers() throws {
            let tarpits = try ["127.0.0.2", "127.0.0.3", "127.0.0.4"].map { try TarpitListener(host: $0) }
            defer { tarpits.forEach { $0.stop() } }
            let (standIn, file) = try Self.webPushStandIn(subscriptions: 1)
            // Default concurrency (4 per provider): the tarpits hold three workers at most, for a stall timeout each.
            let scene = try Self.scene(standIn: standIn, subscriptionsFile: file, arguments: ["--push-allow-http-loopback"])
            let healthy = try #require(scene.subscriptions.first)
            // Mallory's targets first, so they head the queue when the group's message is fanned out.
            for (index, tarpit) in tarpits.enumerated() {
                try Self.register(scene, "mallory", device: "mallory-\(index)", endpoint: tarpit.endpoint("push/\(index)"), keys: healthy)
            }
            try Self.register(scene, "bob", device: "bob-browser", endpoint: healthy["endpoint"] ?? "", keys: healthy)
            let group = try scene.world.group(scene.alice, title: "Tarpit", ["mallory", "bob"])
            let sentAt = Date()
            let message = try scene.world.send(scene.alice, group, "for everyone")
            let delivered = try standIn.waitLog("bob's push", timeout: .seconds(30)) { PushStandIn.entries($0, about: message).first }
            let leftAfter = ((delivered["time"] as? NSNumber)?.doubleValue ?? .infinity) - sentAt.timeIntervalSince1970
            #expect(leftAfter < 2, "bob's push left \(leftAfter) s after it was due (grace 0), while the tarpits held their requests")
            #expect(tarpits.allSatisfy { !$0.connections.isEmpty }, "every tarpit was tried: \(tarpits.map(\.connections.count))")
        }

        @Test("A slow host gets its share only: three tarpit endpoints on one host hold two of three workers, bob's push leaves within 2 s")
        func tarpitHostGetsItsShare() throws {
            // One site (one address, three ports): --push-host-concurrency 2 of --push-concurrency 3.
            let tarpits = try (0..<3).map { _ in try TarpitListener(host: "127.0.0.6") }
            defer { tarpits.forEach { $0.stop() } }
            let (standIn, file) = try Self.webPushStandIn(subscriptions: 1)
            let scene = try Self.scene(
                standIn: standIn, subscriptionsFile: file, arguments: ["--push-allow-http-loopback", "--push-concurrency", "3", "--push-host-concurrency", "2"])
            let healthy = try #require(scene.subscriptions.first)
            for (index, tarpit) in tarpits.enumerated() {
                try Self.register(scene, "mallory", device: "mallory-\(index)", endpoint: tarpit.endpoint("push/\(index)"), keys: healthy)
            }
            try Self.register(scene, "bob", device: "bob-browser", endpoint: healthy["endpoint"] ?? "", keys: healthy)
            let group = try scene.world.group(scene.alice, title: "Tarpit", ["mallory", "bob"])
            let sentAt = Date()
            let message = try scene.world.send(scene.alice, group, "for everyone")
            let delivered = try standIn.waitLog("bob's push", timeout: .seconds(30)) { PushStandIn.entries($0, about: message).first }
            let leftAfter = ((delivered["time"] as? NSNumber)?.doubleValue ?? .infinity) - sentAt.timeIntervalSince1970
            #expect(leftAfter < 2, "bob's push left \(leftAfter) s after it was due, while the tarpit host held its share")
            let early = tarpits.flatMap(\.connections).filter { $0.timeIntervalSince(sentAt) < 4 }
            #expect(early.count == 2, "the host had two requests in flight, never its third before the first were given up: \(early.count)")
        }

        @Test("--push-concurrency 2: two requests are in flight at once")
        func twoRequestsInFlight() throws {
            let tarpits = try ["127.0.0.2", "127.0.0.3"].map { try TarpitListener(host: $0) }
            defer { tarpits.forEach { $0.stop() } }
            let (standIn, file) = try Self.webPushStandIn(subscriptions: 1)
            let scene = try Self.scene(standIn: standIn, subscriptionsFile: file, arguments: ["--push-allow-http-loopback", "--push-concurrency", "2"])
            let keys = try #require(scene.subscriptions.first)
            for (index, tarpit) in tarpits.enumerated() {
                try Self.register(scene, "bob", device: "bob-\(index)", endpoint: tarpit.endpoint("push/\(index)"), keys: keys)
            }
            _ = try scene.world.send(scene.alice, try scene.world.dm(scene.alice, "bob"), "to two hosts")
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, tarpits.contains(where: { $0.connections.isEmpty }) { Thread.sleep(forTimeInterval: 0.05) }
            let first = try #require(tarpits[0].connections.first, "the first host was never connected to")
            let second = try #require(tarpits[1].connections.first, "the second host was never connected to")
            // A tarpit holds its request for the stall timeout (5 s): connections accepted less than that apart were in
            // flight together. One after the other, the second would wait the first's whole timeout.
            #expect(abs(first.timeIntervalSince(second)) < 2, "accepted \(abs(first.timeIntervalSince(second))) s apart")
        }

        @Test("Retry budget per host: one message to five targets on a failing host makes a bounded number of requests to it")
        func failingHostGetsBoundedRequests() throws {
            let (standIn, file) = try Self.webPushStandIn(subscriptions: 5, arguments: ["--default", "503"])
            let scene = try Self.scene(standIn: standIn, subscriptionsFile: file, arguments: ["--push-allow-http-loopback"])
            try #require(scene.subscriptions.count == 5)
            for (index, subscription) in scene.subscriptions.enumerated() {
                try Self.register(scene, "bob", device: "bob-\(index)", endpoint: subscription["endpoint"] ?? "", keys: subscription)
            }
            let sentAt = Date()
            let message = try scene.world.send(scene.alice, try scene.world.dm(scene.alice, "bob"), "to a failing host")
            try standIn.waitLog("the first attempts") { PushStandIn.entries($0, about: message).isEmpty ? nil : true }
            // The window itself is what is measured: 12 s of a host answering 503 to everything.
            Thread.sleep(until: sentAt.addingTimeInterval(12))
            let requests = PushStandIn.entries(try standIn.log(), about: message).filter {
                ((($0["time"] as? NSNumber)?.doubleValue ?? 0) - sentAt.timeIntervalSince1970) < 12
            }
            // The host is backed off as a whole (1 s, 2 s, then --push-max-backoff-ms 3 s) with two requests in flight at
            // most: about five windows of two. Each row retried on its own backoff made over thirty.
            #expect(requests.count <= 12, "\(requests.count) requests to one failing host in 12 s")
            #expect(requests.count >= 2, "it was tried")
        }

        @Test("Operator-configured URLs are checked at connect time too: a webhook host that resolves to 0.0.0.0 (the local host on Linux) is never connected to")
        func operatorURLCheckedToo() throws {
            let listener = try TarpitListener(host: "127.0.0.1")
            defer { listener.stop() }
            let secret = try EndToEnd.PushFaults.secretFile()
            let webhook = try PushStandIn("webhook.py", ["--secret-file", secret], certificate: try SelfSignedCertificate.make())
            let scene = try Providers.scene(Providers.Setup(
                standIn: webhook,
                serverArguments: [
                    "--webhook-url", "https://hook.example:\(listener.port)/push", "--webhook-secret-file", secret, "--push-test-resolve",
                    "hook.example:\(listener.port):0.0.0.0",
                ],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-1"}"#))
            _ = try scene.world.send(scene.alice, scene.conversation, "to an unspecified address")
            let deadline = ContinuousClock.now + .seconds(15)
            var refused = false
            while ContinuousClock.now < deadline, !refused {
                Thread.sleep(forTimeInterval: 0.1)
                refused = scene.world.server.standardError.split(separator: "\n").contains {
                    $0.contains("push connection refused") && $0.contains("hook.example") && $0.contains("0.0.0.0")
                }
            }
            #expect(refused, "the refusal is logged with the host and address")
            #expect(listener.connections.isEmpty, "nothing connected to the local host through 0.0.0.0")
        }

        @Test(
            "Names that resolve to loopback, private, link-local or unique-local addresses (IPv4 and IPv6) are never connected to; each refusal is logged"
        )
        func nonPublicAddressesRefused() throws {
            let loopback4 = try TarpitListener(host: "127.0.0.5")
            // A machine without IPv6 on loopback (some containers) still checks the refusal, with no witness for ::1.
            let loopback6 = try? TarpitListener(host: "::1")
            defer {
                loopback4.stop()
                loopback6?.stop()
            }
            let (standIn, file) = try Self.webPushStandIn(subscriptions: 1)
            // Names with a public look, as a user may register them; --push-test-resolve plays their DNS answers. No
            // loopback allowance: these endpoints are what any user could register.
            let names: [(host: String, port: Int, address: String)] = [
                ("push.loopback4.example", loopback4.port, "127.0.0.5"), ("push.loopback6.example", loopback6?.port ?? 443, "[::1]"),
                ("push.private4.example", 443, "10.0.0.1"), ("push.metadata.example", 80, "169.254.169.254"),
                ("push.linklocal6.example", 443, "[fe80::1]"), ("push.uniquelocal6.example", 443, "[fd00::1]"),
                ("push.mapped6.example", loopback4.port, "[::ffff:127.0.0.5]"),
            ]
            let resolve = names.map { "\($0.host):\($0.port):\($0.address)" }.joined(separator: ",")
            let scene = try Self.scene(standIn: standIn, subscriptionsFile: file, arguments: ["--push-test-resolve", resolve])
            let keys = try #require(scene.subscriptions.first)
            for (index, name) in names.enumerated() {
                try Self.register(scene, "bob", device: "bob-\(index)", endpoint: "https://\(name.host):\(name.port)/push/\(index)", keys: keys)
            }
            _ = try scene.world.send(scene.alice, try scene.world.dm(scene.alice, "bob"), "to hosts on the server's own network")
            let deadline = ContinuousClock.now + .seconds(20)
            var log = ""
            func refused(_ name: String) -> Bool {
                log.split(separator: "\n").contains { $0.contains("push connection refused") && $0.contains(name) }
            }
            while ContinuousClock.now < deadline, !names.allSatisfy({ refused($0.host) }) {
                Thread.sleep(forTimeInterval: 0.1)
                log = scene.world.server.standardError
            }
            for name in names { #expect(refused(name.host), "a refusal is logged for \(name.host) (\(name.address))") }
            #expect(loopback4.connections.isEmpty, "nothing connected to 127.0.0.5")
            #expect(loopback6?.connections.isEmpty ?? true, "nothing connected to ::1")
            #expect(try standIn.log().isEmpty, "nothing delivered anywhere")
        }
    }
}
