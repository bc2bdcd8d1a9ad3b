import HeraldRules
import Testing

@Suite("E1, E2: typing and presence rules")
struct TypingAndPresenceTests {
    private func at(_ ms: Int64) -> Instant { Instant(milliseconds: ms) }

    @Test("E1: the typing line names one or two people, else says several")
    func typingLine() {
        #expect(TypingText.line(names: []) == nil)
        #expect(TypingText.line(names: ["Bob"]) == "Bob is typing…")
        #expect(TypingText.line(names: ["Bob", "Carol"]) == "Bob and Carol are typing…")
        #expect(TypingText.line(names: ["Bob", "Carol", "Dave"]) == "Several people are typing…")
        #expect(TypingText.listRow == "typing…")
    }

    @Test("E1: an indicator ends at the stop, or after 6 s without a refresh; a refresh moves the end")
    func indicators() {
        var typing = TypingIndicators()
        let bobStarts = typing.start("bob", in: "c1", now: at(0))
        #expect(bobStarts)
        let bobRefreshes = typing.start("bob", in: "c1", now: at(4_000))
        #expect(!bobRefreshes, "a refresh is not a change")
        let carolStarts = typing.start("carol", in: "c1", now: at(5_000))
        #expect(carolStarts)
        #expect(typing.users(in: "c1") == ["bob", "carol"])
        #expect(typing.nextDeadline == at(10_000))
        let endedEarly = typing.tick(now: at(9_999))
        #expect(endedEarly.isEmpty)
        let endedAt10s = typing.tick(now: at(10_000))
        #expect(endedAt10s == ["c1"])
        #expect(typing.users(in: "c1") == ["carol"])
        let carolStops = typing.stop("carol", in: "c1")
        #expect(carolStops)
        let carolStopsAgain = typing.stop("carol", in: "c1")
        #expect(!carolStopsAgain)
        #expect(typing.users(in: "c1").isEmpty && typing.nextDeadline == nil)
    }

    @Test("E1: the composer reports a start, refreshes no more than every 3 s, stops after 5 s idle, on send or on leaving")
    func reporter() {
        var reporter = TypingReporter()
        let firstKey = reporter.keystroke(in: "c1", now: at(0))
        #expect(firstKey == [.start("c1")])
        let keyWithin3s = reporter.keystroke(in: "c1", now: at(2_999))
        #expect(keyWithin3s == [])
        let keyAfter3s = reporter.keystroke(in: "c1", now: at(3_000))
        #expect(keyAfter3s == [.start("c1")])
        #expect(reporter.nextDeadline == at(8_000))
        let idleEarly = reporter.tick(now: at(7_999))
        #expect(idleEarly == [])
        let idleAt5s = reporter.tick(now: at(8_000))
        #expect(idleAt5s == [.stop("c1")])
        let stopWithNothing = reporter.stop()
        #expect(stopWithNothing == [], "nothing standing")
        let keyAfterIdle = reporter.keystroke(in: "c1", now: at(9_000))
        #expect(keyAfterIdle == [.start("c1")])
        let keyElsewhere = reporter.keystroke(in: "c2", now: at(9_100))
        #expect(keyElsewhere == [.stop("c1"), .start("c2")])
        #expect(reporter.isReporting(in: "c2"))
        let stopOnSend = reporter.stop()
        #expect(stopOnSend == [.stop("c2")])
    }

    @Test("E2: status from the connected devices' foreground flags")
    func status() {
        #expect(PresenceStatus.of(foregroundDevices: [Bool]()) == .offline)
        #expect(PresenceStatus.of(foregroundDevices: [false, false]) == .away)
        #expect(PresenceStatus.of(foregroundDevices: [false, true]) == .online)
        #expect(PresenceState(status: .online, lastSeen: 5).lastSeen == nil, "lastSeen only when offline")
    }

    @Test("E2: one update per user every 2 s; held changes go out with the newest state, or not at all when it is back to the last one")
    func coalescing() {
        var coalescer = PresenceCoalescer<String>()
        let online = PresenceState(status: .online), away = PresenceState(status: .away)
        let offline = PresenceState(status: .offline, lastSeen: 1_500)
        let firstOnline = coalescer.note("alice", online, now: at(0))
        #expect(firstOnline == online)
        let sameAgain = coalescer.note("alice", online, now: at(100))
        #expect(sameAgain == nil, "no change")
        let awaySoon = coalescer.note("alice", away, now: at(1_000))
        #expect(awaySoon == nil, "held")
        let offlineSoon = coalescer.note("alice", offline, now: at(1_500))
        #expect(offlineSoon == nil, "held, replaced")
        #expect(coalescer.nextDeadline == at(2_000))
        let tickEarly = coalescer.tick(now: at(1_999))
        #expect(tickEarly.isEmpty)
        let out = coalescer.tick(now: at(2_000))
        #expect(out.map(\.user) == ["alice"] && out.map(\.state) == [offline])
        let onlineSoon = coalescer.note("alice", online, now: at(3_000))
        #expect(onlineSoon == nil)
        let backToOffline = coalescer.note("alice", offline, now: at(3_500))
        #expect(backToOffline == nil, "back to what was announced: nothing held")
        let tickAfterReturn = coalescer.tick(now: at(4_000))
        #expect(tickAfterReturn.isEmpty)
        let bobAway = coalescer.note("bob", away, now: at(3_600))
        #expect(bobAway == away, "users are independent")
    }

    @Test("E2: a forgotten user's next state goes out at once, even the one last announced, and nothing held for them is left to go out")
    func forgetting() {
        var coalescer = PresenceCoalescer<String>()
        let online = PresenceState(status: .online), away = PresenceState(status: .away)
        _ = coalescer.note("alice", online, now: at(0))
        #expect(coalescer.note("alice", away, now: at(500)) == nil, "held")
        _ = coalescer.note("bob", online, now: at(600))
        coalescer.forget("alice")
        #expect(coalescer.lastAnnounced("alice") == nil)
        #expect(coalescer.tick(now: at(2_000)).isEmpty, "alice's held away is gone with her")
        #expect(coalescer.note("alice", online, now: at(2_100)) == online, "as if never announced")
        #expect(coalescer.note("bob", online, now: at(2_100)) == nil, "bob is not forgotten")
    }


    @Test("E2: the thread title shows online, away, or last seen at a local HH:MM")
    func presenceTitle() {
        #expect(PresenceText.title(PresenceState(status: .online), utcOffsetSeconds: 0) == "online")
        #expect(PresenceText.title(PresenceState(status: .away), utcOffsetSeconds: 0) == "away")
        #expect(PresenceText.title(PresenceState(status: .offline), utcOffsetSeconds: 0) == "offline")
        // 2026-01-01 09:05:30 UTC.
        let lastSeen: Int64 = 1_767_258_330_000
        #expect(PresenceText.title(PresenceState(status: .offline, lastSeen: lastSeen), utcOffsetSeconds: 0) == "last seen 09:05")
        #expect(PresenceText.title(PresenceState(status: .offline, lastSeen: lastSeen), utcOffsetSeconds: 5 * 3600 + 1800) == "last seen 14:35")
        #expect(PresenceText.title(PresenceState(status: .offline, lastSeen: lastSeen), utcOffsetSeconds: -10 * 3600) == "last seen 23:05")
    }
}
