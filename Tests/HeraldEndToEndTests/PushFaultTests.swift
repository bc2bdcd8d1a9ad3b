import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Delivery that neither loses nor repeats: a provider that is away, a server killed with pushes queued. The
    /// webhook stand-in plays the provider (it verifies every signature); bob's device is registered and never
    /// connects.
    @Suite("Push faults")
    struct PushFaults {
        typealias Providers = EndToEnd.PushProviders

        /// The stand-in on a fixed port, so a new one can take the old one's place.
        static func webhook(port: Int, secret: String, certificate: SelfSignedCertificate) throws -> PushStandIn {
            try PushStandIn("webhook.py", ["--secret-file", secret], certificate: certificate, port: port)
        }

        static func secretFile() throws -> String {
            let secret = Providers.temporary("webhook-secret")
            try Providers.sh("head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > '\(secret)' && chmod 600 '\(secret)'")
            return secret
        }

        /// The message ids the stand-in accepted (2xx), in the order it accepted them.
        static func accepted(_ log: [[String: Any]]) -> [String] {
            log.filter { (200..<300).contains(Providers.status($0)) }.compactMap { ($0["payload"] as? [String: Any])?["message"] as? String }
        }

        @Test("The provider away for 30 s, then back: every push is delivered once, in order per device")
        func providerDownThenBack() throws {
            let port = try Providers.freePort()
            let secret = try Self.secretFile()
            let certificate = try SelfSignedCertificate.make()
            var standIn = try Self.webhook(port: port, secret: secret, certificate: certificate)
            let scene = try Providers.scene(Providers.Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(port)/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-1"}"#), arguments: ["--push-max-backoff-ms", "2000"])
            let m1 = try scene.world.send(scene.alice, scene.conversation, "before the outage")
            try standIn.waitLog("m1") { Self.accepted($0) == [m1] ? true : nil }
            standIn.stop()
            let outageStarted = Date()
            var during: [String] = []
            for index in 1...4 { during.append(try scene.world.send(scene.alice, scene.conversation, "during the outage \(index)")) }
            // The outage itself is the condition under test: 30 s of refused connections, with retries backing off.
            Thread.sleep(until: outageStarted.addingTimeInterval(30))
            standIn = try Self.webhook(port: port, secret: secret, certificate: certificate)
            let delivered = try standIn.waitLog("the four queued pushes", timeout: .seconds(30)) { log in
                Self.accepted(log).count >= during.count ? Self.accepted(log) : nil
            }
            #expect(delivered == during, "each once, in the order they were sent")
            #expect(try standIn.log().allSatisfy { $0["verified"] as? Bool == true })
        }

        @Test("The server SIGKILLed with pushes queued: they are delivered after the restart, none twice")
        func killedWithPushesQueued() throws {
            let port = try Providers.freePort()
            let secret = try Self.secretFile()
            let certificate = try SelfSignedCertificate.make()
            var standIn = try Self.webhook(port: port, secret: secret, certificate: certificate)
            let scene = try Providers.scene(Providers.Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(port)/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-1"}"#), arguments: ["--push-max-backoff-ms", "2000"])
            standIn.stop()
            var queued: [String] = []
            for index in 1...3 { queued.append(try scene.world.send(scene.alice, scene.conversation, "queued \(index)")) }
            // The rows are in the database (the provider refused the connection at least once for the first).
            let database = scene.world.server.databasePath
            let deadline = ContinuousClock.now + .seconds(10)
            var rows = 0
            while ContinuousClock.now < deadline {
                rows = Int(try runToCompletion("/usr/bin/sqlite3", [database, "SELECT count(*) FROM push_deliveries WHERE attempts > 0"])
                    .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                if rows >= 1 { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(rows >= 1)
            scene.world.server.kill()
            standIn = try Self.webhook(port: port, secret: secret, certificate: certificate)
            try scene.world.server.restart()
            let delivered = try standIn.waitLog("the three queued pushes", timeout: .seconds(30)) { log in
                Self.accepted(log).count >= queued.count ? Self.accepted(log) : nil
            }
            #expect(delivered == queued, "each once, in order")
            // Settled: nothing is left to send again.
            let left = try runToCompletion("/usr/bin/sqlite3", [database, "SELECT count(*) FROM push_deliveries"]).standardOutput
            #expect(left.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        }
    
        @Test("Expiry: a push whose provider keeps it waiting past its TTL (--push-ttl-seconds) is dropped, not sent late")
        func expiredIsDropped() throws {
            let secret = try Self.secretFile()
            let standIn = try PushStandIn("webhook.py", ["--secret-file", secret], certificate: try SelfSignedCertificate.make())
            let scene = try Providers.scene(Providers.Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(standIn.port)/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-1"}"#), arguments: ["--push-ttl-seconds", "2"])
            try standIn.respond("429:4")
            let late = try scene.world.send(scene.alice, scene.conversation, "worth nothing in 2 s")
            try standIn.waitLog("the first attempt") { PushStandIn.entries($0, about: late).first }
            let deadline = ContinuousClock.now + .seconds(15)
            var dropped = -1
            while ContinuousClock.now < deadline {
                let metrics = try runToCompletion("/usr/bin/curl", ["-s", "http://127.0.0.1:\(scene.world.server.port)/metrics"]).standardOutput
                let prefix = "herald_push_dropped_total{provider=\"webhook\"} "
                dropped = metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? -1
                if dropped == 1 { break }
                Thread.sleep(forTimeInterval: 0.1)
            }
            #expect(dropped == 1)
            let attempts = PushStandIn.entries(try standIn.log(), about: late)
            #expect(attempts.count == 1, "never sent after it expired: \(attempts.map { "\($0["status"] ?? "") at \($0["time"] ?? "")" })")
        }
    }
}
