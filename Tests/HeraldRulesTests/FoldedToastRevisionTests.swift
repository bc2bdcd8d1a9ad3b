import HeraldRules
import PropertyBased
import Testing

/// M1 and M2 on a message toast that stands for several messages of its conversation (T5): the toast shows the newest
/// message's words and remembers the others', so an edit or unsend of an older one does the right thing.
@Suite("M1, M2: revisions of messages folded into one toast")
struct FoldedToastRevisionTests {
    private func message(_ id: String, _ text: String, edit: Int = 0, in conversation: String = "c1") -> ToastRequest {
        .message(conversation: conversation, senderName: "Carol", groupTitle: nil, text: text, isImage: false, messageId: id, editCount: edit)
    }

    /// Three messages of c1 folded into the visible toast t1 at 0 ms (it times out at 3,000 ms unless updated by a raise).
    private func foldedThree() -> ToastHarness {
        var harness = ToastHarness()
        harness.send(.raise(message("m1", "one")))
        harness.send(.raise(message("m2", "two")))
        harness.send(.raise(message("m3", "three")))
        return harness
    }

    @Test("M1: an edit of an older folded message changes nothing shown; once the newer one is unsent the toast shows the edited text (M2 fallback), timer running on")
    func olderEditShownAfterFallback() {
        var harness = foldedThree()
        #expect(harness.manager.visible?.text == "three" && harness.manager.visible?.count == 3)
        harness.advance(to: 1_000)
        #expect(harness.send(.revise(message("m2", "two, fixed", edit: 1))).isEmpty, "the toast shows m3: nothing visible changes")
        harness.advance(to: 2_000)
        let events = harness.send(.withdraw(message: "m3"))
        guard case .updated(let toast) = events.first, events.count == 1 else {
            Issue.record("expected one update, got \(events)")
            return
        }
        #expect(toast.id == "t1" && toast.text == "two, fixed" && toast.messageId == "m2")
        #expect(toast.count == 2, "it stands for m1 and m2 now")
        harness.advance(to: 3_000)
        #expect(harness.dismissals.map(\.reason) == [.timeout])
        #expect(harness.dismissals.map(\.at) == [3_000], "neither the edit nor the unsend restarted the timer")
    }

    @Test("M1: an edit of the message the toast shows after a fallback updates it in place")
    func editOfShownAfterFallback() {
        var harness = foldedThree()
        harness.send(.withdraw(message: "m3"))
        let events = harness.send(.revise(message("m2", "two, fixed", edit: 1)))
        #expect(events.count == 1)
        #expect(harness.manager.visible?.text == "two, fixed")
    }

    @Test("M2: unsending an older folded message keeps the toast (one fewer), unsending the last one left removes it")
    func unsendOlderKeepsToast() {
        var harness = foldedThree()
        let events = harness.send(.withdraw(message: "m1"))
        #expect(events.count == 1)
        #expect(harness.manager.visible?.id == "t1" && harness.manager.visible?.text == "three" && harness.manager.visible?.count == 2)
        harness.send(.withdraw(message: "m3"))
        #expect(harness.manager.visible?.text == "two" && harness.manager.visible?.count == 1)
        harness.send(.withdraw(message: "m2"))
        #expect(harness.manager.visible == nil)
        #expect(harness.dismissals.map(\.reason) == [.withdrawn])
        #expect(harness.send(.withdraw(message: "m2")).isEmpty, "a second unsend finds nothing")
    }

    @Test("M2: the same holds for a queued toast: an older message's unsend keeps it in its place")
    func unsendInQueuedToast() {
        var harness = ToastHarness()
        harness.send(.raise(message("m0", "other", in: "c0")))
        harness.send(.raise(message("m1", "one")))
        harness.send(.raise(message("m2", "two")))
        harness.send(.withdraw(message: "m1"))
        #expect(harness.manager.queuedToasts.map(\.text) == ["two"] && harness.manager.queuedToasts.first?.count == 1)
        harness.send(.withdraw(message: "m2"))
        #expect(harness.manager.queuedToasts.isEmpty)
    }

    @Test("M1: an older edit arriving after a newer one (a retry, a replay) does not apply again; the same edit twice changes nothing")
    func staleEditIgnored() {
        var harness = foldedThree()
        #expect(harness.send(.revise(message("m3", "three v2", edit: 2))).count == 1)
        #expect(harness.send(.revise(message("m3", "three v1", edit: 1))).isEmpty)
        #expect(harness.send(.revise(message("m3", "three v2", edit: 2))).isEmpty)
        #expect(harness.manager.visible?.text == "three v2")
        // The same for a folded one: its late older edit is not what a fallback shows.
        harness.send(.revise(message("m2", "two v3", edit: 3)))
        harness.send(.revise(message("m2", "two v1", edit: 1)))
        harness.send(.withdraw(message: "m3"))
        #expect(harness.manager.visible?.text == "two v3")
    }

    @Test("M1: the rule's order of edits: higher is newer, equal the same, lower older; unknown numbers count as newer")
    func editOrder() {
        #expect(MessageRevisionRules.order(ofEdit: 2, shown: 1) == .newer)
        #expect(MessageRevisionRules.order(ofEdit: 1, shown: 1) == .same)
        #expect(MessageRevisionRules.order(ofEdit: 1, shown: 2) == .older)
        #expect(MessageRevisionRules.order(ofEdit: nil, shown: 2) == .newer)
        #expect(MessageRevisionRules.order(ofEdit: 1, shown: nil) == .newer)
    }

    /// Random raises, edits (delivered in any order) and unsends of messages of one conversation against a model: the
    /// toast of c1 always shows the newest edit of the newest message not unsent, stands for the messages not unsent,
    /// is gone once all are unsent, and revisions never move its timer.
    @Test("M1, M2 property: a folded toast always shows the newest edit of its newest message still there")
    func foldedToastMatchesModel() async {
        let steps = zip(Gen.int(in: 0...3), Gen.int(in: 0...5), Gen.int(in: 1...5)).array(of: 1...40)
        await propertyCheck(count: 300, input: steps) { steps in
            // Long toasts, so nothing times out: the property is about revisions, not time.
            var harness = ToastHarness(configuration: .init(defaultDuration: .seconds(10)))
            var raised: [Int] = []  // message numbers raised, oldest first
            var unsent: Set<Int> = []
            var edits: [Int: (count: Int, text: String)] = [:]  // newest edit applied per message
            var deadline: Instant?
            for (operation, target, edit) in steps {
                switch operation {
                case 0 where raised.count < 6 && !(harness.manager.visible == nil && !raised.isEmpty):
                    let number = raised.count
                    raised.append(number)
                    harness.send(.raise(message("m\(number)", "text \(number)")))
                    deadline = harness.manager.nextDeadline  // a raise coalesced into the visible toast restarts its timer (T5)
                    continue
                case 1 where !raised.isEmpty, 2 where !raised.isEmpty:
                    let number = raised[target % raised.count]
                    guard !unsent.contains(number) else { continue }
                    let text = "text \(number) v\(edit)"
                    harness.send(.revise(message("m\(number)", text, edit: edit)))
                    if edit > (edits[number]?.count ?? 0) { edits[number] = (edit, text) }
                case 3 where !raised.isEmpty:
                    let number = raised[target % raised.count]
                    unsent.insert(number)
                    harness.send(.withdraw(message: "m\(number)"))
                default:
                    continue
                }
                let left = raised.filter { !unsent.contains($0) }
                guard let newest = left.last else {
                    #expect(harness.manager.visible == nil, "every message unsent: no toast")
                    continue
                }
                let toast = harness.manager.visible
                #expect(toast?.messageId == "m\(newest)")
                #expect(toast?.text == edits[newest]?.text ?? "text \(newest)")
                #expect(toast?.count == left.count)
                #expect(harness.manager.nextDeadline == deadline, "edits and unsends never restart the timer")
            }
        }
    }
}
