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
        let r1 = typing.start("bob", in: "c1", now: at(0))
        #expect(r1)
        let r2 = typing.start("bob", in: "c1", now: at(4_000))
        #expect(!r2, "a refresh is not a change")
        let r3 = typing.start("carol", in: "c1", now: at(5_000))
        #expect(r3)
        #expect(typing.users(in: "c1") == ["bob", "carol"])
        #expect(typing.nextDeadline == at(10_000))
        let r4 = typing.tick(now: at(9_999))
        #expect(r4.isEmpty)
        let r5 = typing.tick(now: at(10_000))
        #expect(r5 == ["c1"])
        #expect(typing.users(in: "c1") == ["carol"])
        let r6 = typing.stop("carol", in: "c1")
        #expect(r6)
        let r7 = typing.stop("carol", in: "c1")
        #expect(!r7)
        #expect(typing.users(in: "c1").isEmpty && typing.nextDeadline == nil)
    }

    @Test("E1: the composer reports a start, refreshes no more than every 3 s, stops after 5 s idle, on send or on leaving")
    func reporter() {
        var reporter = TypingReporter()
        let r8 = reporter.keystroke(in: "c1", now: at(0))
        #expect(r8 == [.start("c1")])
        let r9 = reporter.keystroke(in: "c1", now: at(2_999))
        #expect(r9 == [])
        let r10 = reporter.keystroke(in: "c1", now: at(3_000))
        #expect(r10 == [.start("c1")])
        #expect(reporter.nextDeadline == at(8_000))
        let r11 = reporter.tick(now: at(7_999))
        #expect(r11 == [])
        let r12 = reporter.tick(now: at(8_000))
        #expect(r12 == [.stop("c1")])
        let r13 = reporter.stop()
        #expect(r13 == [], "nothing standing")
        let r14 = reporter.keystroke(in: "c1", now: at(9_000))
        #expect(r14 == [.start("c1")])
        let r15 = reporter.keystroke(in: "c2", now: at(9_100))
        #expect(r15 == [.stop("c1"), .start("c2")])
        #expect(reporter.isReporting(in: "c2"))
        let r16 = reporter.stop()
        #expect(r16 == [.stop("c2")])
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
        let r17 = coalescer.note("alice", online, now: at(0))
        #expect(r17 == online)
        let r18 = coalescer.note("alice", online, now: at(100))
        #expect(r18 == nil, "no change")
        let r19 = coalescer.note("alice", away, now: at(1_000))
        #expect(r19 == nil, "held")
        let r20 = coalescer.note("alice", offline, now: at(1_500))
        #expect(r20 == nil, "held, replaced")
        #expect(coalescer.nextDeadline == at(2_000))
        let r21 = coalescer.tick(now: at(1_999))
        #expect(r21.isEmpty)
        let out = coalescer.tick(now: at(2_000))
        #expect(out.map(\.user) == ["alice"] && out.map(\.state) == [offline])
        let r22 = coalescer.note("alice", online, now: at(3_000))
        #expect(r22 == nil)
        let r23 = coalescer.note("alice", offline, now: at(3_500))
        #expect(r23 == nil, "back to what was announced: nothing held")
        let r24 = coalescer.tick(now: at(4_000))
        #expect(r24.isEmpty)
        let r25 = coalescer.note("bob", away, now: at(3_600))
        #expect(r25 == away, "users are independent")
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
