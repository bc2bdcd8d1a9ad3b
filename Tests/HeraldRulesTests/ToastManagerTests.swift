import HeraldRules
import Testing

@Suite("T: toast manager on virtual time")
struct ToastManagerTests {
    @Test("T1: at most one toast is visible; the others wait in FIFO order")
    func t1OneVisibleFIFO() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("a")))
        harness.send(.raise(localToast("b")))
        harness.send(.raise(localToast("c")))
        #expect(harness.manager.visible?.text == "a")
        #expect(harness.manager.queuedToasts.map(\.text) == ["b", "c"])
        #expect(harness.appearances.map(\.id) == ["t1"])
        harness.advance(to: 20_000)
        #expect(harness.appearances.map(\.id) == ["t1", "t2", "t3"])
        #expect(harness.manager.visible == nil)
        #expect(harness.manager.nextDeadline == nil)
    }

    @Test("T2: a toast dismisses itself after 3 s by default; durations clamp to 1-10 s")
    func t2DurationDefaultAndClamp() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("default")))
        harness.advance(to: 2_999)
        #expect(harness.manager.visible != nil)
        harness.advance(to: 3_000)
        #expect(harness.dismissals.map(\.reason) == [.timeout])
        #expect(harness.dismissals.map(\.at) == [3_000])

        var clamped = ToastHarness()
        clamped.send(.raise(localToast("short", duration: 200)))
        #expect(clamped.manager.visible?.duration == 1_000)
        clamped.advance(to: 1_000)
        clamped.send(.raise(localToast("long", duration: .seconds(60))))
        #expect(clamped.manager.visible?.duration == .seconds(10))
        clamped.advance(to: 11_000)
        #expect(clamped.dismissals.map(\.at) == [1_000, 11_000])

        var configured = ToastHarness(configuration: .init(defaultDuration: .seconds(5)))
        configured.send(.raise(localToast("five")))
        configured.advance(to: 10_000)
        #expect(configured.dismissals.map(\.at) == [5_000])

        var outOfRange = ToastHarness(configuration: .init(defaultDuration: .seconds(30)))
        outOfRange.send(.raise(localToast("clamped default")))
        #expect(outOfRange.manager.visible?.duration == .seconds(10))
    }

    @Test("T3: three toasts swiped as soon as they show appear at 0, 0.8 and 1.6 s")
    func t3SpacingWhenSwiped() {
        var harness = ToastHarness()
        harness.swipeOnShow = true
        harness.send(.raise(localToast("a")))
        harness.send(.raise(localToast("b")))
        harness.send(.raise(localToast("c")))
        harness.advance(to: 10_000)
        #expect(harness.appearances.map(\.at) == [0, 800, 1_600])
        #expect(harness.dismissals.map(\.reason) == [.swipe, .swipe, .swipe])
    }

    @Test("T3: three toasts left alone appear at 0, 3 and 6 s")
    func t3LeftAlone() {
        var harness = ToastHarness()
        for text in ["a", "b", "c"] { harness.send(.raise(localToast(text))) }
        harness.advance(to: 20_000)
        #expect(harness.appearances.map(\.at) == [0, 3_000, 6_000])
        #expect(harness.dismissals.map(\.at) == [3_000, 6_000, 9_000])
    }

    @Test("T3: a late host tick gives the same events as punctual ones")
    func t3LateTickCatchesUp() {
        var manager = ToastManager()
        _ = manager.raise(localToast("a"), now: .zero)
        _ = manager.raise(localToast("b"), now: .zero)
        _ = manager.raise(localToast("c"), now: .zero)
        let events = manager.tick(now: Instant(milliseconds: 7_000))
        #expect(events.map(\.summary) == ["dismissed t1 timeout", "shown t2", "dismissed t2 timeout", "shown t3"])
        #expect(manager.visible?.id == "t3")
        #expect(manager.nextDeadline == Instant(milliseconds: 9_000))
    }

    @Test("T3: a toast following a dismissed one waits until 800 ms after the previous appeared")
    func t3FollowerWaitsForSpacing() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("a")))
        harness.advance(to: 300)
        harness.send(.swipe)
        harness.send(.raise(localToast("b")))
        #expect(harness.manager.visible == nil)
        #expect(harness.manager.nextDeadline == Instant(milliseconds: 800))
        harness.advance(to: 2_000)
        harness.send(.swipe)
        harness.advance(to: 3_000)
        harness.send(.raise(localToast("c")))
        #expect(harness.appearances.map(\.at) == [0, 800, 3_000])
    }

    @Test("T4: a sixth queued toast drops the oldest queued one with reason overflow")
    func t4Overflow() {
        var harness = ToastHarness()
        for index in 1...6 { harness.send(.raise(localToast("n\(index)"))) }
        #expect(harness.manager.queuedToasts.count == 5)
        #expect(harness.dismissals.isEmpty)
        harness.send(.raise(localToast("n7")))
        #expect(harness.dismissals.map(\.id) == ["t2"])
        #expect(harness.dismissals.map(\.reason) == [.overflow])
        #expect(harness.manager.visible?.id == "t1")
        #expect(harness.manager.queuedToasts.map(\.id) == ["t3", "t4", "t5", "t6", "t7"])
    }

    @Test("T4: overflow drops the oldest of the lowest priority, never an elevated toast for a normal one")
    func t4OverflowKeepsHigherPriority() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("visible")))
        harness.send(.raise(localToast("e1", priority: .elevated)))
        for index in 1...4 { harness.send(.raise(localToast("n\(index)"))) }
        harness.send(.raise(localToast("n5")))
        #expect(harness.dismissals.map(\.id) == ["t3"])
        #expect(harness.manager.queuedToasts.first?.text == "e1")
    }

    @Test("T5: message toasts coalesce by conversation with the latest preview and a count")
    func t5CoalesceMessages() {
        var harness = ToastHarness()
        harness.send(.raise(messageToast("c2", text: "first")))
        harness.send(.raise(messageToast("c3", from: "Dave", text: "other")))
        harness.advance(to: 1_000)
        harness.send(.raise(messageToast("c2", text: "second")))
        harness.send(.raise(messageToast("c3", from: "Dave", text: "again")))
        #expect(harness.manager.visible?.count == 2)
        #expect(harness.manager.visible?.text == "second")
        #expect(harness.manager.visible?.id == "t1")
        #expect(harness.manager.queuedToasts.map(\.count) == [2])
        #expect(harness.manager.queuedToasts.map(\.text) == ["again"])
        let updates = harness.log.filter { if case .updated = $0.event { true } else { false } }
        #expect(updates.count == 2)
        // Updating the visible toast at 1.0 s restarted its 3 s timer.
        #expect(harness.manager.nextDeadline == Instant(milliseconds: 4_000))
        harness.advance(to: 3_999)
        #expect(harness.dismissals.isEmpty)
        harness.advance(to: 4_000)
        #expect(harness.dismissals.map(\.at) == [4_000])
    }

    @Test("T5: local toasts with the same --key coalesce; different keys do not")
    func t5CoalesceByKey() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("saved", key: "save")))
        harness.send(.raise(localToast("saved again", key: "save")))
        harness.send(.raise(localToast("other", key: "other")))
        harness.send(.raise(localToast("no key")))
        harness.send(.raise(localToast("no key")))
        #expect(harness.manager.visible?.count == 2)
        #expect(harness.manager.queuedToasts.count == 3)
    }

    @Test("T6: a critical toast pre-empts a visible normal one within 120 ms and shows at once")
    func t6CriticalPreempts() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("normal")))
        harness.send(.raise(localToast("queued")))
        harness.advance(to: 500)
        harness.send(.raise(localToast("critical", kind: .error, priority: .critical)))
        let critical = harness.appearances.last
        #expect(critical?.id == "t3")
        #expect(harness.dismissals.map(\.reason) == [.replaced])
        if let critical, let dismissal = harness.dismissals.first {
            #expect(dismissal.at - 500 <= 120)
            #expect(critical.at - 500 <= 120)
        }
        #expect(harness.manager.queuedToasts.map(\.text) == ["queued"])
    }

    @Test("T6: T3 spacing does not hold a critical toast back")
    func t6CriticalIgnoresSpacing() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("a")))
        harness.advance(to: 100)
        harness.send(.swipe)
        harness.send(.raise(localToast("normal")))
        harness.send(.raise(localToast("urgent", priority: .critical)))
        #expect(harness.appearances.map(\.at) == [0, 100])
        #expect(harness.manager.visible?.text == "urgent")
        // The normal toast then waits for 800 ms after the critical one appeared, after it times out at 3.1 s.
        harness.advance(to: 10_000)
        #expect(harness.appearances.map(\.at) == [0, 100, 3_100])
    }

    @Test("T6: an elevated toast is queued ahead of normal ones, behind earlier elevated ones")
    func t6ElevatedJumpsQueue() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("visible")))
        harness.send(.raise(localToast("n1")))
        harness.send(.raise(localToast("e1", priority: .elevated)))
        harness.send(.raise(localToast("n2")))
        harness.send(.raise(localToast("e2", priority: .elevated)))
        #expect(harness.manager.queuedToasts.map(\.text) == ["e1", "e2", "n1", "n2"])
        #expect(harness.manager.visible?.text == "visible")
    }

    @Test("T7: backgrounding at 1.0 s of a 3 s toast and returning 10 s later leaves 2.0 s")
    func t7PauseResume() {
        var harness = ToastHarness()
        harness.send(.raise(localToast("a")))
        harness.advance(to: 1_000)
        harness.send(.sceneChanged(.background))
        #expect(harness.manager.nextDeadline == nil)
        harness.advance(to: 11_000)
        #expect(harness.dismissals.isEmpty)
        #expect(harness.manager.visibleRemaining(now: Instant(milliseconds: 11_000)) == .seconds(2))
        harness.send(.sceneChanged(.list))
        #expect(harness.manager.visibleRemaining(now: Instant(milliseconds: 11_000)) == .seconds(2))
        #expect(harness.manager.nextDeadline == Instant(milliseconds: 13_000))
        harness.advance(to: 20_000)
        #expect(harness.dismissals.map(\.at) == [13_000])
    }

    @Test("T7: toasts raised in the background are held by default and shown on return; message toasts are not")
    func t7HoldInBackground() {
        var harness = ToastHarness()
        harness.send(.sceneChanged(.background))
        harness.send(.raise(localToast("held")))
        harness.send(.raise(messageToast("c2")))
        #expect(harness.appearances.isEmpty)
        #expect(harness.manager.queuedToasts.map(\.text) == ["held"])
        harness.advance(to: 5_000)
        harness.send(.sceneChanged(.tab("settings")))
        #expect(harness.appearances.map(\.at) == [5_000])
        #expect(harness.manager.visible?.text == "held")
    }

    @Test("T7: with the drop policy toasts raised in the background are forgotten")
    func t7DropInBackground() {
        var harness = ToastHarness(configuration: .init(backgroundPolicy: .drop))
        harness.send(.sceneChanged(.background))
        harness.send(.raise(localToast("dropped")))
        harness.send(.sceneChanged(.list))
        harness.advance(to: 5_000)
        #expect(harness.appearances.isEmpty)
    }

    @Test("T8: entering thread(c) removes the visible and queued toasts about c with reason scene")
    func t8PurgeOnEnteringThread() {
        var harness = ToastHarness()
        harness.send(.raise(messageToast("c2")))
        harness.send(.raise(messageToast("c3")))
        harness.send(.raise(localToast("about c2", key: "k")))
        harness.advance(to: 100)
        harness.send(.sceneChanged(.thread("c2")))
        #expect(harness.dismissals.map(\.id) == ["t1"])
        #expect(harness.dismissals.map(\.reason) == [.scene])
        harness.send(.raise(messageToast("c2", text: "while viewing")))
        #expect(harness.manager.queuedToasts.allSatisfy { $0.conversation != "c2" })
        harness.advance(to: 800)
        #expect(harness.manager.visible?.conversation == "c3")
    }

    @Test("T9: tap dismisses first, then gives the deep link to follow")
    func t9Tap() {
        var harness = ToastHarness()
        harness.send(.raise(messageToast("c2")))
        let events = harness.send(.tap)
        #expect(events == [.dismissed(id: "t1", reason: .tap), .openURL("herald://conversation/c2")])
        #expect(harness.send(.tap).isEmpty)
    }

    @Test("T9: swipe dismisses; the one action dismisses and reports the action")
    func t9SwipeAndAction() {
        var harness = ToastHarness()
        let undo = ToastAction(title: "Undo", identifier: "undo")
        harness.send(.raise(localToast("deleted", action: undo)))
        let actionEvents = harness.send(.triggerAction)
        #expect(actionEvents == [.dismissed(id: "t1", reason: .action), .actionTriggered(toastID: "t1", action: undo)])
        harness.advance(to: 1_000)
        harness.send(.raise(localToast("plain")))
        #expect(harness.send(.triggerAction).isEmpty)
        #expect(harness.send(.swipe) == [.dismissed(id: "t2", reason: .swipe)])
    }

    @Test("T11: each kind maps to its haptic name")
    func t11Haptics() {
        #expect(ToastKind.success.hapticName == "success")
        #expect(ToastKind.error.hapticName == "error")
        #expect(ToastKind.warning.hapticName == "warning impact")
        #expect(ToastKind.info.hapticName == "light impact")
        #expect(ToastKind.custom(icon: "star", accent: "gold", haptic: "rigid impact").hapticName == "rigid impact")
        #expect(ToastKind.custom(icon: "star", accent: "gold", haptic: nil).hapticName == nil)
        #expect(["success", "error", "info", "warning"].compactMap(ToastKind.init(name:)).map(\.name) == ["success", "error", "info", "warning"])
        #expect(ToastKind(name: "custom") == nil)
        var harness = ToastHarness()
        harness.send(.raise(localToast("ok", kind: .success)))
        #expect(harness.manager.visible?.hapticName == "success")
    }
}

extension ToastEvent {
    /// A short readable form for comparing event sequences: "shown t2", "dismissed t1 timeout".
    var summary: String {
        switch self {
        case .shown(let toast): "shown \(toast.id)"
        case .updated(let toast): "updated \(toast.id)"
        case .dismissed(let id, let reason): "dismissed \(id) \(reason.rawValue)"
        case .openURL(let url): "open \(url)"
        case .actionTriggered(let id, let action): "action \(id) \(action.identifier)"
        }
    }
}
