import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Rules U1-U7, flow M4 / AC-4 of seed 004.
    @Suite("U: unread")
    struct Unread {
        @Test("U3, M4, AC-4: ten unread, six visible leaves four; the badge drops by six")
        func incrementalClearing() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob", arguments: ["--viewport", "6"])
            let c = try world.dm(alice, "bob")
            for i in 1...10 { try world.send(alice, c, "burst \(i)") }
            try bob.waitState("ten unread") { $0.unread(c) == 10 && $0.int("badge") == 10 }
            try bob.ok("open list")
            #expect(try bob.state().unread(c) == 10, "U2: opening the list reads nothing")
            try bob.ok("open thread \(c)")
            let state = try bob.waitState("four left") { $0.unread(c) == 4 }
            #expect(state.int("badge") == 4)
            #expect(state.visible.count == 6)
        }

        @Test("U4: reading on one device updates unread and the badge on the user's other device")
        func crossDevice() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            for i in 1...3 { try world.send(alice, c, "hello \(i)") }
            try laptop.waitState("three unread on the laptop") { $0.unread(c) == 3 }
            let mark = laptop.mark
            try phone.ok("open thread \(c)")
            let state = try laptop.waitState("laptop cleared within a second or so", timeout: .seconds(2)) { $0.unread(c) == 0 }
            #expect(state.string("badgeText") == "")
            try laptop.waitEvent("read", after: mark)
        }

        @Test("U1, U7: reads from another device arrive stamped with rising seqs and the counts only go down")
        func countsNeverGoBackwards() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob", arguments: ["--viewport", "3"])
            let laptop = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            for i in 1...10 { try world.send(alice, c, "line \(i)") }
            try laptop.waitState("ten unread") { $0.unread(c) == 10 && $0.int("badge") == 10 }
            let mark = laptop.mark
            // The phone reads in steps of three: 7, 4, 1, then 0 left.
            try phone.ok("open thread \(c)")
            for _ in 1...3 { try phone.ok("scroll up 3") }
            try laptop.waitState("all read on the laptop") { $0.unread(c) == 0 && $0.int("badge") == 0 }
            let reads = laptop.events("read", after: mark).filter { $0.string("conversation") == c }
            let seqs = reads.compactMap { $0.int("seq") }
            let counts = reads.compactMap { $0.int("unread") }
            #expect(reads.count >= 2, "several read updates")
            #expect(seqs.count == reads.count, "every update carries its seq")
            #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "seqs rise: \(seqs)")
            #expect(counts == counts.sorted(by: >), "counts only go down: \(counts)")
            #expect(counts.last == 0)
            // U1: the badge is the sum over conversations.
            #expect(try laptop.state().int("badge") == 0)
        }

        @Test("U5: badge text is the number up to 99, then 99+")
        func badgeText() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            for i in 1...99 { try world.send(alice, c, "n\(i)") }
            try bob.waitState("99", timeout: .seconds(30)) { $0.string("badgeText") == "99" }
            try world.send(alice, c, "the hundredth")
            let state = try bob.waitState("99+") { $0.string("badgeText") == "99+" }
            #expect(state.int("badge") == 100)
        }

        @Test("R5: a user cannot send to a conversation they are not in")
        func notParticipant() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let private_ = try world.dm(alice, "carol")
            _ = carol
            let answer = try bob.command("send \(private_) let me in")
            #expect(answer.type == "error")
            #expect(answer.string("code") == "not_participant")
            #expect(!(try bob.state().conversationOrder.contains(private_)))
        }
    }

    /// Rules B1-B4 and the badge tests 1-5 of seed 003.
    @Suite("B: bell")
    struct Bell {
        @Test("seed 003 #1, B2: one notification shows '1' with a pulse; reading it clears the badge")
        func single() throws {
            let world = try World()
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let mark = bob.mark
            try carol.ok("follow bob")
            let bell = try bob.waitEvent("bell", after: mark)
            #expect(bell.bool("pulse") == true)
            let state = try bob.waitState("bell 1") { ($0.bell?["badgeText"] as? String) == "1" }
            let items = (state.bell?["items"] as? [[String: Any]]) ?? []
            guard let id = items.first?["id"] as? String else {
                Issue.record("no bell item: \(state)")
                return
            }
            #expect(items.first?["kind"] as? String == "follow")
            try bob.ok("bell read \(id)")
            try bob.waitState("bell cleared") { ($0.bell?["unread"] as? Int) == 0 && ($0.bell?["badgeText"] as? String) == "" }
        }

        @Test("seed 003 #2, B3: five notifications, two read leaves three, read-all clears")
        func multiple() throws {
            let world = try World()
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            for _ in 1...5 { try carol.ok("follow bob") }
            let state = try bob.waitState("bell 5") { ($0.bell?["unread"] as? Int) == 5 }
            let ids = ((state.bell?["items"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            #expect(ids.count == 5)
            for id in ids.prefix(2) { try bob.ok("bell read \(id)") }
            try bob.waitState("bell 3") { ($0.bell?["badgeText"] as? String) == "3" }
            try bob.ok("bell read-all")
            try bob.waitState("bell 0") { ($0.bell?["badgeText"] as? String) == "" }
        }

        @Test("seed 003 #3, B3: mark-read on one device clears the bell on the other")
        func crossDevice() throws {
            let world = try World()
            let carol = try world.connect("carol")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            try carol.ok("follow bob")
            try phone.waitState("phone bell 1") { ($0.bell?["unread"] as? Int) == 1 }
            try laptop.waitState("laptop bell 1") { ($0.bell?["unread"] as? Int) == 1 }
            try phone.ok("bell read-all")
            try laptop.waitState("laptop bell cleared", timeout: .seconds(2)) { ($0.bell?["unread"] as? Int) == 0 }
        }

        @Test("seed 003 #4, B4, U5: over 99 reads 99+, and the feed keeps the newest 100")
        func overNinetyNine() throws {
            let world = try World()
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            for _ in 1...105 { try carol.ok("follow bob") }
            let state = try bob.waitState("bell 99+", timeout: .seconds(30)) { ($0.bell?["badgeText"] as? String) == "99+" }
            #expect(((state.bell?["items"] as? [Any]) ?? []).count == 100)
            #expect((state.bell?["unread"] as? Int) == 100)
        }

        @Test("seed 003 #5, B2: the badge pulses on every rise")
        func pulse() throws {
            let world = try World()
            let carol = try world.connect("carol")
            let bob = try world.connect("bob")
            let mark = bob.mark
            try carol.ok("follow bob")
            try bob.waitEvent("bell", after: mark) { $0.bool("pulse") == true }
            let second = bob.mark
            try carol.ok("follow bob")
            try bob.waitEvent("bell", after: second) { $0.bool("pulse") == true }
            let third = bob.mark
            try bob.ok("bell read-all")
            let cleared = try bob.waitEvent("bell", after: third)
            #expect(cleared.bool("pulse") != true, "no pulse when the count falls")
        }

        @Test("B1: messages never appear in the bell; reactions do")
        func messagesNotInBell() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let c = try world.dm(alice, "bob")
            let m = try world.send(bob, c, "react to this")
            try bob.waitState("sent") { $0.raw.contains(m) }
            #expect((try bob.state().bell?["unread"] as? Int) == 0)
            try alice.waitEvent("message") { $0.string("message") == m }
            try alice.ok("react \(m) 👍")
            let state = try bob.waitState("reaction in bell") { ($0.bell?["unread"] as? Int) == 1 }
            #expect(((state.bell?["items"] as? [[String: Any]]) ?? []).first?["kind"] as? String == "reaction")
        }
    }
}
