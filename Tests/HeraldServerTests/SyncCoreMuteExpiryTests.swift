import Foundation
import HeraldProtocol
@testable import HeraldSync
import HeraldStore
import Testing

@Suite("SyncCore: a timed mute ends by itself (N1)")
struct SyncCoreMuteExpiryTests {
    private static func settings(_ events: [EventFrame]) -> [EventFrame] { events.filter { $0.event == .settings } }

    @Test("N1: when a mute for a minute ends, every device of the user gets settings muted false with a seq, the store forgets it, a new list shows it unmuted")
    func timedMuteEnds() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "alice"); f.online(3, "bob")
        let c = f.dm(1, with: "bob")
        let muted = f.request(1, #"{"type":"mute","conversation":"\#(c)","minutes":1}"#)
        #expect(muted.conversation?.muted == true)
        let until = try #require(muted.conversation?.mutedUntil)
        #expect(f.core.nextDeadline <= until, "the end is a deadline of the sync thread")
        _ = f.events(1); _ = f.events(2); _ = f.events(3)

        f.advance(milliseconds: 59_000)
        #expect(Self.settings(f.events(1)).isEmpty, "not yet")
        f.advance(milliseconds: 1_000)
        for device in [1, 2] {
            let ended = Self.settings(f.events(device))
            #expect(ended.count == 1, "device \(device)")
            #expect(ended.first?.conversationId == c && ended.first?.muted == false && ended.first?.seq != nil)
        }
        #expect(Self.settings(f.events(3)).isEmpty, "bob's settings are his own")
        #expect(try f.store.alertSettings(users: ["alice"]).isEmpty)
        let list = f.request(1, #"{"type":"conversations"}"#)
        #expect(list.conversations?.first { $0.id == c }?.muted == nil)
        f.advance(milliseconds: 60_000)
        #expect(Self.settings(f.events(1)).isEmpty, "ended once")
    }

    @Test("N1: a mute until unmuted never ends by itself; a mark unread beside an ended mute stays")
    func foreverAndMarks() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        let d = f.dm(1, with: "carol")
        f.request(1, #"{"type":"mute","conversation":"\#(c)"}"#)
        f.request(1, #"{"type":"mute","conversation":"\#(d)","minutes":1}"#)
        f.request(1, #"{"type":"markUnread","conversation":"\#(d)"}"#)
        _ = f.events(1)
        f.advance(milliseconds: 61_000)
        let ended = Self.settings(f.events(1))
        #expect(ended.map(\.conversationId) == [d])
        let settings = try #require(try f.store.alertSettings(users: ["alice"])["alice"])
        #expect(settings.mutedUntil == [c: Int64.max])
        #expect(settings.markedUnread == [d])
    }

    @Test("N1: a mute that ended while the server was down is announced by the next core on the same store")
    func endedWhileDown() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        f.request(1, #"{"type":"mute","conversation":"\#(c)","minutes":1}"#)
        let seqBefore = try f.store.latestSeq(user: "alice")
        let restarted = SyncCore<Int>(store: f.store)
        _ = restarted.fireDueTimers(now: f.now + 120_000)
        #expect(try f.store.alertSettings(users: ["alice"]).isEmpty)
        #expect(try f.store.latestSeq(user: "alice") == seqBefore + 1, "the settings event is in alice's stream for her devices to resume")
    }
}
