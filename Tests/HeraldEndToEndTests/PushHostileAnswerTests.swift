import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Everything a provider answers, and every target a user registers, is untrusted input. A running server whose
    /// providers' stand-ins answer 503 with extreme Retry-After values stays up, retries each push no later than the
    /// Retry-After limit and keeps delivering the others; a push that keeps killing its worker is quarantined; a user
    /// cannot register targets without bound.
    @Suite("Push: hostile provider answers and registrations")
    struct PushHostileAnswers {
        typealias Providers = EndToEnd.PushProviders

        static func metric(_ name: String, provider: String, server: TestServer) throws -> Int? {
            let metrics = try runToCompletion("/usr/bin/curl", ["-s", "http://127.0.0.1:\(server.port)/metrics"]).standardOutput
            let prefix = "\(name){provider=\"\(provider)\"} "
            return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
        }

        /// Percent-encoded for a stand-in SPEC item (commas separate items, so they are encoded too).
        static func encoded(_ value: String) -> String {
            value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
        }

        @Test(
            "Retry-After Int64.max, Int64.max/1000, beyond Int64, negative, garbage and an HTTP-date in year 9999: the server stays up, retries within the limit (--push-max-retry-after-seconds 2), and other pushes flow",
            arguments: ["webhook", "apns", "fcm", "webpush"])
        func extremeRetryAfter(provider: String) throws {
            let setup = try EndToEnd.PushPreviewNone.setup(provider)
            let standIn = setup.standIn
            let scene = try Providers.scene(setup, arguments: ["--push-max-retry-after-seconds", "2", "--push-max-backoff-ms", "1000"])
            // Every value through the webhook; the other providers share the parser, so three kinds each keep the run short.
            let hostile =
                provider == "webhook"
                ? [
                    "9223372036854775807", "9223372036854775", "99999999999999999999999", "-1", "-9223372036854775808", "soon", "1.5",
                    "Fri, 31 Dec 9999 23:59:59 GMT",
                ] : ["9223372036854775807", "soon", "Fri, 31 Dec 9999 23:59:59 GMT"]
            for value in hostile {
                try standIn.respond("503:retry-after=\(Self.encoded(value)),200")
                let message = try scene.world.send(scene.alice, scene.conversation, "answered Retry-After \(value)")
                let requests = try standIn.waitLog("\(provider) \(value): retried and accepted", timeout: .seconds(15)) { log -> [[String: Any]]? in
                    let about = PushStandIn.entries(log, about: message)
                    return about.contains { (200..<300).contains(Providers.status($0)) } ? about : nil
                }
                #expect(scene.world.server.isRunning, "the server survives Retry-After \(value)")
                let statuses = requests.map(Providers.status)
                #expect(statuses.count == 2 && statuses.first == 503 && (200..<300).contains(statuses.last ?? 0), "\(value): one refusal, one retry: \(statuses)")
                let times = requests.compactMap { ($0["time"] as? NSNumber)?.doubleValue }
                if times.count == 2 {
                    // The limit is 2 s; the worker's poll and the stand-in's clock add a little.
                    #expect(times[1] - times[0] <= 3.5, "\(value): retried no later than the limit, after \(times[1] - times[0]) s")
                    if RetryAfterAsked.beyondLimit.contains(value) {
                        #expect(times[1] - times[0] >= 1.9, "\(value): a long Retry-After is still honoured, up to the limit")
                    }
                }
            }
            #expect(scene.world.server.isRunning)
            // Other pushes still flow, and everything was verified by the stand-in.
            try standIn.respond("200")
            let after = try scene.world.send(scene.alice, scene.conversation, "after the hostile answers")
            try standIn.waitLog("a push after them") { log in PushStandIn.entries(log, about: after).first { (200..<300).contains(Providers.status($0)) } }
            #expect(try standIn.log().allSatisfy { $0["verified"] as? Bool == true })
            #expect(try Self.metric("herald_push_sent_total", provider: provider, server: scene.world.server) == hostile.count + 1)
        }

        @Test("A push whose handling died with its worker twice before (its lease ran out, no outcome) is quarantined at the third: never sent, counted, and the queue flows")
        func quarantine() throws {
            let port = try Providers.freePort()
            let secret = try EndToEnd.PushFaults.secretFile()
            let certificate = try SelfSignedCertificate.make()
            var standIn = try EndToEnd.PushFaults.webhook(port: port, secret: secret, certificate: certificate)
            let scene = try Providers.scene(Providers.Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(port)/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-1"}"#))
            standIn.stop()
            let doomed = try scene.world.send(scene.alice, scene.conversation, "the push that kills its worker")
            let database = scene.world.server.databasePath
            func sql(_ statement: String) throws -> String {
                try runToCompletion("/usr/bin/sqlite3", [database, statement]).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, (Int(try sql("SELECT count(*) FROM push_deliveries WHERE attempts > 0")) ?? 0) < 1 {
                Thread.sleep(forTimeInterval: 0.05)
            }
            scene.world.server.kill()
            // What a worker dying in the middle of handling it leaves, after two earlier deaths: its lease set and run out.
            _ = try sql(
                "UPDATE push_deliveries SET lapsed_claims = 2, leased_until = 1, next_attempt_at = 0; UPDATE push_targets SET queue_leased_until = 1, queue_due_at = 0")
            standIn = try EndToEnd.PushFaults.webhook(port: port, secret: secret, certificate: certificate)
            try scene.world.server.restart()
            var quarantined: Int?
            let until = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < until {
                quarantined = try Self.metric("herald_push_quarantined_total", provider: "webhook", server: scene.world.server)
                if quarantined == 1 { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(quarantined == 1)
            #expect(try sql("SELECT count(*) FROM push_deliveries") == "0", "out of the queue")
            #expect(scene.world.server.isRunning)
            let alice = try scene.world.connect("alice")
            let after = try scene.world.send(alice, scene.conversation, "after the quarantine")
            try standIn.waitLog("the next push") { log in PushStandIn.entries(log, about: after).first { Providers.status($0) == 200 } }
            #expect(PushStandIn.entries(try standIn.log(), about: doomed).isEmpty, "the quarantined push is never sent")
        }

        @Test("A user's push targets are capped (10 by default, one per device): the backend API answers 409 past it and stores nothing")
        func targetCap() throws {
            let secret = try EndToEnd.PushFaults.secretFile()
            let standIn = try PushStandIn("webhook.py", ["--secret-file", secret], certificate: try SelfSignedCertificate.make())
            let scene = try Providers.scene(Providers.Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(standIn.port)/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-0"}"#))
            for index in 1..<10 {
                let (status, body) = try Providers.api(
                    scene.world, key: scene.key, "POST", "/users/bob/push-targets", body: #"{"device":"bob-\#(index)","provider":"webhook","token":"device-\#(index)"}"#)
                #expect(status == 200, "\(index): \(body)")
            }
            let (status, body) = try Providers.api(
                scene.world, key: scene.key, "POST", "/users/bob/push-targets", body: #"{"device":"bob-10","provider":"webhook","token":"device-10"}"#)
            #expect(status == 409, "\(body)")
            #expect(body.contains("already has 10 push targets"), "\(body)")
            let listed = try Providers.api(scene.world, key: scene.key, "GET", "/users/bob/push-targets").1
            #expect(listed.components(separatedBy: "\"provider\"").count - 1 == 10, "\(listed)")
            #expect(!listed.contains("device-10"))
            let again = try Providers.api(
                scene.world, key: scene.key, "POST", "/users/bob/push-targets", body: #"{"device":"bob-app","provider":"webhook","token":"device-0b"}"#)
            #expect(again.0 == 200, "a registered device still replaces its own target: \(again.1)")
        }
    }
}

/// The hostile values that ask for more than the limit (the rest are not Retry-After at all, and the backoff applies).
enum RetryAfterAsked {
    static let beyondLimit: Set<String> = ["9223372036854775807", "9223372036854775", "99999999999999999999999", "Fri, 31 Dec 9999 23:59:59 GMT"]
}
