import HeraldRules
import Testing
@testable import HeraldClient

/// Select mode and reactions as pure logic: picking any message in sight, what /edit, /unsend and /react then act
/// on (M1, M2: only one's own can change), and the line of reactions under a message.
@Suite("herald terminal: select mode and reaction summaries")
struct MessageSelectionTests {
    private func target(_ id: String, mine: Bool) -> MessageSelection.Target {
        MessageSelection.Target(id: id, mine: mine, unsent: false, senderName: mine ? "Alice" : "Bob", text: "text of \(id)")
    }

    @Test("Entering picks the newest message in sight; the arrows move over those in sight and stop at the edges")
    func arrowsMoveThePick() {
        var selection = MessageSelection()
        let enteredEmpty = selection.enter(in: "c1")
        #expect(!enteredEmpty, "nothing in sight, nothing picked")
        selection.visible = [target("m1", mine: false), target("m2", mine: true), target("m3", mine: false)]
        let entered = selection.enter(in: "c1")
        #expect(entered && selection.target?.id == "m3")
        var moves: [Bool] = []
        var picks: [String?] = []
        for step in [-1, -1, -1, 1, 1, 1] {
            moves.append(selection.move(step))
            picks.append(selection.target?.id)
        }
        #expect(moves == [true, true, false, true, true, false], "the edges stop the pick (the thread scrolls instead)")
        #expect(picks == ["m2", "m1", "m1", "m2", "m3", "m3"])
    }

    @Test("The pick ends when another scene opens, or when the command it was kept for leaves the composer")
    func pickSettles() {
        var selection = MessageSelection()
        selection.visible = [target("m1", mine: true)]
        _ = selection.enter(in: "c1")
        selection.settle(scene: "c1", composer: "")
        #expect(selection.target?.id == "m1", "still moving: kept")
        selection.moving = false
        selection.settle(scene: "c1", composer: "/edit new")
        #expect(selection.target?.id == "m1", "the /edit it was kept for is in the composer")
        selection.settle(scene: "c1", composer: "")
        #expect(selection.target == nil, "sent or cleared: gone")
        let again = selection.enter(in: "c1")
        #expect(again)
        selection.settle(scene: nil, composer: "")
        #expect(selection.target == nil, "back on the list: gone")
    }

    @Test("M1/M2: with a pick, /edit and /unsend act on it when it is mine and say whose it is when not; /react acts on any pick; without one, the newest as before")
    func commandsActOnThePick() {
        var context = ChatContext(me: "alice", scene: .thread("c1"), conversations: [("c1", "Bob")], users: ["bob"], newestFromOthers: "m9", newestMine: "m8")
        context.selected = ChatContext.Selected(id: "m2", mine: true, senderName: "Alice")
        #expect(ChatInput.interpret("/edit better", in: context) == .commands([.edit(message: "m2", text: "better")]))
        #expect(ChatInput.interpret("/unsend", in: context) == .commands([.unsend(message: "m2")]))
        context.selected = ChatContext.Selected(id: "m1", mine: false, senderName: "Bob")
        #expect(ChatInput.interpret("/edit better", in: context) == .notice("that is Bob's message: only your own can be edited"))
        #expect(ChatInput.interpret("/unsend", in: context) == .notice("that is Bob's message: only your own can be unsent"))
        #expect(ChatInput.interpret("/react 👍", in: context) == .commands([.react(message: "m1", emoji: "👍")]))
        context.selected = nil
        #expect(ChatInput.interpret("/edit better", in: context) == .commands([.edit(message: "m8", text: "better")]))
        #expect(ChatInput.interpret("/react 👍", in: context) == .commands([.react(message: "m9", emoji: "👍")]))
    }

    @Test("Reactions under a message: each person's emoji counted once, emoji in the order first given, none is no line")
    func reactionSummary() {
        var reactions: [MessageReaction] = []
        #expect(ReactionSummary.text(reactions) == nil)
        for (user, emoji) in [("bob", "👍"), ("carol", "❤️"), ("carol", "👍"), ("bob", "👍")] {
            reactions = ReactionSummary.adding(MessageReaction(user: user, emoji: emoji), to: reactions)
        }
        #expect(reactions.count == 3, "bob's second 👍 is the same reaction")
        #expect(ReactionSummary.text(reactions) == "👍 2  ❤️ 1")
        let full = (0..<ReactionSummary.maxPerMessage).map { MessageReaction(user: "u\($0)", emoji: "👍") }
        #expect(ReactionSummary.adding(MessageReaction(user: "late", emoji: "👍"), to: full).count == ReactionSummary.maxPerMessage)
    }
}
