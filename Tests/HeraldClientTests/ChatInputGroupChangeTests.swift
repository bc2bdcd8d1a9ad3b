@testable import HeraldClient
import HeraldProtocol
import HeraldRules
import Testing

/// G1-G5 in the client without a terminal: what `/rename`, `/add`, `/remove` and the script commands make, and how a
/// system line is laid out.
@Suite("Group changes in the client's input and layout (G1-G5)")
struct ChatInputGroupChangeTests {
    private let list = ChatContext(me: "alice", scene: .list, conversations: [("c2", "Team A")], users: ["alice", "bob"], newestFromOthers: nil)
    private let thread = ChatContext(me: "alice", scene: .thread("c2"), conversations: [("c2", "Team A")], users: ["alice", "bob"], newestFromOthers: nil)

    @Test("G1, G2: /rename and /add change the open group; outside a thread they say what to do")
    func renameAndAdd() {
        #expect(ChatInput.interpret("/rename Book club 2", in: thread) == .commands([.renameGroup(conversation: "c2", title: "Book club 2")]))
        #expect(ChatInput.interpret("/add carol", in: thread) == .commands([.addMember(conversation: "c2", user: "carol")]))
        guard case .notice = ChatInput.interpret("/rename New", in: list) else {
            Issue.record("/rename ran without an open group")
            return
        }
        guard case .notice = ChatInput.interpret("/rename", in: thread) else {
            Issue.record("/rename without a title ran")
            return
        }
        guard case .notice = ChatInput.interpret("/add bob carol", in: thread) else {
            Issue.record("/add with two users ran")
            return
        }
    }

    @Test("G3, G4: /remove asks first; removing yourself is leaving")
    func removeAsks() {
        #expect(ChatInput.interpret("/remove bob", in: thread) == .confirm(
            question: "Remove bob from Team A? (y/N)", commands: [.removeMember(conversation: "c2", user: "bob")]))
        guard case .confirm(_, let commands) = ChatInput.interpret("/remove alice", in: thread) else {
            Issue.record("did not ask")
            return
        }
        #expect(commands == [.leave(conversation: "c2")])
    }

    @Test("G2, G3: Tab completes the user after /add (anyone but you) and /remove")
    func completion() {
        #expect(ChatInput.complete("/add b", in: thread).line == "/add bob ")
        #expect(ChatInput.complete("/remove b", in: thread).line == "/remove bob ")
        #expect(ChatInput.complete("/add a", in: thread).matches.isEmpty, "you are in the group already")
    }

    @Test("G5: a system line has no name before it and reads as a notice; its text is drawn safe like other people's")
    func systemLineLayout() {
        var line = ScreenModel.ThreadLine(id: "m9", sender: "alice", senderName: "Alice", text: "Alice added Carol\u{1B}[2J")
        line.isSystem = true
        line = line.drawable
        #expect(ThreadLayout.lead(line) == "")
        #expect(ThreadLayout.body(line) == "-- Alice added Carol␛[2J --")
        var message = ScreenModel.ThreadLine(id: "m8", sender: "alice", senderName: "Alice", text: "Alice added Carol")
        message = message.drawable
        #expect(ThreadLayout.lead(message) == "Alice: ", "the same text from a person still reads as their message")
    }
}

@Suite("Group change script commands (G1-G3)")
struct ScriptGroupChangeCommandTests {
    @Test("rename takes the rest of the line as the title; add-member and remove-member take one user")
    func parse() throws {
        #expect(try ScriptCommandParser.parse("rename c2 Book club 2")?.get() == .renameGroup(conversation: "c2", title: "Book club 2"))
        #expect(try ScriptCommandParser.parse("add-member c2 carol")?.get() == .addMember(conversation: "c2", user: "carol"))
        #expect(try ScriptCommandParser.parse("remove-member c2 carol")?.get() == .removeMember(conversation: "c2", user: "carol"))
        for bad in ["rename c2", "add-member c2", "remove-member c2 a b"] {
            guard case .failure(let error)? = ScriptCommandParser.parse(bad) else { Issue.record("\(bad) parsed"); continue }
            #expect(error.code == "bad_arguments")
        }
    }
}
