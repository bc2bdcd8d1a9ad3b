import Foundation
import HeraldTestSupport
import Testing

extension EndToEnd {
    /// Consent: a member added to a group they did not ask for can leave it.
    @Suite("Groups: leaving")
    struct GroupLeave {
        @Test("R5, U1: a member leaves a group: gone from every one of their devices with its unread, no later message reaches them, the others see one member less and keep talking")
        func memberLeaves() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let carol = try world.connect("carol")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            let g = try world.group(alice, title: "Spam", ["bob", "carol"])
            try world.send(alice, g, "buy now")
            try laptop.waitState("one unread on the laptop") { $0.unread(g) == 1 && $0.int("badge") == 1 }
            let mark = laptop.mark
            try phone.ok("leave \(g)")
            try laptop.waitEvent("left", after: mark) { $0.string("conversation") == g && $0.string("user") == "bob" }
            let state = try laptop.waitState("gone from the laptop") { !$0.conversationOrder.contains(g) && $0.int("badge") == 0 }
            #expect((state.unread(g) ?? 0) == 0)
            try carol.waitEvent("left") { $0.string("conversation") == g && $0.string("user") == "bob" }

            let quiet = laptop.mark
            try world.send(alice, g, "still here?")
            try carol.waitState("carol gets it") { $0.unread(g) == 2 }
            #expect(laptop.events("message", after: quiet).isEmpty, "nothing reaches a member who left")
            #expect(try phone.command("open thread \(g)").type == "error" || !(try phone.state().conversationOrder.contains(g)))
            // A direct conversation cannot be left; leaving twice is not being a participant.
            let dm = try world.dm(alice, "bob")
            #expect(try phone.command("leave \(dm)").string("code") == "conflict")
            #expect(try phone.command("leave \(g)").string("code") == "not_participant")
        }
    }
}

extension EndToEnd {
    /// Revocation from the client: a user signs all their devices out.
    @Suite("Sign-out from the client")
    struct ClientSignOut {
        @Test("sign-out: the command is answered, then every device of the user (this one too) is closed with 4001 and its client stops with exit 3; others stay")
        func signOutEverywhere() throws {
            let world = try World()
            let alice = try world.connect("alice")
            let phone = try world.connect("bob")
            let laptop = try world.connect("bob")
            try phone.ok("sign-out")
            #expect(phone.waitForExit() == 3, "\(phone.stderrText)")
            #expect(laptop.waitForExit() == 3, "\(laptop.stderrText)")
            #expect(laptop.stderrText.contains("get a new token"))
            #expect(try alice.state().type == "state", "another user's client is untouched")
        }
    }
}
