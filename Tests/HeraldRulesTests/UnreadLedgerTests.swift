import HeraldRules
import Testing

@Suite("U: unread counts and the Messages badge")
struct UnreadLedgerTests {
    private func arrive(_ ledger: inout UnreadLedger, _ conversation: String, _ ids: [String], fromMe: Bool = false) {
        for id in ids { _ = ledger.handle(.arrived(ArrivedMessage(conversation: conversation, message: id, isFromMe: fromMe))) }
    }

    @Test("U1: unread(c) counts messages from others not read; the badge is the sum")
    func u1CountsAndSum() {
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", ["m1", "m2"])
        arrive(&ledger, "c1", ["m3"], fromMe: true)
        arrive(&ledger, "c2", ["m4", "m5", "m6"])
        _ = ledger.handle(.arrived(ArrivedMessage(conversation: "c2", message: "m7", isFromMe: false, isRead: true)))
        arrive(&ledger, "c1", ["m1"])  // the same message again counts once
        #expect(ledger.unread(in: "c1") == 2)
        #expect(ledger.unread(in: "c2") == 3)
        #expect(ledger.badge == 5)
        #expect(ledger.badgeText == "5")
    }

    @Test("U2: a message becomes read only by being visible, and the ack leaves out what is already read")
    func u2ReadByVisibility() {
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", ["m1", "m2"])
        arrive(&ledger, "c1", ["m3"], fromMe: true)
        #expect(ledger.unread(in: "c1") == 2)
        let events = ledger.handle(.visible(conversation: "c1", messages: ["m2", "m3"]))
        #expect(events == [
            .acknowledge(conversation: "c1", messages: ["m2"]),
            .unreadChanged(conversation: "c1", unread: 1),
            .badgeChanged(count: 1, text: "1"),
        ])
        #expect(ledger.isUnread("m1", in: "c1"))
        #expect(ledger.handle(.visible(conversation: "c1", messages: ["m2"])).isEmpty)
    }

    @Test("U3: ten unread, six visible: four stay unread")
    func u3Incremental() {
        var ledger = UnreadLedger()
        let ids = (1...10).map { "m\($0)" }
        arrive(&ledger, "c1", ids)
        #expect(ledger.unread(in: "c1") == 10)
        _ = ledger.handle(.visible(conversation: "c1", messages: Array(ids.prefix(6))))
        #expect(ledger.unread(in: "c1") == 4)
        #expect(ledger.badge == 4)
        _ = ledger.handle(.visible(conversation: "c1", messages: Array(ids.suffix(4))))
        #expect(ledger.unread(in: "c1") == 0)
        #expect(ledger.badgeText == "")
    }

    @Test("U4: a read on another device, sent by the server, updates this device's counts")
    func u4ServerUpdateFromOtherDevice() {
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", ["m1", "m2", "m3"])
        let events = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 1, readMessages: ["m1", "m2"], sequence: 10)))
        #expect(events == [.unreadChanged(conversation: "c1", unread: 1), .badgeChanged(count: 1, text: "1")])
        #expect(!ledger.isUnread("m1", in: "c1"))
        #expect(ledger.isUnread("m3", in: "c1"))
    }

    @Test("U4: a server count that predates this device's own ack does not bring read messages back")
    func u4PendingLocalReadsStayRead() {
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", ["m1", "m2", "m3"])
        _ = ledger.handle(.visible(conversation: "c1", messages: ["m1", "m2"]))
        #expect(ledger.unread(in: "c1") == 1)
        // A new message from bob, stamped before the server processed our ack: the server says 4 unread.
        _ = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 4, sequence: 11)))
        #expect(ledger.unread(in: "c1") == 2)
        // Then the server confirms our ack.
        _ = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 2, readMessages: ["m1", "m2"], sequence: 12)))
        #expect(ledger.unread(in: "c1") == 2)
    }

    @Test("U5: badge text is empty at 0, the number up to 99, then 99+")
    func u5BadgeText() {
        #expect(BadgeText.text(for: 0) == "")
        #expect(BadgeText.text(for: -3) == "")
        #expect(BadgeText.text(for: 1) == "1")
        #expect(BadgeText.text(for: 99) == "99")
        #expect(BadgeText.text(for: 100) == "99+")
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", (1...99).map { "m\($0)" })
        #expect(ledger.badgeText == "99")
        arrive(&ledger, "c2", ["x"])
        #expect(ledger.badgeText == "99+")
    }

    @Test("U7: an update older than the applied state is ignored; counts never go back")
    func u7StaleIgnored() {
        var ledger = UnreadLedger()
        _ = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 5, sequence: 20)))
        let stale = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 9, sequence: 19)))
        #expect(stale == [.ignoredStale(conversation: "c1", sequence: 19)])
        let same = ledger.handle(.serverUpdate(UnreadUpdate(conversation: "c1", unread: 9, sequence: 20)))
        #expect(same == [.ignoredStale(conversation: "c1", sequence: 20)])
        #expect(ledger.unread(in: "c1") == 5)
        // A message already counted by the state at 20 is not counted again when it arrives late.
        let late = ledger.handle(.arrived(ArrivedMessage(conversation: "c1", message: "m9", isFromMe: false, sequence: 18)))
        #expect(late == [.ignoredStale(conversation: "c1", sequence: 18)])
        #expect(ledger.unread(in: "c1") == 5)
        _ = ledger.handle(.arrived(ArrivedMessage(conversation: "c1", message: "m10", isFromMe: false, sequence: 21)))
        #expect(ledger.unread(in: "c1") == 6)
        #expect(ledger.sequences["c1"] == 21)
    }

    @Test("U7: a reload repairs drift: listed conversations take the server's counts, the rest drop to zero")
    func u7Reload() {
        var ledger = UnreadLedger()
        arrive(&ledger, "c1", ["m1", "m2"])
        arrive(&ledger, "c2", ["m3"])
        _ = ledger.handle(.visible(conversation: "c1", messages: ["m1"]))
        let snapshot = UnreadUpdate(conversation: "c1", unread: 3, unreadMessages: ["m2", "m4", "m5"], sequence: 30)
        let events = ledger.handle(.reload([snapshot], sequence: 30))
        #expect(ledger.unread(in: "c1") == 3)
        #expect(ledger.unread(in: "c2") == 0)
        #expect(ledger.badge == 3)
        #expect(events.contains(.badgeChanged(count: 3, text: "3")))
        #expect(ledger.isUnread("m5", in: "c1"))
        _ = ledger.handle(.visible(conversation: "c1", messages: ["m4", "m5"]))
        #expect(ledger.unread(in: "c1") == 1)
    }
}

@Suite("B: the bell feed and its badge")
struct BellLedgerTests {
    private func item(_ number: Int, kind: BellKind = .follow, read: Bool = false) -> BellItem {
        BellItem(id: "n\(number)", kind: kind, text: "event \(number)", read: read, createdAt: Int64(number))
    }

    @Test("B1: the bell kinds are follow, reaction, comment, mention, reminder, system; never message")
    func b1Kinds() {
        #expect(BellKind.allCases.map(\.rawValue) == ["follow", "reaction", "comment", "mention", "reminder", "system"])
        #expect(BellKind(rawValue: "message") == nil)
    }

    @Test("B2: the bell badge counts unread items with the U5 text and pulses only when it rises")
    func b2BadgeAndPulse() {
        var bell = BellLedger()
        #expect(bell.handle(.received(item(1), sequence: 1)) == [.changed(unread: 1, badgeText: "1", pulse: true)])
        #expect(bell.handle(.received(item(2, kind: .reaction), sequence: 2)) == [.changed(unread: 2, badgeText: "2", pulse: true)])
        #expect(bell.handle(.markRead("n1")) == [.changed(unread: 1, badgeText: "1", pulse: false)])
        #expect(bell.handle(.received(item(3, read: true), sequence: 3)) == [.changed(unread: 1, badgeText: "1", pulse: false)])
        #expect(bell.handle(.received(item(3), sequence: 4)).isEmpty)  // duplicate id
        for number in 4...103 { _ = bell.handle(.received(item(number), sequence: Int64(number) + 1)) }
        // 103 received, the 100 newest kept (n4...n103, all unread): the read n1 and n3 fell out.
        #expect(bell.items.count == 100)
        #expect(bell.unread == 100)
        #expect(bell.badgeText == "99+")
        #expect(bell.handle(.markRead("n103")) == [.changed(unread: 99, badgeText: "99", pulse: false)])
    }

    @Test("B3: mark one read and mark all read, locally and from the server; stale server reads are ignored")
    func b3MarkRead() {
        var bell = BellLedger()
        for number in 1...4 { _ = bell.handle(.received(item(number), sequence: Int64(number))) }
        _ = bell.handle(.markRead("n2"))
        #expect(bell.unread == 3)
        _ = bell.handle(.serverRead(["n3"], sequence: 5))
        #expect(bell.unread == 2)
        #expect(bell.handle(.serverReadAll(sequence: 5)) == [.ignoredStale(sequence: 5)])
        #expect(bell.unread == 2)
        _ = bell.handle(.markAllRead)
        #expect(bell.unread == 0)
        #expect(bell.badgeText == "")
        #expect(bell.handle(.markAllRead).isEmpty)
    }

    @Test("B4: the feed keeps the 100 newest, newest first; unread counts only kept items")
    func b4Capacity() {
        var bell = BellLedger()
        for number in 1...150 { _ = bell.handle(.received(item(number), sequence: Int64(number))) }
        #expect(bell.items.count == 100)
        #expect(bell.items.first?.id == "n150")
        #expect(bell.items.last?.id == "n51")
        #expect(bell.unread == 100)
        #expect(bell.badgeText == "99+")
        // An item older than everything kept is not kept, and does not count.
        #expect(bell.handle(.received(item(7), sequence: 151)).isEmpty)
        #expect(bell.unread == 100)
        // An out-of-order but recent item lands in its place.
        _ = bell.handle(.received(BellItem(id: "late", kind: .mention, text: "late", createdAt: 120), sequence: 152))
        #expect(bell.items.firstIndex { $0.id == "late" } == 30)  // after n150...n121
        #expect(bell.items.last?.id == "n52")
        #expect(bell.items.count == 100)
    }
}
