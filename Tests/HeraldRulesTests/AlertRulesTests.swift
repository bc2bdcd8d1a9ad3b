import HeraldRules
import Testing

@Suite("N1-N4: mentions, mute, quiet hours and marked unread in the shared rules")
struct AlertRulesTests {
    private let everyone = ["alice", "bob", "carol", "d.dot"]

    @Test("N2: @id of a participant is a mention, in order and once; other @words are plain text")
    func mentions() {
        #expect(MentionParser.mentions(in: "@bob can you look? cc @carol.", participants: everyone) == ["bob", "carol"])
        #expect(MentionParser.mentions(in: "@carol @bob @carol", participants: everyone) == ["carol", "bob"])
        #expect(MentionParser.mentions(in: "hi @dave and @bobby", participants: everyone).isEmpty)
        #expect(MentionParser.mentions(in: "mail alice@bob or x@carol", participants: everyone).isEmpty)
        #expect(MentionParser.mentions(in: "thanks @d.dot.", participants: everyone) == ["d.dot"])
        #expect(MentionParser.mentions(in: "(@alice)", participants: everyone) == ["alice"])
        #expect(MentionParser.mentions(in: nil, participants: everyone).isEmpty)
        #expect(MentionParser.mentions(in: "@", participants: everyone).isEmpty)
        // Long texts (not small strings): a mention at the very end is found, none is found where there is no `@`.
        let long = String(repeating: "héllo wörld ", count: 100)
        #expect(MentionParser.mentions(in: long + "@carol", participants: everyone) == ["carol"])
        #expect(MentionParser.mentions(in: long + "carol", participants: everyone).isEmpty)
    }

    @Test("N1: a mute is in force until its end; nil is not muted; forever never ends")
    func muteWindow() {
        #expect(MuteRules.isMuted(until: 1_000, now: 999))
        #expect(!MuteRules.isMuted(until: 1_000, now: 1_000))
        #expect(!MuteRules.isMuted(until: nil, now: 0))
        #expect(MuteRules.isMuted(until: MuteRules.forever, now: Int64.max - 1))
    }

    @Test("N1, N2, N3: the push rule drops a muted conversation's push unless the recipient is mentioned; quiet hours keep it")
    func pushDecision() {
        let background = [PushCandidate(device: 1, isForeground: false, viewing: nil)]
        #expect(PushRules.decide(in: "c1", devices: background, alert: RecipientAlert(muted: true)) == .none)
        #expect(PushRules.decide(in: "c1", devices: background, alert: RecipientAlert(muted: true, mentioned: true)) == .unlessRead([1]))
        #expect(PushRules.decide(in: "c1", devices: background, alert: RecipientAlert(quiet: true)) == .unlessRead([1]))
        // P1 still wins over a mention: a device viewing c suppresses every push.
        let viewing = background + [PushCandidate(device: 2, isForeground: true, viewing: "c1")]
        #expect(PushRules.decide(in: "c1", devices: viewing, alert: RecipientAlert(mentioned: true)) == .none)
    }

    @Test("N1, N2: a muted conversation raises no toast, a mention an elevated one; N3: only normal toasts wait")
    func toastPriority() {
        #expect(AlertRules.messageToastPriority(for: .plain) == .normal)
        #expect(AlertRules.messageToastPriority(for: RecipientAlert(muted: true)) == nil)
        #expect(AlertRules.messageToastPriority(for: RecipientAlert(muted: true, mentioned: true)) == .elevated)
        #expect(AlertRules.waitsForQuietHours(.normal, quiet: true))
        #expect(!AlertRules.waitsForQuietHours(.elevated, quiet: true))
        #expect(!AlertRules.waitsForQuietHours(.critical, quiet: true))
        #expect(!AlertRules.waitsForQuietHours(.normal, quiet: false))
    }

    @Test("N4: a marked conversation counts one in the badge, or its unread count when higher; U1 otherwise")
    func badge() {
        #expect(AlertRules.messagesBadge(unread: ["c1": 0, "c2": 3], markedUnread: []) == 3)
        #expect(AlertRules.messagesBadge(unread: ["c1": 0, "c2": 3], markedUnread: ["c1"]) == 4)
        #expect(AlertRules.messagesBadge(unread: ["c1": 0, "c2": 3], markedUnread: ["c1", "c2"]) == 4)
    }

    @Test("N4: the ledger counts a mark in the badge and a visible message ends it with an ack of every visible id")
    func ledgerMark() {
        var ledger = UnreadLedger()
        _ = ledger.handle(.reload([UnreadUpdate(conversation: "c1", unread: 0, sequence: 5)], sequence: 5))
        let marked = ledger.handle(.marked(conversation: "c1", marked: true, sequence: 6))
        #expect(marked.contains(.badgeChanged(count: 1, text: "1")))
        // U7: an older change of the mark is ignored.
        #expect(ledger.handle(.marked(conversation: "c1", marked: false, sequence: 6)) == [.ignoredStale(conversation: "c1", sequence: 6)])
        let visible = ledger.handle(.visible(conversation: "c1", messages: ["m1"]))
        #expect(visible.first == .acknowledge(conversation: "c1", messages: ["m1"]))
        #expect(ledger.badge == 0)
    }

    @Test("N3: while quiet hours are on a normal toast waits and a critical one shows; it appears when they end")
    func quietToasts() {
        var toasts = ToastManager()
        _ = toasts.handle(.quietHours(true), now: Instant(milliseconds: 0))
        _ = toasts.raise(ToastRequest(kind: .info, title: "Bob", text: "hi"), now: Instant(milliseconds: 0))
        #expect(toasts.visible == nil)
        _ = toasts.raise(ToastRequest(kind: .error, title: "Down", text: "offline", priority: .critical), now: Instant(milliseconds: 10))
        #expect(toasts.visible?.title == "Down")
        _ = toasts.tick(now: Instant(milliseconds: 60_000))
        #expect(toasts.visible == nil)
        let shown = toasts.handle(.quietHours(false), now: Instant(milliseconds: 60_001))
        #expect(shown.contains { if case .shown(let toast) = $0 { toast.title == "Bob" } else { false } })
    }
}
