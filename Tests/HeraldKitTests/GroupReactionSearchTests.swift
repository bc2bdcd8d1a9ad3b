import Foundation
import HeraldKit
import HeraldTestSupport
import Testing

/// What an app does with groups, reactions and search through the library, against a real `herald-server`.
@Suite("HeraldKit: group changes, reactions and search", .timeLimit(.minutes(2)))
struct GroupReactionSearchTests {
    @Test("G1, G2, G5: a rename and an added member reach the group as system lines (isSystem); a reaction arrives typed; search pages through hits newest first")
    func groupsReactionsSearch() async throws {
        let server = try TestServer()
        _ = try server.token("carol")
        let alice = EventRecorder(try SessionEndToEndTests.session(server, "alice"))
        let bob = EventRecorder(try SessionEndToEndTests.session(server, "bob"))
        try await alice.waitOnline()
        try await bob.waitOnline()
        let group = try await alice.session.createGroup(title: "Trip", members: ["bob"])

        try await alice.session.renameGroup(group, to: "Trip to Kyoto")
        let renamed = try await bob.wait("rename line") { $0.message?.conversation == group && $0.message?.isSystem == true }.message
        #expect(renamed?.text?.contains("Trip to Kyoto") == true, "\(String(describing: renamed))")
        #expect(try await bob.session.conversations().first { $0.id == group }?.title == "Trip to Kyoto")

        var mark = bob.mark
        try await alice.session.addMember("carol", to: group)
        let added = try await bob.wait("add line", after: mark) { $0.message?.conversation == group && $0.message?.isSystem == true }.message
        #expect(added?.text?.contains("Carol") == true || added?.text?.contains("carol") == true, "\(String(describing: added))")

        // A message and a reaction to it.
        let sent = try alice.session.send("the train leaves at nine", to: group)
        let message = try #require(try await bob.wait("message") { $0.message?.clientMessageId == nil && $0.message?.text == "the train leaves at nine" }.message)
        #expect(message.isSystem == false)
        mark = alice.mark
        try await bob.session.react(to: message.id, with: "👍")
        try await alice.wait("reaction", after: mark) { $0 == .reaction(conversation: group, message: message.id, user: "bob", emoji: "👍") }
        _ = sent

        // Search: whole words or their start, newest first, paged by `before`.
        for index in 1...3 { _ = try alice.session.send("train \(index)", to: group) }
        try await bob.wait("last train") { $0.message?.text == "train 3" }
        let found = try await bob.session.search("trai", in: group)
        #expect(found.hits.map(\.text) == ["train 3", "train 2", "train 1", "the train leaves at nine"])
        #expect(found.more == false)
        let older = try await bob.session.search("train", in: group, before: found.hits[1].id)
        #expect(older.hits.map(\.text) == ["train 1", "the train leaves at nine"])
        await #expect(throws: HeraldError.self) { _ = try await bob.session.search("", in: group) }

        await alice.session.disconnect()
        await bob.session.disconnect()
    }
}
