import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules E1 and E2 through real `herald --script` processes: typing and presence are events of the moment, never
    /// stored or replayed, and only the people who share a conversation see them (R5).
    @Suite("E: typing and presence")
    struct Ephemeral {
        /// The `users` of a `typing` event.
        private static func typists(_ line: OutputLine) -> [String] { (line.array("users") as? [String]) ?? [] }

        /// The `typing` of conversation `c` in a state line.
        private static func typing(_ state: OutputLine, _ c: String) -> [String]? {
            let rows = (state.array("conversations") as? [[String: Any]]) ?? []
            return rows.first { $0["id"] as? String == c }?["typing"] as? [String]
        }

        @Test("E1, R5: typing reaches the other participant (event and state), never a non-participant; a message ends it")
        func typingReachesParticipantsOnly() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            let c = try world.dm(alice, "bob")
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }
            let (bobMark, carolMark) = (bob.mark, carol.mark)

            try alice.ok("typing start \(c)")
            try bob.waitEvent("typing", after: bobMark) { $0.string("conversation") == c && Self.typists($0) == ["alice"] }
            try bob.waitState("alice typing in the row") { Self.typing($0, c) == ["alice"] }

            let refused = try carol.command("typing start \(c)")
            #expect(refused.type == "error" && refused.string("code") == "not_participant")

            let stopMark = bob.mark
            let m = try world.send(alice, c, "done typing")
            try bob.waitEvent("message", after: stopMark) { $0.string("message") == m }
            try bob.waitEvent("typing", after: stopMark) { $0.string("conversation") == c && Self.typists($0).isEmpty }
            try bob.waitState("nobody typing") { Self.typing($0, c) == [] }
            // Carol's own refused report and everything after it reached her: still no typing event of a conversation
            // she is not in.
            _ = try carol.state()
            #expect(carol.events("typing", after: carolMark).isEmpty)
            #expect(alice.events("typing").isEmpty, "nobody else typed")
        }

        @Test("E1: typing ends after silence: the server (and the client) end it 6 s after the last start")
        func typingEndsAfterSilence() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.group(alice, title: "Plans", ["bob"])
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }
            let mark = bob.mark
            try alice.ok("typing start \(c)")
            try bob.waitEvent("typing", after: mark) { Self.typists($0) == ["alice"] }
            let started = ContinuousClock.now
            try bob.waitEvent("typing", after: mark, timeout: .seconds(12)) { $0.string("conversation") == c && Self.typists($0).isEmpty }
            let silence = ContinuousClock.now - started
            #expect(silence >= .seconds(5), "not before its time: \(silence)")
            #expect(silence < .seconds(9), "within a moment of 6 s: \(silence)")
        }

        @Test("E1: a device leaving the thread, or disconnecting, ends its typing")
        func leavingEndsTyping() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }
            try alice.ok("open thread \(c)")
            var mark = bob.mark
            try alice.ok("typing start \(c)")
            try bob.waitEvent("typing", after: mark) { Self.typists($0) == ["alice"] }
            mark = bob.mark
            try alice.ok("open list")
            try bob.waitEvent("typing", after: mark, timeout: .seconds(3)) { Self.typists($0).isEmpty }

            mark = bob.mark
            try alice.ok("typing start \(c)")
            try bob.waitEvent("typing", after: mark) { Self.typists($0) == ["alice"] }
            mark = bob.mark
            #expect(alice.quit() == 0)
            try bob.waitEvent("typing", after: mark, timeout: .seconds(3)) { Self.typists($0).isEmpty }
        }

        @Test("E1: a typing flood is answered rate_limited and changes nothing for the others")
        func typingFloodIsRateLimited() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }
            let mark = bob.mark
            var codes: [String] = []
            for _ in 0..<30 {
                let answer = try alice.command("typing start \(c)")
                codes.append(answer.type == "ok" ? "ok" : answer.string("code") ?? "?")
            }
            #expect(codes.first == "ok")
            #expect(codes.contains("rate_limited"), "\(codes)")
            #expect(Set(codes).isSubset(of: ["ok", "rate_limited"]), "\(codes)")
            try bob.waitEvent("typing", after: mark, timeout: .seconds(12)) { Self.typists($0).isEmpty }
            // One start, one end: the refused reports (and the honoured refreshes) showed nothing new.
            let seen = bob.events("typing", after: mark).map(Self.typists)
            #expect(seen == [["alice"], []])
            let state = try alice.state()
            #expect(state.bool("connected") == true, "the connection stays open")
        }

        @Test("E2, R5: presence online, away, then offline with lastSeen reaches the people who share a conversation, nobody else")
        func presenceOnlineAwayOffline() throws {
            let world = try World()
            try world.createUser("bob")
            let alice = try world.connect("alice")
            let c = try world.dm(alice, "bob")
            // Bob syncs after alice is online: he learns her presence right after connecting.
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            try bob.waitEvent("presence") { $0.string("user") == "alice" && $0.string("status") == "online" }
            try alice.waitEvent("presence") { $0.string("user") == "bob" && $0.string("status") == "online" }
            try bob.waitState("bob knows \(c)") { $0.conversationOrder.contains(c) }

            var mark = bob.mark
            try alice.ok("background")
            let away = try bob.waitEvent("presence", after: mark, timeout: .seconds(5)) { $0.string("user") == "alice" }
            #expect(away.string("status") == "away")

            mark = bob.mark
            let before = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(alice.quit() == 0)
            let offline = try bob.waitEvent("presence", after: mark, timeout: .seconds(5)) { $0.string("user") == "alice" }
            let after = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(offline.string("status") == "offline")
            let lastSeen = try #require(offline.int("lastSeen"), "offline carries lastSeen")
            #expect(Int64(lastSeen) >= before - 1_000 && Int64(lastSeen) <= after, "lastSeen \(lastSeen) is when alice left")

            // Carol shares no conversation with alice or bob.
            _ = try carol.state()
            #expect(carol.events("presence").isEmpty, "R5: \(carol.events("presence"))")
        }

        @Test("E2: offline with the time last seen outlives a server restart: a user who left before it, and one still connected when it stopped")
        func lastSeenOutlivesRestart() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            _ = try world.dm(alice, "bob")
            _ = try world.dm(carol, "bob")
            try bob.waitEvent("presence") { $0.string("user") == "alice" && $0.string("status") == "online" }
            try bob.waitEvent("presence") { $0.string("user") == "carol" && $0.string("status") == "online" }

            var mark = bob.mark
            #expect(alice.quit() == 0)
            let offline = try bob.waitEvent("presence", after: mark, timeout: .seconds(5)) {
                $0.string("user") == "alice" && $0.string("status") == "offline"
            }
            let aliceSeen = try #require(offline.int("lastSeen"), "offline carries lastSeen")

            // Carol is still connected when the server stops (SIGTERM): she is last seen then.
            mark = carol.mark
            let stopping = Int64(Date().timeIntervalSince1970 * 1000)
            #expect(world.server.stop() == 0, "SIGTERM exits 0")
            let stopped = Int64(Date().timeIntervalSince1970 * 1000)
            try carol.waitEvent("disconnected", after: mark)
            carol.quit()
            bob.quit()
            try world.server.restart()

            // A new device of bob: the restarted server knows alice and carol only from the database.
            let bobAgain = try world.connect("bob")
            let toldAlice = try bobAgain.waitEvent("presence", timeout: .seconds(5)) { $0.string("user") == "alice" }
            #expect(toldAlice.string("status") == "offline")
            #expect(toldAlice.int("lastSeen") == aliceSeen, "the same time as before the restart")
            let toldCarol = try bobAgain.waitEvent("presence", timeout: .seconds(5)) { $0.string("user") == "carol" }
            #expect(toldCarol.string("status") == "offline")
            let carolSeen = Int64(try #require(toldCarol.int("lastSeen"), "carol was seen when the server stopped"))
            #expect(carolSeen >= stopping - 1_000 && carolSeen <= stopped, "lastSeen \(carolSeen) is when the server stopped")
        }
    }
}
