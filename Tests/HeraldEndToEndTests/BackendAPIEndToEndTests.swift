import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// The backend API (/api/v1) through the real binaries: what an app's own backend does over /api/v1 reaches `herald --script`
    /// devices like anything a user does (curl is the backend's HTTP client).
    @Suite("API: backend calls reach devices")
    struct BackendAPI {
        /// `curl` a JSON request to the running server with the API key; returns the HTTP status and body.
        private func call(_ world: World, key: String, _ method: String, _ path: String, body: String? = nil) throws -> (Int, String) {
            var arguments = ["-s", "-o", "-", "-w", "\n%{http_code}", "-X", method, "-H", "Authorization: Bearer \(key)"]
            if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
            let result = try runToCompletion("/usr/bin/curl", arguments + ["http://127.0.0.1:\(world.server.port)/api/v1\(path)"])
            let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
            return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
        }

        private func apiKey(_ world: World) throws -> String {
            let made = try runToCompletion(HeraldBinaries.server, ["apikey", "create", "--name", "e2e", "--db", world.server.databasePath])
            try #require(made.status == 0, "apikey create failed: \(made.standardError)")
            return made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        @Test("A message posted through the API reaches connected herald --script devices once, as a message and a toast")
        func postedMessageReachesDevices() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let key = try apiKey(world)
            let (status, created) = try call(world, key: key, "POST", "/conversations", body: #"{"kind":"direct","members":["alice","bob"]}"#)
            #expect(status == 201 || status == 200, "\(created)")
            let conversation = try #require(
                (try JSONSerialization.jsonObject(with: Data(created.utf8)) as? [String: Any])?["id"] as? String)
            try bob.waitState("bob knows the conversation") { $0.conversationOrder.contains(conversation) }
            let (bobMark, aliceMark) = (bob.mark, alice.mark)
            let body = #"{"sender":"alice","clientMessageId":"welcome-1","text":"Welcome aboard!"}"#
            let (posted, answer) = try call(world, key: key, "POST", "/conversations/\(conversation)/messages", body: body)
            #expect(posted == 201 || posted == 200, "\(answer)")
            try bob.waitEvent("message", after: bobMark) { $0.string("text") == "Welcome aboard!" }
            try bob.waitEvent("toast.shown", after: bobMark) { $0.raw.contains("Welcome aboard!") }
            try alice.waitEvent("message", after: aliceMark) { $0.string("text") == "Welcome aboard!" }
            // R4 through the API: a retry stores nothing new and shows nothing new.
            let (retried, _) = try call(world, key: key, "POST", "/conversations/\(conversation)/messages", body: body)
            #expect(retried == 200 || retried == 201)
            try bob.waitState("one unread") { $0.unread(conversation) == 1 }
            #expect(bob.events("message", after: bobMark).count == 1)
        }

        @Test("B1-B3: a notification created through the API appears in the bell on all the user's devices")
        func notificationReachesEveryDevice() throws {
            let world = try World()
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let key = try apiKey(world)
            let body = #"{"kind":"reminder","text":"Standup in 5 minutes"}"#
            let (status, answer) = try call(world, key: key, "POST", "/users/bob/notifications", body: body)
            #expect(status == 201 || status == 200, "\(answer)")
            for device in [phone, laptop] {
                let state = try device.waitState("bell 1 on \(device.name)") { ($0.bell?["unread"] as? Int) == 1 }
                let items = (state.bell?["items"] as? [[String: Any]]) ?? []
                #expect(items.first?["kind"] as? String == "reminder")
                #expect(items.first?["text"] as? String == "Standup in 5 minutes")
                try device.waitEvent("bell") { $0.bool("pulse") == true }
            }
        }
    }
}
