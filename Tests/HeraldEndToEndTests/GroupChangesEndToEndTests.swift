import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// A group changes after it was made, through the real server and clients in script mode.
    @Suite("Groups: rename, add and remove members (G1-G5)")
    struct GroupChanges {
        @Test("G1, G2, G5: a rename and an added member reach every device with a system line, live and in history; neither is unread nor alerts")
        func renameAndAdd() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            let g = try world.group(alice, title: "Team", ["bob"])
            let m = try world.send(alice, g, "before carol")
            try bob.waitState("bob has one unread") { $0.unread(g) == 1 }

            let mark = bob.mark
            try bob.ok("rename \(g) Team B")
            for client in [alice, bob] {
                try client.waitEvent("message", after: client === bob ? mark : 0) {
                    $0.string("conversation") == g && $0.string("kind") == "system" && $0.string("text") == "Bob renamed the group to Team B"
                }
                try client.waitEvent("conversation") { $0.string("conversation") == g && $0.string("title") == "Team B" }
            }

            let aliceMark = alice.mark
            try bob.ok("add-member \(g) carol")
            try carol.waitEvent("conversation") { $0.string("conversation") == g && $0.string("title") == "Team B" }
            for client in [alice, bob, carol] {
                try client.waitEvent("message") { $0.string("kind") == "system" && $0.string("text") == "Bob added Carol" }
            }
            // G2: what was said before counts as read for carol; G5: system lines are nobody's unread, and never alert.
            let carolState = try carol.waitState("carol has the group") { $0.conversationOrder.contains(g) }
            #expect((carolState.unread(g) ?? 0) == 0)
            #expect(try alice.state().unread(g) ?? 0 == 0, "lines written by bob are not alice's unread")
            #expect(try bob.state().unread(g) == 1, "bob still has alice's message unread, nothing more")
            #expect(alice.events("toast.shown", after: aliceMark).isEmpty, "a system line never alerts")

            // In history: carol, added later, opens the thread and sees everything, the lines among the messages.
            let before = carol.mark
            try carol.ok("open thread \(g)")
            let history = try carol.waitEvent("history", after: before) { $0.string("conversation") == g }
            let messages = (history.array("messages") as? [[String: Any]]) ?? []
            let texts = messages.map { ($0["kind"] as? String ?? "", $0["text"] as? String ?? "") }
            #expect(Set(texts.map(\.1)).isSuperset(of: ["before carol", "Bob renamed the group to Team B", "Bob added Carol"]), "\(texts)")
            #expect(messages.contains { $0["message"] as? String == m })
            #expect(texts.filter { $0.0 == "system" }.count == 2)

            // Carol takes part from now on (R1).
            let said = try world.send(carol, g, "hi all")
            try alice.waitEvent("message") { $0.string("message") == said }
        }

        @Test("G3, R5: only the creator removes a member; the removed member's devices drop the group at once and get nothing more; the others see the line")
        func removeMember() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let bob = try world.connect("bob")
            let carol = try world.connect("carol")
            let carolLaptop = try world.connect("carol")
            let g = try world.group(alice, title: "Team", ["bob", "carol"])
            try world.send(alice, g, "hello")
            try carolLaptop.waitState("carol's laptop has it") { $0.unread(g) == 1 }

            #expect(try bob.command("remove-member \(g) carol").string("code") == "forbidden", "G3: only the creator removes others")
            let dm = try world.dm(alice, "bob")
            #expect(try alice.command("rename \(dm) Nope").string("code") == "conflict", "G6")
            #expect(try alice.command("add-member \(dm) carol").string("code") == "conflict", "G6")

            let laptopMark = carolLaptop.mark
            try alice.ok("remove-member \(g) carol")
            try carolLaptop.waitEvent("left", after: laptopMark) { $0.string("conversation") == g && $0.string("user") == "carol" }
            let gone = try carolLaptop.waitState("gone from carol's laptop") { !$0.conversationOrder.contains(g) && $0.int("badge") == 0 }
            #expect((gone.unread(g) ?? 0) == 0)
            try carol.waitEvent("left") { $0.string("conversation") == g && $0.string("user") == "carol" }
            for client in [alice, bob] {
                try client.waitEvent("message") { $0.string("kind") == "system" && $0.string("text") == "Alice removed Carol" }
            }

            // R5: nothing of the group reaches carol any more, and she cannot read or write it.
            let quiet = [carol.mark, carolLaptop.mark]
            let after = try world.send(alice, g, "after carol")
            try bob.waitEvent("message") { $0.string("message") == after }
            try bob.ok("leave \(g)")
            try alice.waitEvent("message") { $0.string("kind") == "system" && $0.string("text") == "Bob left" }
            #expect(carol.events("message", after: quiet[0]).isEmpty && carolLaptop.events("message", after: quiet[1]).isEmpty)
            #expect(carol.events("left", after: quiet[0]).isEmpty, "not even that bob left")
            #expect(try carol.command("open thread \(g)").string("code") == "not_participant")
            #expect(try carol.command("add-member \(g) carol").string("code") == "not_participant")
        }
    }
}
