import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Herald's provider clients against stand-ins built on independent implementations (Tests/PushStandIns: PyJWT,
    /// cryptography, http_ece, py_vapid, hypercorn/h2): every request must pass the stand-in's checks of the
    /// provider's rules, and each scripted answer must get the documented behaviour: 400 dropped, 429 retried no
    /// sooner than Retry-After, 5xx retried, an expired credential renewed and retried (APNs ExpiredProviderToken, FCM
    /// 401), a 403 of Web Push (VAPID refused) or of the webhook dropped, 410 (FCM: UNREGISTERED) the target removed. Bob's device is registered through the backend API and never connects: a locked phone.
    @Suite("Push providers against third-party stand-ins")
    struct PushProviders {
        /// One provider's stand-in, the server configured for it, and bob's registration body.
        struct Setup {
            var standIn: PushStandIn
            var serverArguments: [String]
            var registration: String
        }

        /// A server with `setup`'s provider, alice connected, bob registered, and their conversation.
        struct Scene {
            let world: World
            let key: String
            let alice: ClientProcess
            let conversation: String
        }

        static func scene(_ setup: Setup, arguments: [String] = []) throws -> Scene {
            let world = try World(
                serverArguments: ["--push-ca-file", setup.standIn.certificate.certificateFile, "--push-max-backoff-ms", "3000", "--metrics"] + setup.serverArguments
                    + arguments)
            let made = try runToCompletion(HeraldBinaries.server, ["apikey", "create", "--name", "e2e", "--db", world.server.databasePath])
            try #require(made.status == 0, "apikey create failed: \(made.standardError)")
            let key = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            let alice = try world.connect("alice")
            try world.createUser("bob")
            let (status, body) = try api(world, key: key, "POST", "/users/bob/push-targets", body: setup.registration)
            try #require(status == 200, "registration answered \(status): \(body)")
            return Scene(world: world, key: key, alice: alice, conversation: try world.dm(alice, "bob"))
        }

        /// `curl` one /api/v1 call; the HTTP status and body.
        static func api(_ world: World, key: String, _ method: String, _ path: String, body: String? = nil) throws -> (Int, String) {
            var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(key)"]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
            let result = try runToCompletion("/usr/bin/curl", arguments + ["http://127.0.0.1:\(world.server.port)/api/v1\(path)"])
            let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        static func status(_ entry: [String: Any]) -> Int { (entry["status"] as? NSNumber)?.intValue ?? -1 }

        /// The scripted walk every provider gets: one message per answer in `refusals`, each refused for good (dropped,
        /// never retried); m2 through `retries` (the statuses the stand-in answers, in order) to success; m3 answered
        /// "gone" (target removed). Returns m2's requests.
        static func walk(_ setup: Setup, refusals: [String], retries: String, retryStatuses: [Int], gone: String) throws -> [[String: Any]] {
            let scene = try scene(setup)
            let standIn = setup.standIn
            try standIn.respond((refusals + [retries, "200", gone]).joined(separator: ","))
            var refused: [String] = []
            for refusal in refusals {
                let m1 = try scene.world.send(scene.alice, scene.conversation, "refused with \(refusal)")
                try standIn.waitLog("m1 answered") { PushStandIn.entries($0, about: m1).first }
                refused.append(m1)
            }
            let m2 = try scene.world.send(scene.alice, scene.conversation, "second, retried")
            let m2Requests = try standIn.waitLog("m2 delivered") { entries -> [[String: Any]]? in
                let about = PushStandIn.entries(entries, about: m2)
                return about.count >= retryStatuses.count ? about : nil
            }
            #expect(m2Requests.map(status) == retryStatuses, "m2 answered in the scripted order and sent once more after each failure")
            let violations = m2Requests.map { $0["violations"] as? [String] ?? [] }
            #expect(m2Requests.allSatisfy { $0["verified"] as? Bool == true }, "every request passes the stand-in: \(violations)")
            let times = m2Requests.compactMap { ($0["time"] as? NSNumber)?.doubleValue }
            #expect(times.count >= 2 && times[1] - times[0] >= 1.95, "429 Retry-After: 2 is honoured (the backoff alone would be 0.5-1 s)")
            for m1 in refused { #expect(PushStandIn.entries(try standIn.log(), about: m1).count == 1, "a refused push is dropped, not retried") }
            let m3 = try scene.world.send(scene.alice, scene.conversation, "third, the target is gone")
            try standIn.waitLog("m3 answered") { PushStandIn.entries($0, about: m3).first }
            let deadline = ContinuousClock.now + .seconds(10)
            var listed = ""
            while ContinuousClock.now < deadline {
                listed = try api(scene.world, key: scene.key, "GET", "/users/bob/push-targets").1
                if listed.contains("\"targets\":[]") { break }
                Thread.sleep(forTimeInterval: 0.05)
            }
            #expect(listed.contains("\"targets\":[]"), "the target is removed when the provider says it is gone: \(listed)")
            // /metrics counts it all per provider.
            let provider = (try JSONSerialization.jsonObject(with: Data(setup.registration.utf8)) as? [String: Any])?["provider"] as? String ?? ""
            let metrics = try runToCompletion("/usr/bin/curl", ["-s", "http://127.0.0.1:\(scene.world.server.port)/metrics"]).standardOutput
            func count(_ name: String) -> Int {
                let prefix = "\(name){provider=\"\(provider)\"} "
                return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) } ?? -1
            }
            #expect(count("herald_push_sent_total") == 1, "m2")
            #expect(count("herald_push_dropped_total") == refusals.count)
            #expect(count("herald_push_retried_total") >= retryStatuses.count - 1)
            #expect(count("herald_push_targets_removed_total") == 1)
            #expect(metrics.contains("herald_push_latency_milliseconds_count{provider=\"\(provider)\"} 1"))
            return m2Requests
        }

        static func temporary(_ name: String) -> String {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-push-\(UUID().uuidString)")
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory.appendingPathComponent(name).path
        }

        static func sh(_ command: String) throws {
            let result = try runToCompletion("/bin/sh", ["-c", command])
            try #require(result.status == 0, "\(command): \(result.standardError)")
        }

        static func p256Key() throws -> String {
            let path = temporary("key.p8")
            try sh("openssl ecparam -name prime256v1 -genkey -noout | openssl pkcs8 -topk8 -nocrypt -out '\(path)'")
            return path
        }

        static let deviceToken = String(repeating: "a1b2c3d4", count: 8)

        @Test("APNs: ES256 provider token, apns-* headers and aps payload pass; 400 dropped, 429/500 retried, expired token renewed, 410 removes the target")
        func apns() throws {
            let key = try Self.p256Key()
            let standIn = try PushStandIn(
                "apns.py", ["--team-id", "TEAM123456", "--key-id", "KEY1234567", "--key-file", key, "--topic", "com.example.herald", "--token-refresh-min", "0"],
                certificate: try SelfSignedCertificate.make())
            let setup = Setup(
                standIn: standIn,
                serverArguments: ["--apns-key-file", key, "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456", "--apns-url", "https://127.0.0.1:\(standIn.port)"],
                registration: #"{"device":"bob-iphone","provider":"apns","token":"\#(Self.deviceToken)","topic":"com.example.herald","sandbox":true}"#)
            let m2 = try Self.walk(setup, refusals: ["400:BadCollapseId"], retries: "429:2,500,403", retryStatuses: [429, 500, 403, 200], gone: "410")
            let delivered = try #require(m2.last)
            #expect(delivered["pushType"] as? String == "alert")
            #expect(delivered["priority"] as? String == "10")
            #expect(delivered["topic"] as? String == "com.example.herald")
            #expect(delivered["httpVersion"] as? String == "2")
            let payload = try #require(delivered["payload"] as? [String: Any])
            let aps = try #require(payload["aps"] as? [String: Any])
            #expect((aps["alert"] as? [String: Any])?["body"] as? String == "second, retried")
            #expect((aps["badge"] as? NSNumber)?.intValue == 2, "U5: two unread when it was decided")
        }

        @Test("APNs: a message read elsewhere is withdrawn from the locked iPhone with a background push (P5)")
        func apnsWithdrawal() throws {
            let key = try Self.p256Key()
            let standIn = try PushStandIn(
                "apns.py", ["--team-id", "TEAM123456", "--key-id", "KEY1234567", "--key-file", key, "--topic", "com.example.herald", "--token-refresh-min", "0"],
                certificate: try SelfSignedCertificate.make())
            let scene = try Self.scene(Setup(
                standIn: standIn,
                serverArguments: ["--apns-key-file", key, "--apns-key-id", "KEY1234567", "--apns-team-id", "TEAM123456", "--apns-url", "https://127.0.0.1:\(standIn.port)"],
                registration: #"{"device":"bob-iphone","provider":"apns","token":"\#(Self.deviceToken)","topic":"com.example.herald"}"#))
            let laptop = try scene.world.connect("bob")
            try laptop.waitState("laptop knows c") { $0.conversationOrder.contains(scene.conversation) }
            let m = try scene.world.send(scene.alice, scene.conversation, "read me on the laptop")
            try standIn.waitLog("alert") { PushStandIn.entries($0, about: m).first }
            try laptop.ok("open thread \(scene.conversation)")
            let withdrawal = try standIn.waitLog("withdrawal") { entries in
                PushStandIn.entries(entries, about: m).first { $0["pushType"] as? String == "background" }
            }
            #expect(withdrawal["priority"] as? String == "5")
            let violations = withdrawal["violations"] as? [String] ?? []
            #expect(withdrawal["verified"] as? Bool == true, "\(violations)")
            let herald = (withdrawal["payload"] as? [String: Any])?["herald"] as? [String: Any]
            #expect(herald?["type"] as? String == "withdraw")
        }

        @Test("FCM HTTP v1: JWT-bearer grant and messages pass; 400 dropped, 429/503 retried, 401 renews the access token, UNREGISTERED removes the target")
        func fcm() throws {
            let port = try Self.freePort()
            let account = Self.temporary("service-account.json")
            try Self.sh("python3 '\(PushStandIn.directory)/make_service_account.py' --out '\(account)' --token-uri https://127.0.0.1:\(port)/token --project-id herald-test")
            let standIn = try PushStandIn(
                "fcm.py", ["--project-id", "herald-test", "--service-account", account], certificate: try SelfSignedCertificate.make(), port: port)
            let setup = Setup(
                standIn: standIn, serverArguments: ["--fcm-service-account-file", account, "--fcm-url", "https://127.0.0.1:\(port)"],
                registration: #"{"device":"bob-pixel","provider":"fcm","token":"fcm-token:APA91bHPRgkF3JUikC4ENAHEeMrd41Zxv3hVZjC9KtT8OvPVGJ-hQMRKRrZuJAEcl7B338qju59zJMjw2DELjzEvxwYv7hH5Ynpc1ODQ0aT4U4OFEeco8ohsN5PjL1iC2dNtk2BAokeMCg2ZXKqpc8FXKmhX94kIxQ"}"#)
            let m2 = try Self.walk(setup, refusals: ["400"], retries: "429:2,503,403", retryStatuses: [429, 503, 401, 200], gone: "410")
            let tokens = try standIn.log().filter { $0["kind"] as? String == "token" }
            #expect(tokens.count >= 2, "the refused access token was replaced by a new grant")
            #expect(tokens.allSatisfy { $0["verified"] as? Bool == true })
            let message = ((m2.last?["payload"] as? [String: Any])?["message"] as? [String: Any]) ?? [:]
            #expect((message["notification"] as? [String: Any])?["body"] as? String == "second, retried")
            #expect((message["data"] as? [String: Any])?["badge"] as? String == "2", "U5: two unread when it was decided")
        }

        @Test("Web Push: aes128gcm payload (RFC 8291) and VAPID (RFC 8292) pass; 400 dropped, 429/500 retried, 410 removes the subscription")
        func webPush() throws {
            let vapid = try Self.p256Key()
            let subscriptions = Self.temporary("subscriptions.json")
            let standIn = try PushStandIn("webpush.py", ["--subscriptions-out", subscriptions], certificate: try SelfSignedCertificate.make())
            let listed = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: subscriptions))) as? [[String: String]]
            let subscription = try #require(listed?.first)
            let setup = Setup(
                // The stand-in listens on 127.0.0.1, which only the tests' loopback allowance lets a user register.
                standIn: standIn, serverArguments: ["--vapid-key-file", vapid, "--vapid-subject", "mailto:ops@example.com", "--push-allow-http-loopback"],
                registration: #"{"device":"bob-browser","provider":"webpush","endpoint":"\#(subscription["endpoint"] ?? "")","p256dh":"\#(subscription["p256dh"] ?? "")","auth":"\#(subscription["auth"] ?? "")"}"#)
            let m2 = try Self.walk(setup, refusals: ["400", "403"], retries: "429:2,500", retryStatuses: [429, 500, 201], gone: "410")
            let delivered = try #require(m2.last)
            #expect(delivered["urgency"] as? String == "high")
            #expect((delivered["ttl"] as? NSNumber)?.intValue ?? 0 > 0)
            let payload = try #require(delivered["payload"] as? [String: Any])
            #expect(payload["body"] as? String == "second, retried")
            #expect(payload["topic"] == nil && delivered["topic"] as? String == payload["message"] as? String, "Topic is the message id")
        }

        @Test("Webhook: HMAC-SHA256 signature over timestamp and body passes; 400 dropped, 429/503 retried, 410 removes the target")
        func webhook() throws {
            let secret = Self.temporary("webhook-secret")
            try Self.sh("head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > '\(secret)' && chmod 600 '\(secret)'")
            let standIn = try PushStandIn("webhook.py", ["--secret-file", secret], certificate: try SelfSignedCertificate.make())
            let setup = Setup(
                standIn: standIn, serverArguments: ["--webhook-url", "https://127.0.0.1:\(standIn.port)/herald/push", "--webhook-secret-file", secret],
                registration: #"{"device":"bob-app","provider":"webhook","token":"device-7f3a"}"#)
            let m2 = try Self.walk(setup, refusals: ["400", "403"], retries: "429:2,503", retryStatuses: [429, 503, 200], gone: "410")
            let payload = try #require(m2.last?["payload"] as? [String: Any])
            #expect(payload["user"] as? String == "bob")
            #expect(payload["token"] as? String == "device-7f3a")
            #expect(payload["type"] as? String == "message")
        }

        @Test("FCM: a bell push passes, its notification id under notificationId (FCM reserves the data key 'notification')")
        func fcmBell() throws {
            let setup = try EndToEnd.PushPreviewNone.setup("fcm")
            let scene = try Self.scene(setup)
            let body = #"{"kind":"reminder","text":"Standup in 5 minutes"}"#
            let (status, answer) = try Self.api(scene.world, key: scene.key, "POST", "/users/bob/notifications", body: body)
            #expect(status == 200 || status == 201, "\(answer)")
            let bell = try setup.standIn.waitLog("the bell push") { log in log.first { $0["kind"] as? String == "send" } }
            #expect(bell["verified"] as? Bool == true, "\(bell["violations"] ?? "")")
            let data = ((bell["payload"] as? [String: Any])?["message"] as? [String: Any])?["data"] as? [String: Any]
            #expect(data?["type"] as? String == "bell")
            #expect((data?["notificationId"] as? String)?.hasPrefix("n") == true)
        }

        /// A port free now (bound and released), for a stand-in whose URL must be known before it starts.
        static func freePort() throws -> Int {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }
}
