import HeraldClient
import HeraldProtocol
import Testing

/// The `users` and `members` script commands in the core: pages followed, one answer line, `knownUsers` kept.
@Suite("Client core: users and members")
struct ClientPeopleTests {
    /// `count` users u0000, u0001, … starting at `start`, in id order.
    static func people(_ start: Int, _ count: Int) -> [ParticipantInfo] {
        (start..<start + count).map { ParticipantInfo(id: "u" + String(repeating: "0", count: 4 - String($0).count) + String($0), name: "User \($0)") }
    }

    @Test("users asks for the largest page with the prefix and answers one line with id and name each; knownUsers keeps it")
    func usersOnePage() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("users b")
        #expect(h.requests.map(\.request) == [.users(after: nil, prefix: "b", limit: 200)])
        #expect(h.core.isBusy, "answered only once the server answered")
        h.respond {
            $0.users = [CoreHarness.bob, ParticipantInfo(id: "bonnie", name: "Bonnie \"B\"")]
            $0.hasMore = false
        }
        #expect(h.lastAnswer?.text == #"{"type":"ok","cmd":"users","users":[{"id":"bob","name":"Bob"},{"id":"bonnie","name":"Bonnie \"B\""}]}"#)
        #expect(h.core.knownUsers.map(\.id) == ["bob", "bonnie"])
        #expect(!h.core.isBusy)
    }

    @Test("users follows hasMore with cursor = the last id and answers once with every page")
    func usersFollowsPages() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("users")
        h.respond { $0.users = Self.people(0, 200); $0.hasMore = true }
        #expect(h.requests.last?.request == .users(after: "u0199", prefix: nil, limit: 200))
        #expect(h.lines.filter { $0["cmd"] == "users" }.isEmpty, "no answer before the last page")
        h.respond { $0.users = Self.people(200, 3); $0.hasMore = false }
        guard case .array(let listed)? = h.lastAnswer?["users"] else { Issue.record("no users in \(String(describing: h.lastAnswer))"); return }
        #expect(listed.count == 203)
        #expect(h.lastAnswer?["more"] == nil)
        #expect(h.core.knownUsers == Self.people(0, 203))
    }

    @Test("users stops at 1,000 and says more, so one line stays bounded on a big server")
    func usersCap() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("users")
        for page in 0..<5 { h.respond { $0.users = Self.people(page * 200, 200); $0.hasMore = true } }
        #expect(h.requests.count == 5)
        #expect(h.lastAnswer?["more"] == true)
        #expect(h.core.knownUsers.count == 1_000)
    }

    @Test("A page that does not move past the previous one ends the listing instead of asking forever")
    func stuckServerEnds() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("users")
        h.respond { $0.users = Self.people(0, 2); $0.hasMore = true }
        h.respond { $0.users = Self.people(0, 2); $0.hasMore = true }
        #expect(h.requests.count == 2)
        #expect(h.lastAnswer?["type"] == "ok")
        #expect(h.lastAnswer?["more"] == true)
    }

    @Test("members follows every page and answers with the conversation and its participants")
    func membersPages() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("members c7")
        #expect(h.requests.map(\.request) == [.members(conversation: "c7", after: nil, limit: 500)])
        h.respond { $0.participants = Self.people(0, 500); $0.hasMore = true }
        #expect(h.requests.last?.request == .members(conversation: "c7", after: "u0499", limit: 500))
        h.respond { $0.participants = [CoreHarness.alice]; $0.hasMore = false }
        #expect(h.lastAnswer?["cmd"] == "members")
        #expect(h.lastAnswer?["conversation"] == "c7")
        guard case .array(let listed)? = h.lastAnswer?["members"] else { Issue.record("no members"); return }
        #expect(listed.count == 501)
        #expect(listed.last == .object([JSONField("id", "alice"), JSONField("name", "Alice")]))
        #expect(h.core.knownUsers.isEmpty, "knownUsers is the users answer only")
    }

    @Test("members of a conversation the user is not in answers the server's error code; knownUsers is unchanged")
    func membersRefused() {
        var h = CoreHarness()
        h.connect()
        h.command("users")
        h.respond { $0.users = [CoreHarness.bob]; $0.hasMore = false }
        h.command("members c99")
        h.respond { $0 = .failure(id: $0.id, ErrorInfo(.notParticipant, "no such conversation")) }
        #expect(h.lastAnswer?["type"] == "error")
        #expect(h.lastAnswer?["cmd"] == "members")
        #expect(h.lastAnswer?["code"] == "not_participant")
        #expect(h.core.knownUsers == [CoreHarness.bob])
    }

    @Test("A listing cut by a reconnect goes on from the page it had reached")
    func reconnectResumesListing() {
        var h = CoreHarness()
        h.connect()
        h.requests = []
        h.command("users")
        h.respond { $0.users = Self.people(0, 200); $0.hasMore = true }
        h.core.connectionLost(now: h.now, reason: "test")
        h.collect()
        #expect(h.lines.filter { $0["cmd"] == "users" }.isEmpty, "a read is retried, not failed")
        h.requests = []
        h.core.connectionOpened(now: h.now)
        h.collect()
        h.respond { $0.mode = .resume; $0.latest = 5 }
        #expect(h.requests.contains { $0.request == .users(after: "u0199", prefix: nil, limit: 200) })
        guard let page = h.requests.last(where: { if case .users = $0.request { true } else { false } }) else { return }
        var response = ResponseFrame(id: page.id)
        response.users = Self.people(200, 1)
        response.hasMore = false
        h.core.receive(.response(response), now: h.now)
        h.collect()
        #expect(h.core.knownUsers.count == 201)
    }
}
