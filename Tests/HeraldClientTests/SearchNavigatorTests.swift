@testable import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// The terminal's search keys as commands: n/↑ older, N/↓ newer, Enter again, Esc ends; past the oldest hit loaded, the
/// next page of hits is asked for, and its first hit is jumped to when it comes.
@Suite("Terminal search: keys through the hits")
struct SearchNavigatorTests {
    private func hit(_ id: String) -> MessageInfo {
        MessageInfo(id: id, conversation: "c1", sender: "bob", senderName: "Bob", kind: .text, text: "text of \(id)", imageURL: nil,
                    clientMessageId: nil, createdAt: 1)
    }

    @Test("The first page jumps to its newest hit; n and N move through the hits and stop at each end")
    func moves() {
        var search = SearchNavigator()
        search.begin(conversation: "c1", text: "zepp")
        #expect(search.commands(for: .text("n")) == nil, "while the first page is on its way, keys are the composer's")
        #expect(search.answered(hits: [hit("m9"), hit("m5")], more: false) == [.jump(message: "m9")])
        #expect(search.status.contains("1/2 (newest)"))
        #expect(search.commands(for: .text("N")) == [], "nothing newer than the newest")
        #expect(search.commands(for: .text("n")) == [.jump(message: "m5")])
        #expect(search.status.contains("2/2 (oldest)"))
        #expect(search.commands(for: .up) == [], "nothing older and no more pages")
        #expect(search.commands(for: .enter) == [.jump(message: "m5")], "Enter scrolls to the hit again")
        #expect(search.commands(for: .down) == [.jump(message: "m9")])
        #expect(search.commands(for: .text("x")) == nil, "other keys type as always")
        #expect(search.commands(for: .escape) == [])
        #expect(!search.isActive)
    }

    @Test("Past the oldest hit of a page with more, the next page is asked for before that hit, then its first is shown")
    func pages() {
        var search = SearchNavigator()
        search.begin(conversation: "c1", text: "ticket")
        _ = search.answered(hits: [hit("m30"), hit("m20")], more: true)
        _ = search.commands(for: .text("n"))
        #expect(search.status.contains("2/2+"))
        #expect(search.commands(for: .text("n")) == [.search(conversation: "c1", text: "ticket", before: "m20")])
        #expect(search.answered(hits: [hit("m10")], more: false) == [.jump(message: "m10")])
        #expect(search.status.contains("3/3 (oldest)"))
    }

    @Test("No hits says so; a refused search leaves nothing to move through")
    func nothingFound() {
        var search = SearchNavigator()
        search.begin(conversation: "c1", text: "nothing")
        #expect(search.answered(hits: [], more: false) == [])
        #expect(search.status.contains("no message found"))
        #expect(search.commands(for: .text("n")) == [])
        search.begin(conversation: "c1", text: "again")
        search.failed()
        #expect(search.commands(for: .text("n")) == [])
    }
}

/// `/search` typed at the terminal: the open conversation's search; nowhere else.
@Suite("Terminal search: the /search command")
struct SearchCommandTests {
    @Test("/search <words> searches the open conversation; without words or outside a thread it says what to do")
    func interpret() {
        let thread = ChatContext(me: "alice", scene: .thread("c2"), conversations: [("c2", "Bob")], users: ["bob"], newestFromOthers: nil)
        let list = ChatContext(me: "alice", scene: .list, conversations: [("c2", "Bob")], users: ["bob"], newestFromOthers: nil)
        #expect(ChatInput.interpret("/search deploy  Friday", in: thread) == .commands([.search(conversation: "c2", text: "deploy  Friday", before: nil)]))
        guard case .notice = ChatInput.interpret("/search", in: thread) else { Issue.record("no usage hint"); return }
        guard case .notice = ChatInput.interpret("/search deploy", in: list) else { Issue.record("searched outside a thread"); return }
    }
}

/// What the terminal shows and runs for the answers of a search.
@Suite("Terminal search: answers")
struct SearchAnswerTests {
    @Test("A search answer shows the count and jumps to its first hit; a refusal is shown; other answers are not the search's")
    func answers() {
        var search = SearchNavigator()
        search.begin(conversation: "c1", text: "zepp")
        let hit = MessageInfo(id: "m9", conversation: "c1", sender: "bob", senderName: "Bob", kind: .text, text: "zeppelin", imageURL: nil,
                              clientMessageId: nil, createdAt: 1)
        var details = AnswerDetails()
        details.hits = [hit]
        let taken = search.take(CommandAnswer(name: "search", outcome: .ok(details)))
        #expect(taken?.commands == [.jump(message: "m9")])
        #expect(taken?.notice.contains("1/1") == true)
        #expect(search.take(CommandAnswer(name: "jump", outcome: .ok(AnswerDetails())))?.commands == [])
        #expect(search.take(CommandAnswer(name: "members", outcome: .ok(AnswerDetails()))) == nil)
        let refused = search.take(CommandAnswer(name: "jump", outcome: .error(code: "not_found", message: "no message m9 in this thread")))
        #expect(refused?.notice == "✗ jump: no message m9 in this thread")
        search.end()
        #expect(search.take(CommandAnswer(name: "search", outcome: .ok(details))) == nil, "no search going on")
    }
}
