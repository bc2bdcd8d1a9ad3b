import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// G1, G2, G5 in the client core: a group's change and its system line as the device takes them in.
@Suite("Client core: group changes and system lines (G1, G2, G5)")
struct ClientGroupChangeTests {
    static func line(_ id: String, by actor: ParticipantInfo, _ text: String, at time: Int64) -> MessageInfo {
        MessageInfo(id: id, conversation: "c1", sender: actor.id, senderName: actor.name, kind: .system, text: text, imageURL: nil,
                    clientMessageId: "~system-1", createdAt: time)
    }

    @Test("G5: a system line from someone else prints as a message of kind system but raises no unread and no toast")
    func systemLineIsNotUnread() {
        var h = CoreHarness()
        h.connect()
        h.event({ $0.seq = 6; $0.message = Self.line("m1", by: CoreHarness.bob, "Bob renamed the group to X", at: 10) }, .message)
        #expect(h.events("message").first?["kind"] == "system")
        #expect(h.events("toast.shown").isEmpty)
        let state = h.state()
        #expect(state["unread"]?["c1"] == 0 || state["unread"]?["c1"] == nil)
        #expect(state["badgeText"] == "")
        // A message after it still counts (U1).
        h.event({ $0.seq = 7; $0.message = CoreHarness.message("m2", at: 11) }, .message)
        #expect(h.state()["unread"]?["c1"] == 1)
    }

    @Test("G1: group.changed takes the new title and keeps this device's unread count")
    func groupChangedKeepsCounts() {
        var h = CoreHarness()
        h.connect(unread: 2)
        h.event({
            $0.seq = 6
            $0.conversation = ConversationInfo(id: "c1", kind: .group, title: "Team B", participants: [CoreHarness.alice, CoreHarness.bob], unread: 0,
                                               lastMessage: nil, lastActivity: 20)
        }, .groupChanged)
        #expect(h.events("conversation").last?["title"] == "Team B")
        #expect(h.state()["unread"]?["c1"] == 2, "the event's unread is nobody's: the count stays")
    }

    @Test("G5: /edit and /unsend never pick a system line about your own change")
    func newestMineSkipsSystemLines() {
        var h = CoreHarness()
        h.connect()
        h.command("open thread c1")
        h.respond {
            $0.messages = [Self.line("m3", by: CoreHarness.alice, "Alice added Carol", at: 30), CoreHarness.message("m2", from: CoreHarness.alice, at: 20)]
            $0.hasMore = false
        }
        #expect(h.core.newestMineInThread == "m2")
    }
}
