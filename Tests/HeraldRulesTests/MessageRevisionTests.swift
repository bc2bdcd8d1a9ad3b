import HeraldRules
import Testing

/// M1 and M2 as pure rules: who may change a message and until when, and what an edit or unsend does to the toasts.
@Suite("M: messages changed after sending")
struct MessageRevisionTests {
    static let minute: Int64 = 60_000

    func edit(
        by editor: String = "alice", isText: Bool = true, isUnsent: Bool = false, current: String = "old", to text: String = "new",
        count: Int = 0, after elapsed: Int64 = 0
    ) -> MessageRevisionRules.EditDecision {
        MessageRevisionRules.edit(
            editor: editor, sender: "alice", isText: isText, isUnsent: isUnsent, currentText: current, text: text, editCount: count,
            sentAt: 1_000, now: 1_000 + elapsed)
    }

    @Test("M1: the sender may edit a text message up to 5 times within 15 minutes")
    func editAllowed() {
        #expect(edit() == .apply)
        #expect(edit(count: 4, after: 15 * Self.minute) == .apply, "the fifth edit at the last millisecond")
        #expect(edit(count: 5) == .refuse(.tooManyEdits(limit: 5)), "no sixth edit")
        #expect(edit(after: 15 * Self.minute + 1) == .refuse(.tooLate(window: 15 * Self.minute)))
    }

    @Test("M1: only the sender, only text, never an unsent message")
    func editRefused() {
        #expect(edit(by: "bob") == .refuse(.notSender))
        #expect(edit(isText: false) == .refuse(.notText))
        #expect(edit(isUnsent: true) == .refuse(.unsent))
        #expect(edit(by: "bob", current: "new") == .refuse(.notSender), "a stranger learns nothing from an identical text")
    }

    @Test("M1: an edit to the text the message already has is no change, even late or past the limit (a retry)")
    func editRetry() {
        #expect(edit(current: "new", to: "new") == .unchanged)
        #expect(edit(current: "new", to: "new", count: 5, after: 20 * Self.minute) == .unchanged)
    }

    @Test("M1: the limits are the server's to configure")
    func editConfigured() {
        let limits = MessageRevisionRules.Limits(editWindowMilliseconds: 0, maxEdits: 1, unsendWindowMilliseconds: 0)
        let decide = { (elapsed: Int64, count: Int) in
            MessageRevisionRules.edit(
                editor: "a", sender: "a", isText: true, isUnsent: false, currentText: "x", text: "y", editCount: count, sentAt: 5, now: 5 + elapsed,
                limits: limits)
        }
        #expect(decide(0, 0) == .apply)
        #expect(decide(1, 0) == .refuse(.tooLate(window: 0)))
        #expect(decide(0, 1) == .refuse(.tooManyEdits(limit: 1)))
    }

    @Test("M2: the sender may unsend within 2 minutes; a second unsend is no change")
    func unsend() {
        func decide(_ requester: String = "alice", unsent: Bool = false, after elapsed: Int64 = 0) -> MessageRevisionRules.UnsendDecision {
            MessageRevisionRules.unsend(requester: requester, sender: "alice", isUnsent: unsent, sentAt: 0, now: elapsed)
        }
        #expect(decide() == .apply)
        #expect(decide(after: 2 * Self.minute) == .apply)
        #expect(decide(after: 2 * Self.minute + 1) == .refuse(.tooLate(window: 2 * Self.minute)))
        #expect(decide("bob") == .refuse(.notSender))
        #expect(decide(unsent: true, after: 10 * Self.minute) == .unchanged)
        #expect(decide("bob", unsent: true) == .refuse(.notSender))
    }

    // MARK: - Toasts

    func toast(_ conversation: String, message: String, text: String) -> ToastRequest {
        .message(conversation: conversation, senderName: "Carol", groupTitle: nil, text: text, isImage: false, messageId: message)
    }

    @Test("M1, T5: an edit updates the visible toast in place and does not restart its timer")
    func reviseVisible() {
        var harness = ToastHarness()
        harness.send(.raise(toast("c1", message: "m1", text: "first")))
        harness.advance(to: 2_000)
        let events = harness.send(.revise(toast("c1", message: "m1", text: "first, fixed")))
        #expect(events.count == 1)
        guard case .updated(let updated) = events.first else {
            Issue.record("expected an update, got \(events)")
            return
        }
        #expect(updated.id == "t1")
        #expect(updated.text == "first, fixed")
        #expect(updated.count == 1, "an edit is no new message")
        harness.advance(to: 3_000)
        #expect(harness.dismissals.map(\.reason) == [.timeout])
        #expect(harness.dismissals.map(\.at) == [3_000], "the timer kept running from the first appearance")
        #expect(harness.appearances.count == 1)
    }

    @Test("M1, T5: an edit updates a queued toast where it waits; a toast of another message is left alone")
    func reviseQueued() {
        var harness = ToastHarness()
        harness.send(.raise(toast("c1", message: "m1", text: "visible")))
        harness.send(.raise(toast("c2", message: "m2", text: "queued")))
        harness.send(.raise(toast("c3", message: "m3", text: "behind")))
        harness.send(.revise(toast("c2", message: "m2", text: "queued, fixed")))
        #expect(harness.manager.queuedToasts.map(\.text) == ["queued, fixed", "behind"])
        #expect(harness.manager.queuedToasts.map(\.id) == ["t2", "t3"])
        #expect(harness.send(.revise(toast("c9", message: "m9", text: "nobody"))).isEmpty)
        // A toast that coalesced a newer message shows that one: the older message's edit does not touch it.
        harness.send(.raise(toast("c3", message: "m4", text: "newer in c3")))
        #expect(harness.send(.revise(toast("c3", message: "m3", text: "old one fixed"))).isEmpty)
        #expect(harness.manager.queuedToasts.last?.text == "newer in c3")
    }

    @Test("M2: an unsend removes the visible or queued toast of that message, and the next follows under T3")
    func withdraw() {
        var harness = ToastHarness()
        harness.send(.raise(toast("c1", message: "m1", text: "one")))
        harness.send(.raise(toast("c2", message: "m2", text: "two")))
        harness.send(.raise(toast("c3", message: "m3", text: "three")))
        harness.send(.withdraw(message: "m2"))
        #expect(harness.manager.queuedToasts.map(\.text) == ["three"])
        harness.advance(to: 100)
        harness.send(.withdraw(message: "m1"))
        #expect(harness.manager.visible == nil)
        #expect(harness.dismissals.map(\.reason) == [.withdrawn, .withdrawn])
        harness.advance(to: 800)
        #expect(harness.manager.visible?.text == "three", "T3: 800 ms after the withdrawn toast appeared")
        #expect(harness.send(.withdraw(message: "m1")).isEmpty)
    }
}
