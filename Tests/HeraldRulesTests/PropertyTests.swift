import HeraldRules
import PropertyBased
import Testing

/// One random step: an operation selector and two operands, decoded by each property below.
/// Plain integers keep the generator simple and let PropertyBased shrink failing runs.
private let steps = zip(Gen.int(in: 0...9), Gen.int(in: 0...99), Gen.int(in: 0...99)).array(of: 0...80)

private let conversations = ["c0", "c1", "c2", "c3"]
private let scenes: [Scene] = [.list, .thread("c0"), .thread("c1"), .thread("c2"), .tab("settings"), .notifications, .background, .list]

@Suite("Properties: random interleavings never break the rules")
struct PropertyTests {
    @Test("T1/T3/T4/T8: random toasts, taps, scene changes and clock steps")
    func toastQueueInvariants() async {
        await propertyCheck(count: 300, input: steps) { steps in
            var harness = ToastHarness()
            var replay = ToastEventReplay()
            var scene = Scene.list
            for (operation, a, b) in steps {
                let logStart = harness.log.count
                switch operation {
                case 0, 1:
                    harness.send(.raise(messageToast(conversations[a % 4], text: "x\(b)")))
                case 2:
                    let priority = ToastPriority(rawValue: a % 3) ?? .normal
                    let key: String? = b % 3 == 0 ? "k\(a % 2)" : nil
                    let about: String? = b % 5 == 0 ? conversations[b % 4] : nil
                    let request = ToastRequest(kind: .warning, title: "t", text: "x\(b)", conversation: about, priority: priority, dedupeKey: key)
                    harness.send(.raise(request))
                case 3: harness.send(.tap)
                case 4: harness.send(.swipe)
                case 5: harness.send(.triggerAction)
                case 6:
                    scene = scenes[a % scenes.count]
                    harness.send(.sceneChanged(scene))
                default:
                    harness.advance(to: harness.now.milliseconds + Int64(b * 50))
                }
                replay.consume(harness.log[logStart...].map(\.event))
                #expect(replay.visible == harness.manager.visible?.id, "events and state disagree on the visible toast")
                checkState(harness.manager, scene: scene, now: harness.now)
            }
            checkSpacing(harness.log)
        }
    }

    @Test("U1/U2/U3/S1-S7: a device's unread counts always match the messages from others never visible")
    func deviceModel() async {
        await propertyCheck(count: 300, input: steps) { steps in
            var device = DeviceSimulation()
            for (operation, a, b) in steps {
                device.apply(operation: operation, a, b)
                device.check()
            }
        }
    }

    @Test("U5/U7: random arrivals, acks, server updates and reloads never give a negative count or a badge off the sum")
    func ledgerInvariants() async {
        await propertyCheck(count: 300, input: steps) { steps in
            var ledger = UnreadLedger()
            for (operation, a, b) in steps {
                let conversation = conversations[a % 3]
                let sequencesBefore = ledger.sequences
                switch operation {
                case 0, 1, 2:
                    _ = ledger.handle(.arrived(ArrivedMessage(
                        conversation: conversation, message: "m\(b % 20)", isFromMe: a % 5 == 0, isRead: a % 7 == 0,
                        sequence: b % 2 == 0 ? Int64(a + b) : nil)))
                case 3, 4:
                    _ = ledger.handle(.visible(conversation: conversation, messages: (0..<(b % 6)).map { "m\((a + $0) % 20)" }))
                case 5, 6:
                    _ = ledger.handle(.serverUpdate(UnreadUpdate(
                        conversation: conversation, unread: b % 12, readMessages: (0..<(a % 4)).map { "m\((b + $0) % 20)" },
                        sequence: Int64(a + b))))
                case 7:
                    _ = ledger.handle(.reload(
                        [UnreadUpdate(
                            conversation: conversation, unread: b % 5, unreadMessages: (0..<(b % 5)).map { "m\($0)" },
                            sequence: Int64(a + b))],
                        sequence: Int64(a + b)))
                default:
                    _ = ledger.handle(.serverUpdate(UnreadUpdate(conversation: conversation, unread: -b, sequence: Int64(a))))
                }
                #expect(ledger.unreadCounts.values.allSatisfy { $0 >= 0 })
                #expect(ledger.badge == ledger.unreadCounts.values.reduce(0, +))
                #expect(ledger.badgeText == BadgeText.text(for: ledger.badge))
                for (key, sequence) in sequencesBefore {
                    #expect((ledger.sequences[key] ?? .min) >= sequence, "U7: sequence of \(key) went back")
                }
            }
        }
    }

    @Test("B2/B4: random bell traffic keeps 100 newest-first items and an unread count over them")
    func bellInvariants() async {
        await propertyCheck(count: 200, input: zip(Gen.int(in: 0...9), Gen.int(in: 0...999), Gen.int(in: 0...99)).array(of: 0...200)) { steps in
            var bell = BellLedger()
            var sequence: Int64 = 0
            for (operation, a, b) in steps {
                sequence += 1
                let before = bell.unread
                let events: [BellLedger.Event]
                switch operation {
                case 0...5:
                    events = bell.handle(.received(
                        BellItem(id: "n\(a)", kind: BellKind.allCases[b % BellKind.allCases.count], text: "x", read: b % 4 == 0, createdAt: Int64(a)),
                        sequence: b % 9 == 0 ? sequence - 2 : sequence))
                case 6: events = bell.handle(.markRead("n\(a)"))
                case 7: events = bell.handle(.serverRead(["n\(a)", "n\(b)"], sequence: sequence))
                case 8: events = bell.handle(.markAllRead)
                default: events = bell.handle(.serverReadAll(sequence: sequence))
                }
                #expect(bell.items.count <= BellLedger.capacity)
                #expect(bell.unread == bell.items.filter { !$0.read }.count)
                #expect(zip(bell.items, bell.items.dropFirst()).allSatisfy { $0.createdAt >= $1.createdAt })
                #expect(Set(bell.items.map(\.id)).count == bell.items.count)
                for case .changed(let unread, let text, let pulse) in events {
                    #expect(unread == bell.unread)
                    #expect(text == BadgeText.text(for: unread))
                    #expect(pulse == (unread > before))
                }
            }
        }
    }
}

// MARK: - Toast checks

/// Replays the event stream as a presenter would: a toast is shown only when none is visible (T1), and a
/// toast that has been shown can only leave as the visible one (never from the queue, never twice).
private struct ToastEventReplay {
    var visible: String?
    var shown: Set<String> = []
    var dismissed: Set<String> = []

    mutating func consume(_ events: [ToastEvent]) {
        for event in events {
            switch event {
            case .shown(let toast):
                #expect(visible == nil, "T1: \(toast.id) shown while \(visible ?? "") is visible")
                #expect(!shown.contains(toast.id) && !dismissed.contains(toast.id), "\(toast.id) shown twice or after dismissal")
                visible = toast.id
                shown.insert(toast.id)
            case .dismissed(let id, _):
                #expect(!dismissed.contains(id), "\(id) dismissed twice")
                if shown.contains(id) { #expect(id == visible, "\(id) dismissed while not visible") }
                if id == visible { visible = nil }
                dismissed.insert(id)
            case .updated(let toast):
                #expect(!dismissed.contains(toast.id), "\(toast.id) updated after dismissal")
            case .openURL, .actionTriggered:
                break
            }
        }
    }
}

private func checkState(_ manager: ToastManager, scene: Scene, now: Instant) {
    #expect(manager.queuedToasts.count <= 5, "T4")
    let all = (manager.visible.map { [$0] } ?? []) + manager.queuedToasts
    #expect(Set(all.map(\.id)).count == all.count, "one toast, one place")
    if let viewed = scene.conversation {
        #expect(all.allSatisfy { $0.conversation != viewed }, "T8: a toast about the viewed \(viewed)")
    }
    #expect(manager.visibleRemaining(now: now).map { $0 <= .seconds(10) && $0 >= .zero } ?? true, "T2")
    if !scene.isForeground { #expect(manager.nextDeadline == nil, "T7: a timer runs in the background") }
}

/// T3: every non-critical toast appears at least 800 ms after the previous appearance.
private func checkSpacing(_ log: [(at: Int64, event: ToastEvent)]) {
    var previous: Int64?
    for entry in log {
        guard case .shown(let toast) = entry.event else { continue }
        if let previous, toast.priority != .critical {
            #expect(entry.at - previous >= 800, "T3: \(toast.id) appeared \(entry.at - previous) ms after the previous")
        }
        previous = entry.at
    }
}

// MARK: - Device model

/// One device wired the way the client wires HeraldRules: SceneRules decides, the viewport reports
/// what became visible, the ledger counts, the toast manager shows. A plain model of "messages from
/// others that were never visible" is the oracle for the ledger.
private struct DeviceSimulation {
    var scene = Scene.list
    var sceneLeft = Scene.list
    var ledger = UnreadLedger()
    var toasts = ToastHarness()
    var viewport: ThreadViewport?
    var messages: [String: [String]] = [:]
    var fromOthers: Set<String> = []
    var everVisible: Set<String> = []
    var counter = 0

    mutating func apply(operation: Int, _ a: Int, _ b: Int) {
        let conversation = conversations[a % 3]
        switch operation {
        case 0, 1, 2: arrive(in: conversation, fromMe: false)
        case 3: arrive(in: conversation, fromMe: true)
        case 4:
            guard scene.isForeground else { return }
            enter(.thread(conversation))
        case 5:
            guard scene.isForeground else { return }
            enter([Scene.list, .tab("settings"), .notifications][b % 3])
        case 6:
            if scene.isForeground {
                sceneLeft = scene
                scene = .background
                toasts.send(.sceneChanged(.background))
                if var open = viewport { _ = open.setShown(false); viewport = open }
            } else {
                scene = sceneLeft
                toasts.send(.sceneChanged(scene))
                if var open = viewport {
                    let change = open.setShown(true)
                    viewport = open
                    acknowledge(change.becameVisible, in: open.conversation)
                }
            }
        case 7:
            guard var open = viewport else { return }
            let change: ViewportChange
            switch b % 3 {
            case 0: change = open.scrollUp(by: a % 8)
            case 1: change = open.scrollDown(by: a % 8)
            default: change = open.jumpToBottom()
            }
            viewport = open
            acknowledge(change.becameVisible, in: open.conversation)
        default:
            toasts.advance(to: toasts.now.milliseconds + Int64(b * 40))
        }
    }

    mutating func arrive(in conversation: String, fromMe: Bool) {
        counter += 1
        let id = "m\(counter)"
        messages[conversation, default: []].append(id)
        if !fromMe { fromOthers.insert(id) }
        let outcome = SceneRules.arrival(
            of: ArrivingMessage(conversation: conversation, sender: fromMe ? "me" : "bob", isFromMe: fromMe),
            scene: scene, isForeground: scene.isForeground, viewportAtBottom: viewport?.isAtBottom ?? false)
        _ = ledger.handle(.arrived(ArrivedMessage(conversation: conversation, message: id, isFromMe: fromMe)))
        var becameVisible: [String] = []
        if var open = viewport, open.conversation == conversation {
            becameVisible = open.append(id).becameVisible
            viewport = open
            acknowledge(becameVisible, in: conversation)
        }
        // SceneRules and the viewport agree on whether m is visible at once (S2, S3).
        #expect(outcome.isVisibleAtOnce == becameVisible.contains(id), "S2/S3 disagree for \(id) in \(scene)")
        #expect(outcome.countsAsUnread == (!fromMe && !becameVisible.contains(id)))
        switch outcome.presentation {
        case .toast: toasts.send(.raise(messageToast(conversation, text: id)))
        case .inline: #expect(scene == .thread(conversation))
        case .push: #expect(!scene.isForeground)
        case .nothing: #expect(fromMe)
        }
    }

    mutating func enter(_ newScene: Scene) {
        scene = newScene
        toasts.send(.sceneChanged(newScene))
        if let conversation = newScene.conversation {
            let (open, change) = ThreadViewport.open(conversation: conversation, messageIDs: messages[conversation] ?? [], size: 4)
            viewport = open
            acknowledge(change.becameVisible, in: conversation)
        } else {
            viewport = nil
        }
    }

    mutating func acknowledge(_ ids: [String], in conversation: String) {
        everVisible.formUnion(ids)
        let events = ledger.handle(.visible(conversation: conversation, messages: ids))
        for case .acknowledge(_, let acked) in events {
            #expect(Set(acked).isSubset(of: Set(ids)), "U3: acked something that did not become visible")
        }
    }

    func check() {
        for conversation in conversations {
            let expected = (messages[conversation] ?? []).filter { fromOthers.contains($0) && !everVisible.contains($0) }.count
            #expect(ledger.unread(in: conversation) == expected, "U1/U3 for \(conversation)")
        }
        #expect(ledger.badge == ledger.unreadCounts.values.reduce(0, +))
        #expect(ledger.unreadCounts.values.allSatisfy { $0 >= 0 })
        if let viewed = scene.conversation {
            let shown = (toasts.manager.visible.map { [$0] } ?? []) + toasts.manager.queuedToasts
            #expect(shown.allSatisfy { $0.conversation != viewed }, "T8/S1: toast about the viewed conversation")
        }
    }
}
