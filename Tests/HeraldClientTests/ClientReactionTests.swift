import HeraldProtocol
import Testing
@testable import HeraldClient

/// Reactions in the client core: from history pages and live `reaction` events into the line under their message,
/// and as `reaction` events in script mode.
@Suite("Client core: reactions under messages")
struct ClientReactionTests {
    @Test("A history page's reactions show under their message; a live reaction adds to them (printed once), a repeat changes nothing")
    func historyThenLive() {
        var h = CoreHarness()
        h.connect()
        h.command("open thread c1")
        var reacted = CoreHarness.message("m1", text: "lunch?", at: 1)
        reacted.reactions = [ReactionInfo(user: "alice", emoji: "👍")]
        h.respond {
            $0.messages = [CoreHarness.message("m2", text: "plain", at: 2), reacted]
            $0.hasMore = false
        }
        func line(_ id: String) -> ScreenModel.ThreadLine? { h.core.screenModel(now: h.now).thread.first { $0.id == id } }
        #expect(line("m1")?.reactions == "👍 1")
        #expect(line("m2")?.reactions == nil)
        for _ in 0..<2 {
            h.event({
                $0.seq = 9; $0.conversationId = "c1"; $0.messageId = "m1"; $0.user = "bob"; $0.emoji = "👍"
            }, .reaction)
        }
        #expect(line("m1")?.reactions == "👍 2")
        #expect(h.events("reaction").count == 1, "the repeat prints nothing")
        #expect(h.events("reaction").first?["user"] == .string("bob") && h.events("reaction").first?["message"] == .string("m1"))
    }
}
