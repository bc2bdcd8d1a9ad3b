import Foundation
import HeraldTestSupport
import Testing

/// `search` and `jump` (CLIENT-SCRIPT.md) through real `herald --script` processes and a real server, on each store:
/// the server's index finds words over the whole history, newest first and paged, as the text stands (M1, M2), for
/// participants only (R5); `jump` brings a hit far above the loaded page on screen.
@Suite("herald --script: search within a conversation against a real server", .serialized)
struct ScriptSearchEndToEndTests {
    enum Store: String, CaseIterable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    /// The ids of an answer's hits, newest first.
    private func hits(_ answer: OutputLine) -> [String] {
        (answer.array("hits") as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
    }

    @Test("search finds words over the whole history, pages, follows edits and unsends, refuses non-participants; jump reaches a hit", arguments: Store.allCases)
    func searchAndJump(_ store: Store) throws {
        if store == .postgres && !PostgresCluster.binariesAvailable {
            Issue.record(PostgresCluster.skipReason, severity: .warning)
            try Test.cancel(PostgresCluster.skipReason)
        }
        let server = try TestServer(arguments: ["--sync-send-rate", "0"], store: store == .postgres ? try PostgresCluster.newDatabase() : nil)
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        let carol = try server.client("carol")
        let dm = try #require(try alice.ok("dm bob").string("conversation"))

        func send(_ client: ClientProcess, _ text: String) throws -> String {
            try #require(try client.ok("send \(dm) \(text)").string("message"))
        }
        let oldest = try send(alice, "the zeppelin lands on Friday")
        var tickets: [String] = []
        // More than a page of history above the first hit, so `jump` has to load older pages.
        for index in 0..<130 {
            let message = try send(index.isMultiple(of: 2) ? alice : bob, "ticket \(index) is open")
            if index < 25 { tickets.append(message) }
        }
        let lunch = try send(bob, "Lunch? The zeppelin café")

        let found = try bob.ok("search \(dm) ZEPP")
        #expect(hits(found) == [lunch, oldest], "prefix, any case, newest first, over the whole history")
        let first = try #require((found.array("hits") as? [[String: Any]])?.last)
        #expect(first["sender"] as? String == "alice")
        #expect(first["senderName"] as? String == "Alice")
        #expect(first["text"] as? String == "the zeppelin lands on Friday")
        #expect((first["createdAt"] as? NSNumber)?.int64Value ?? 0 > 0)
        #expect(found.bool("more") == nil)
        #expect(hits(try bob.ok("search \(dm) zeppelin friday")) == [oldest], "every word")

        // Pages: 20 newest first, then the rest before the last hit.
        let page1 = try bob.ok("search \(dm) ticket")
        #expect(hits(page1).count == 20)
        #expect(page1.bool("more") == true)
        var all = hits(page1)
        var before = try #require(all.last)
        while true {
            let page = try bob.ok("search \(dm) --before \(before) ticket")
            all += hits(page)
            guard page.bool("more") == true, let last = hits(page).last else { break }
            before = last
        }
        #expect(all.count == 130)
        #expect(Array(all.suffix(25)) == tickets.reversed())

        // M1, M2.
        _ = try alice.ok("edit \(oldest) the airship lands on Monday")
        #expect(hits(try bob.ok("search \(dm) zeppelin")) == [lunch], "M1: the old words are not found")
        #expect(hits(try bob.ok("search \(dm) airship")) == [oldest], "M1: the edited text is")
        _ = try bob.ok("unsend \(lunch)")
        #expect(hits(try alice.ok("search \(dm) zeppelin")).isEmpty, "M2: an unsent message is never found")

        // R5 and bad input.
        let refused = try carol.command("search \(dm) ticket")
        #expect(refused.type == "error" && refused.string("code") == "not_participant", "R5: \(refused)")
        #expect(try bob.command("search \(dm) ?! ...").string("code") == "bad_request")
        #expect(try bob.command("search \(dm)").string("code") == "bad_arguments")
        #expect(try bob.command("search \(dm) --before m999999 ticket").string("code") == "not_found", "a cursor of no message here")

        // jump: the oldest message is far above the page an open thread loads.
        _ = try bob.ok("open thread \(dm)")
        let opened = try bob.state()
        #expect((opened.dict("viewport")?["visible"] as? [String])?.contains(oldest) == false, "not loaded on opening")
        _ = try bob.ok("jump \(oldest)")
        // Answered once the messages it showed were acknowledged (as `scroll` is): the viewport is in `state`.
        let jumped = try #require(try bob.state().dict("viewport"))
        #expect((jumped["visible"] as? [String])?.contains(oldest) == true, "jump loads older pages until it is on screen: \(jumped)")
        #expect((jumped["atBottom"] as? NSNumber)?.boolValue == false)
        let nowhere = try bob.command("jump m999999")
        #expect(nowhere.string("code") == "not_found")
        _ = try bob.ok("open list")
        #expect(try bob.command("jump \(oldest)").string("code") == "not_in_thread")
        for client in [alice, bob, carol] { #expect(client.quit() == 0) }
    }
}
