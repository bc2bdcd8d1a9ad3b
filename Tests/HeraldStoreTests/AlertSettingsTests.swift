import HeraldStore
import Testing

@Suite("Alert settings (N1, N3, N4)")
struct AlertSettingsTests {
    @Test("N1: a mute is stored per user and conversation, changes only when it differs, and unmuting removes it", arguments: StoreBackend.allCases)
    func mute(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(try store.alertSettings(users: ["alice", "bob"]).isEmpty)
        #expect(try store.setMute(user: "alice", conversation: c.id, until: 5_000))
        #expect(try !store.setMute(user: "alice", conversation: c.id, until: 5_000))
        #expect(try store.setMute(user: "alice", conversation: c.id, until: Int64.max))
        let settings = try store.alertSettings(users: ["alice", "bob"])
        #expect(settings["alice"]?.mutedUntil == [c.id: Int64.max])
        #expect(settings["bob"] == nil)
        #expect(try store.setMute(user: "alice", conversation: c.id, until: nil))
        #expect(try !store.setMute(user: "alice", conversation: c.id, until: nil))
        #expect(try store.alertSettings(users: ["alice"]).isEmpty)
    }

    @Test("N4: a mark is kept beside a mute and cleared on its own; N3: quiet hours per user", arguments: StoreBackend.allCases)
    func markAndQuiet(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        #expect(try store.setMarkedUnread(user: "alice", conversation: c.id, marked: true))
        #expect(try !store.setMarkedUnread(user: "alice", conversation: c.id, marked: true))
        try store.setMute(user: "alice", conversation: c.id, until: 9_000)
        #expect(try store.setMarkedUnread(user: "alice", conversation: c.id, marked: false))
        #expect(try store.alertSettings(users: ["alice"])["alice"] == UserAlertSettings(mutedUntil: [c.id: 9_000]))
        #expect(try store.setQuiet(user: "bob", on: true))
        #expect(try !store.setQuiet(user: "bob", on: true))
        #expect(try store.alertSettings(users: ["bob"])["bob"] == UserAlertSettings(quiet: true))
        // One user with both, read with another who has neither.
        try store.setQuiet(user: "alice", on: true)
        #expect(try store.alertSettings(users: ["alice", "carol"]) == ["alice": UserAlertSettings(quiet: true, mutedUntil: [c.id: 9_000])])
        #expect(try store.setQuiet(user: "bob", on: false))
        #expect(try !store.setQuiet(user: "bob", on: false))
        #expect(try store.alertSettings(users: ["bob"]).isEmpty)
    }

    @Test("N1, R5: a group the user left no longer lists their mute or mark; a malformed id changes nothing", arguments: StoreBackend.allCases)
    func leftGroup(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let group = try store.createGroup(title: "Team", creator: "alice", members: ["bob", "carol"], now: 1)
        try store.setMute(user: "carol", conversation: group.id, until: Int64.max)
        try store.setMarkedUnread(user: "carol", conversation: group.id, marked: true)
        #expect(try store.alertSettings(users: ["carol"])["carol"]?.markedUnread == [group.id])
        try store.removeParticipant(user: "carol", conversation: group.id)
        #expect(try store.alertSettings(users: ["carol"]).isEmpty)
        #expect(try !store.setMute(user: "alice", conversation: "x1", until: 5))
        #expect(try !store.setMarkedUnread(user: "alice", conversation: "c0", marked: true))
    }

    @Test("N1: timed mutes that ended are ended once and returned, a mute until unmuted never is, a mark beside one stays; the next end is told", arguments: StoreBackend.allCases)
    func endMutes(_ backend: StoreBackend) throws {
        let (_, store) = try storeWithUsers(backend)
        let (c, _) = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1)
        let (d, _) = try store.findOrCreateDirect(between: "alice", and: "carol", now: 1)
        #expect(try store.nextMuteEnd() == nil)
        try store.setMute(user: "alice", conversation: c.id, until: 5_000)
        try store.setMute(user: "bob", conversation: c.id, until: 9_000)
        try store.setMute(user: "alice", conversation: d.id, until: Int64.max)
        try store.setMute(user: "carol", conversation: d.id, until: 5_000)
        try store.setMarkedUnread(user: "carol", conversation: d.id, marked: true)
        #expect(try store.nextMuteEnd() == 5_000)
        #expect(try store.endMutes(endedBy: 4_999).isEmpty)
        let ended = try store.transaction { try store.endMutes(endedBy: 5_000) }
        #expect(Set(ended.map { "\($0.user) \($0.conversation)" }) == ["alice \(c.id)", "carol \(d.id)"])
        #expect(try store.endMutes(endedBy: 5_000).isEmpty, "ended once")
        #expect(try store.nextMuteEnd() == 9_000)
        let settings = try store.alertSettings(users: ["alice", "bob", "carol"])
        #expect(settings["alice"] == UserAlertSettings(mutedUntil: [d.id: Int64.max]))
        #expect(settings["bob"] == UserAlertSettings(mutedUntil: [c.id: 9_000]))
        #expect(settings["carol"] == UserAlertSettings(markedUnread: [d.id]), "the mark stays")
    }
}
