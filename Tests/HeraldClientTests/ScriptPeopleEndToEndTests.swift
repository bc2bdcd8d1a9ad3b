import Foundation
import HeraldTestSupport
import Testing

/// `users` and `members` (CLIENT-SCRIPT.md) through real `herald --script` processes and a real server.
@Suite("herald --script: users and members against a real server", .serialized)
struct ScriptPeopleEndToEndTests {
    /// The `[{id, name}]` list of an answer.
    private func people(_ answer: OutputLine, _ key: String) -> [[String: String]] {
        (answer.array(key) as? [[String: Any]] ?? []).map { $0.compactMapValues { $0 as? String } }
    }

    @Test("users lists everyone but the caller with names; members lists a group's participants; refusals carry the server's code")
    func usersAndMembers() throws {
        let server = try TestServer()
        let alice = try server.client("alice")
        let bob = try server.client("bob")
        _ = try server.token("carol")

        let everyone = try alice.ok("users")
        #expect(people(everyone, "users") == [["id": "bob", "name": "Bob"], ["id": "carol", "name": "Carol"]], "not alice herself")
        #expect(people(try alice.ok("users C"), "users").map { $0["id"] } == ["carol"], "a prefix, either case")
        #expect(people(try bob.ok("users"), "users").map { $0["id"] } == ["alice", "carol"])

        let group = try #require(try alice.ok("group \"Team A\" bob carol").string("conversation"))
        let members = try bob.ok("members \(group)")
        #expect(members.string("conversation") == group)
        #expect(people(members, "members") == [["id": "alice", "name": "Alice"], ["id": "bob", "name": "Bob"], ["id": "carol", "name": "Carol"]])

        let direct = try #require(try alice.ok("dm carol").string("conversation"))
        let refused = try bob.command("members \(direct)")
        #expect(refused.type == "error" && refused.string("cmd") == "members" && refused.string("code") == "not_participant", "R5")
        #expect(try bob.command("members c999").string("code") == "not_participant")

        for line in ["members", "members \(group) extra", "users b c"] {
            let bad = try alice.command(line)
            #expect(bad.type == "error" && bad.string("code") == "bad_arguments", "\(line): \(bad)")
        }
        #expect(alice.quit() == 0)
        #expect(bob.quit() == 0)
    }
}
