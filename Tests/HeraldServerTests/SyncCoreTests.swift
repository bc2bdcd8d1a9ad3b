import Foundation
import HeraldProtocol
@testable import HeraldSync
@testable import HeraldStore
import Testing

@Suite("SyncCore: stream, resume and idempotency (R1-R4)")
struct SyncCoreStreamTests {
    @Test("R1: a message reaches every online device of every participant, sender's own devices included")
    func messageReachesEveryDevice() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "alice"); f.online(3, "bob"); f.online(4, "carol")
        let c = f.dm(1, with: "bob")
        f.clear()
        let sent = try #require(f.say(1, in: c, "hi bob"))
        for device in [1, 2, 3] {
            let messages = f.events(device).filter { $0.event == .message }
            #expect(messages.map(\.message?.id) == [sent.id], "device \(device)")
        }
        #expect(f.events(4).isEmpty, "carol is not in the conversation (R5)")
    }

    @Test("R3: a device offline during 100 inserts resumes and gets all 100 in order, once")
    func resumeHundred() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let synced = f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        let cursor = try #require(f.events(2).last?.seq ?? synced.latest)
        f.process([.disconnect(2)])
        var ids: [String] = []
        for n in 0..<100 { ids.append(try #require(f.say(1, in: c, "m\(n)")).id) }
        f.clear()
        let response = f.online(5, "bob", after: cursor)
        #expect(response.mode == .resume)
        // R1a: the response comes after the replay.
        guard case .response = f.frames(5).last else { Issue.record("response must follow the replay"); return }
        let replayed = f.events(5)
        #expect(replayed.compactMap(\.message?.id) == ids)
        let seqs = replayed.compactMap(\.seq)
        #expect(seqs == Array((cursor + 1)...(cursor + 100)), "gap-free and in order")
        #expect(response.latest == cursor + 100)
        // The next message arrives live, exactly once.
        f.say(1, in: c, "after")
        #expect(f.events(5).compactMap(\.seq) == [cursor + 101])
    }

    @Test("R1a: an event committed in the same batch right after sync arrives live exactly once")
    func syncAndSendInOneBatch() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        f.process([.connect(2, user: "bob", name: "Bob", deviceName: nil)])
        f.clear()
        let send = #"{"type":"send","id":70,"conversation":"\#(c)","clientMessageId":"x1","text":"race"}"#
        f.process([.text(1, Array(send.utf8)), .text(2, Array(#"{"type":"sync","id":71,"after":1}"#.utf8)),
                   .text(1, Array(send.replacingOccurrences(of: "x1", with: "x2").replacingOccurrences(of: "70", with: "72").utf8))])
        let texts = f.events(2).compactMap(\.message?.clientMessageId)
        #expect(texts == ["x1", "x2"], "x1 by replay, x2 live; neither twice nor lost")
    }

    @Test("R3: a cursor in a pruned range or ahead of the log gets an explicit resync with the full state")
    func resyncWhenPruned() throws {
        let f = try SyncCoreFixture(retentionMilliseconds: 1_000)
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        for n in 0..<5 { f.say(1, in: c, "old \(n)") }
        f.now += 10_000
        f.core.runMaintenance(now: f.now)
        f.say(1, in: c, "new")
        let resync = f.online(2, "bob", after: 2)
        #expect(resync.mode == .resync)
        #expect(resync.conversations?.map(\.id) == [c])
        #expect(resync.unread == [c: 6])
        #expect(f.events(2).isEmpty, "no silent partial replay")
        let ahead = f.online(3, "bob", after: 999)
        #expect(ahead.mode == .resync)
        let current = f.online(4, "bob", after: try #require(resync.latest))
        #expect(current.mode == .resume)
    }

    @Test("R4: a retried send with the same client id stores one message, answers duplicate:true, no second event")
    func idempotentSend() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        f.clear()
        let body = #"{"type":"send","conversation":"\#(c)","clientMessageId":"retry-1","text":"once"}"#
        let first = f.request(1, body)
        let second = f.request(1, body)
        #expect(first.duplicate == false)
        #expect(second.duplicate == true)
        #expect(first.message == second.message)
        #expect(f.events(2).filter { $0.event == .message }.count == 1)
        #expect(try f.store.history(conversation: c, before: nil, limit: 10).count == 1)
    }

    @Test("R2: per conversation every device sees messages in storage order")
    func order() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "carol")
        let g = try #require(f.request(1, #"{"type":"group","title":"T","members":["bob","carol"]}"#).conversation?.id)
        f.clear()
        var batch: [SyncInput<Int>] = []
        for n in 0..<30 {
            let device = [1, 2, 3][n % 3]
            batch.append(.text(device, Array(#"{"type":"send","id":\#(100 + n),"conversation":"\#(g)","clientMessageId":"o\#(n)","text":"\#(n)"}"#.utf8)))
        }
        f.process(batch)
        let stored = try f.store.history(conversation: g, before: nil, limit: 100).reversed().map(\.id)
        for device in [1, 2, 3] { #expect(f.events(device).compactMap(\.message?.id) == stored) }
    }
}

@Suite("SyncCore: read state (U2-U7) and bell (B1-B4)")
struct SyncCoreReadTests {
    @Test("U2/U3: an ack marks exactly the visible messages: ten unread, six visible, four stay unread")
    func incrementalRead() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        let ids = (0..<10).compactMap { f.say(1, in: c, "n\($0)")?.id }
        let ack = f.request(2, #"{"type":"ack","messages":[\#(ids.prefix(6).map { "\"\($0)\"" }.joined(separator: ","))]}"#)
        #expect(ack.read == Array(ids.prefix(6)))
        #expect(ack.unread == [c: 4])
        #expect(ack.badge == 4)
        let again = f.request(2, #"{"type":"ack","messages":["\#(ids[0])"]}"#)
        #expect(again.read == [], "already read: nothing changes twice")
    }

    @Test("U4/U7: a read on one device reaches all the user's devices with the new counts, stamped with its seq")
    func readEverywhere() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "bob")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(1, in: c, "read me"))
        f.say(1, in: c, "and me later")
        f.clear()
        let ack = f.request(2, #"{"type":"ack","messages":["\#(m.id)"]}"#)
        for device in [2, 3] {
            let reads = f.events(device).filter { $0.event == .read }
            #expect(reads.count == 1)
            #expect(reads.first?.messages == [m.id])
            #expect(reads.first?.unread == [c: 1])
            #expect(reads.first?.badge == 1)
            #expect(reads.first?.seq == ack.latest, "U7: the count carries the seq it reflects")
        }
    }

    @Test("U6: the sender gets a receipt naming the reader; S7: own messages never count as unread")
    func receipts() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(1, in: c, "did you read it"))
        #expect(f.request(1, #"{"type":"conversations"}"#).unread == [c: 0], "S7")
        #expect(f.request(1, #"{"type":"ack","messages":["\#(m.id)"]}"#).read == [], "S7: own message")
        f.clear()
        f.request(2, #"{"type":"ack","messages":["\#(m.id)"]}"#)
        let receipt = try #require(f.events(1).first { $0.event == .receipt })
        #expect(receipt.messageId == m.id)
        #expect(receipt.reader == "bob")
        #expect(receipt.conversationId == c)
        #expect(receipt.seq != nil)
    }

    @Test("B1-B3: follow and react create bell notifications; read and readAll sync to all devices; messages never enter the bell")
    func bell() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "bob")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(2, in: c, "react to this"))
        f.clear()
        let follow = try #require(f.request(1, #"{"type":"follow","user":"bob"}"#).notification)
        #expect(follow.kind == .follow)
        #expect(follow.text == "Alice followed you")
        let react = try #require(f.request(1, #"{"type":"react","message":"\#(m.id)","emoji":"👍"}"#).notification)
        #expect(react.kind == .reaction)
        for device in [2, 3] {
            let created = f.events(device).filter { $0.event == .bell && $0.action == .created }
            #expect(created.map(\.bellUnread) == [1, 2])
        }
        let feed = f.request(2, #"{"type":"bell"}"#)
        #expect(feed.notifications?.map(\.id) == [react.id, follow.id], "newest first")
        #expect(feed.bellUnread == 2)
        #expect(feed.notifications?.allSatisfy { $0.kind != .system } == true)
        let one = f.request(3, #"{"type":"bell.read","notification":"\#(follow.id)"}"#)
        #expect(one.bellUnread == 1)
        #expect(f.events(2).first { $0.event == .bell }?.notificationIds == [follow.id])
        f.events(3)
        let all = f.request(2, #"{"type":"bell.readAll"}"#)
        #expect(all.bellUnread == 0)
        let readAll = try #require(f.events(3).first { $0.event == .bell })
        #expect(readAll.action == .readAll)
        #expect(readAll.notificationIds == [react.id])
        #expect(readAll.bellUnread == 0)
    }

    @Test("B4: the feed keeps the 100 most recent notifications, newest first")
    func feedLimit() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        var ids: [String] = []
        for _ in 0..<105 { ids.append(try #require(f.request(1, #"{"type":"follow","user":"bob"}"#).notification?.id)) }
        let feed = try #require(f.request(2, #"{"type":"bell"}"#).notifications)
        #expect(feed.map(\.id) == Array(ids.suffix(100).reversed()))
    }
}

@Suite("SyncCore: push (P1-P5)")
struct SyncCorePushTests {
    /// alice on 1; bob on 2 (background) and 3 (list, foreground).
    func setup(grace: Int64 = 2_000) throws -> (SyncCoreFixture, String) {
        let f = try SyncCoreFixture(graceMilliseconds: grace)
        f.online(1, "alice"); f.online(2, "bob", deviceName: "phone"); f.online(3, "bob", deviceName: "laptop")
        let c = f.dm(1, with: "bob")
        f.request(2, #"{"type":"scene","scene":"background"}"#)
        f.request(3, #"{"type":"scene","scene":"list"}"#)
        f.clear()
        return (f, c)
    }

    @Test("P1/P2/P3/P4: after the grace period the background device gets a push with T10 words; the foreground one does not")
    func pushAfterGrace() throws {
        let (f, c) = try setup()
        let m = try #require(f.say(1, in: c, "hello there"))
        #expect(f.events(2).filter { $0.event == .push }.isEmpty, "P4: not before the grace period")
        f.advance(milliseconds: 1_999)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty)
        f.advance(milliseconds: 1)
        let push = try #require(f.events(2).first { $0.event == .push })
        #expect(push.seq == nil, "device-only event")
        #expect(push.push == PushInfo(conversation: c, message: m.id, sender: "alice", preview: "hello there", title: "Alice", url: "herald://conversation/\(c)"))
        #expect(f.events(3).filter { $0.event == .push }.isEmpty, "P3")
        #expect(f.events(1).filter { $0.event == .push }.isEmpty, "S7")
        #expect(try f.store.pushes(user: "bob").map(\.device) == ["phone"], "outbox row")
    }

    @Test("P4: a push whose decision the store could not read is decided again later, and sent once")
    func pushRetriedAfterStoreFailure() throws {
        let (f, c) = try setup()
        f.say(1, in: c, "hello there")
        // The mutes and quiet hours cannot be read (as when the store is busy or its connection broke).
        try f.store.connection.executeScript("ALTER TABLE conversation_settings RENAME TO conversation_settings_away")
        f.advance(milliseconds: 2_000)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty)
        try f.store.connection.executeScript("ALTER TABLE conversation_settings_away RENAME TO conversation_settings")
        f.advance(milliseconds: SyncCore<Int>.pushRetryMilliseconds - 1)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty)
        f.advance(milliseconds: 1)
        #expect(f.events(2).filter { $0.event == .push }.map(\.push?.preview) == ["hello there"])
        #expect(try f.store.pushes(user: "bob").map(\.device) == ["phone"], "one outbox row")
        f.advance(milliseconds: 10 * SyncCore<Int>.pushRetryMilliseconds)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty, "not again")
    }

    @Test("P2: a group push is titled 'Group - Sender' and cuts text at 50 characters")
    func groupPushText() throws {
        let f = try SyncCoreFixture(graceMilliseconds: 0)
        f.online(1, "alice"); f.online(2, "bob")
        let g = try #require(f.request(1, #"{"type":"group","title":"Team A","members":["bob"]}"#).conversation?.id)
        f.request(2, #"{"type":"scene","scene":"background"}"#)
        let long = String(repeating: "x", count: 60)
        f.say(1, in: g, long)
        let push = try #require(f.events(2).first { $0.event == .push }?.push)
        #expect(push.title == "Team A - Alice")
        #expect(push.preview == String(repeating: "x", count: 50) + "...")
    }

    @Test("P1/S1: while any device of the recipient views the conversation, no device gets a push")
    func viewingSuppresses() throws {
        let (f, c) = try setup(grace: 0)
        f.request(3, #"{"type":"scene","scene":"thread","conversation":"\#(c)","atBottom":true}"#)
        f.say(1, in: c, "you are looking")
        f.advance(milliseconds: 5_000)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty)
        #expect(try f.store.pushes(user: "bob").isEmpty)
    }

    @Test("P4: a message read within the grace period is never pushed; grace 0 pushes at once")
    func readDuringGrace() throws {
        let (f, c) = try setup()
        let m = try #require(f.say(1, in: c, "quick"))
        f.request(3, #"{"type":"ack","messages":["\#(m.id)"]}"#)
        f.advance(milliseconds: 3_000)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty)
        let (g, c2) = try setup(grace: 0)
        g.say(1, in: c2, "now")
        #expect(g.events(2).filter { $0.event == .push }.count == 1)
    }

    @Test("P5: when a pushed message is read on another device, the push is withdrawn from the device that got it")
    func withdraw() throws {
        let (f, c) = try setup(grace: 0)
        let m = try #require(f.say(1, in: c, "clear me"))
        #expect(f.events(2).contains { $0.event == .push })
        f.request(3, #"{"type":"ack","messages":["\#(m.id)"]}"#)
        let cleared = try #require(f.events(2).first { $0.event == .pushCleared })
        #expect(cleared.messageId == m.id)
        #expect(cleared.conversationId == c)
        #expect(f.events(3).filter { $0.event == .pushCleared }.isEmpty, "only the device that got it")
        #expect(try f.store.pushes(user: "bob").isEmpty)
    }
}

@Suite("SyncCore: authorization (R5), bad input and store failures")
struct SyncCoreGuardTests {
    @Test("R5: every request on a conversation the user is not in is refused like a missing one and leaks nothing")
    func foreignConversation() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "carol")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(1, in: c, "secret"))
        f.clear()
        let missing = "c999"
        for (template, code) in [
            (#"{"type":"history","conversation":"CONV"}"#, ErrorCode.notParticipant),
            (#"{"type":"send","conversation":"CONV","clientMessageId":"evil-CONV","text":"x"}"#, .notParticipant),
        ] {
            let foreign = f.request(3, template.replacingOccurrences(of: "CONV", with: c))
            let absent = f.request(3, template.replacingOccurrences(of: "CONV", with: missing))
            #expect(foreign.error?.code == code)
            #expect(foreign.error == absent.error, "same answer as for a conversation that does not exist")
        }
        let react = f.request(3, #"{"type":"react","message":"\#(m.id)","emoji":"x"}"#)
        #expect(react.error == f.request(3, #"{"type":"react","message":"m999","emoji":"x"}"#).error)
        #expect(react.error?.code == .notFound)
        let ack = f.request(3, #"{"type":"ack","messages":["\#(m.id)"]}"#)
        #expect(ack.ok && ack.read == [])
        #expect(try !f.store.isRead(user: "bob", message: m.id))
        #expect(f.request(3, #"{"type":"conversations"}"#).conversations?.isEmpty == true)
        f.request(3, #"{"type":"scene","scene":"thread","conversation":"\#(c)"}"#)
        #expect(f.events(1).isEmpty && f.events(2).isEmpty, "nothing reached the participants")
        for frame in f.frames(3) {
            if case .event = frame { Issue.record("carol got an event: \(frame)") }
        }
        #expect(try f.store.history(conversation: c, before: nil, limit: 10).count == 1)
    }

    @Test("bad_state: requests before sync are refused, sync itself works once")
    func badState() throws {
        let f = try SyncCoreFixture()
        f.process([.connect(1, user: "alice", name: "Alice", deviceName: nil)])
        #expect(f.request(1, #"{"type":"conversations"}"#).error?.code == .badState)
        #expect(f.request(1, #"{"type":"sync"}"#).mode == .snapshot)
        #expect(f.request(1, #"{"type":"sync"}"#).error?.code == .badState)
        #expect(f.request(1, #"{"type":"conversations"}"#).ok)
    }

    @Test("malformed, unknown, oversized and wrong-type requests get errors and the device stays usable")
    func badInput() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let cases: [(String, ErrorCode, Int?)] = [
            ("not json", .badJSON, nil),
            (#"{"type":"nope","id":5}"#, .unknownType, 5),
            (#"{"type":"send","id":6,"conversation":"c1","clientMessageId":"a","text":"\#(String(repeating: "y", count: 9000))"}"#, .tooLarge, 6),
            (#"{"type":"history","id":7,"conversation":42}"#, .badRequest, 7),
            (#"{"type":"send","id":8,"conversation":"c1"}"#, .badRequest, 8),
        ]
        for (text, code, id) in cases {
            f.clear()
            f.process([.text(1, Array(text.utf8))])
            guard case .response(let response) = f.frames(1).first else { Issue.record("no response to \(text.prefix(30))"); continue }
            #expect(response.error?.code == code)
            #expect(response.id == id)
        }
        f.process([.binary(1)])
        #expect(f.request(1, #"{"type":"conversations"}"#).ok, "still usable")
        #expect(try f.store.latestSeq(user: "alice") == 0, "nothing stored")
    }

    @Test("store failure: on a read-only database sends answer unavailable and store nothing, reads keep working")
    func readOnlyStore() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        f.say(1, in: c, "before")
        let path = f.store.path
        let readOnly = try SQLiteStore(path: path, readOnly: true)
        defer { readOnly.close() }
        let core = SyncCore<Int>(store: readOnly)
        func ask(_ text: String) -> ResponseFrame? {
            let out = core.process([.text(9, Array(text.utf8))], now: f.now)
            for delivery in out { if case .success(.response(let r)) = ServerFrame.decode(delivery.payload(at: 0)) { return r } }
            return nil
        }
        _ = core.process([.connect(9, user: "alice", name: "Alice", deviceName: nil)], now: f.now)
        #expect(ask(#"{"type":"sync","id":1}"#)?.mode == .snapshot)
        let send = ask(#"{"type":"send","id":2,"conversation":"\#(c)","clientMessageId":"ro","text":"lost"}"#)
        #expect(send?.error?.code == .unavailable)
        #expect(ask(#"{"type":"history","id":3,"conversation":"\#(c)"}"#)?.messages?.map(\.text) == ["before"])
        #expect(try f.store.history(conversation: c, before: nil, limit: 10).count == 1)
    }
}

@Suite("SyncCore: sign-out within a batch")
struct SyncCoreSignOutTests {
    @Test("A device whose token a sign-out earlier in the same batch refuses is closed (4001), though it was admitted before the batch ran")
    func signOutEarlierInBatch() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        _ = f.core.takeCloses()
        let issued = f.now / 1000  // a token from before the sign-out (sign-outs cover their own second too)
        f.process([
            .text(1, Array(#"{"type":"signOut","id":50}"#.utf8)),
            .connect(2, user: "alice", name: "Alice", deviceName: "stolen", issuedAt: issued),
            .connect(3, user: "bob", name: "Bob", deviceName: nil, issuedAt: issued),
        ])
        let closes = f.core.takeCloses()
        #expect(closes.filter { $0.device == 2 }.map(\.code) == [HeraldCloseCode.credentialsEnded])
        #expect(closes.filter { $0.device == 3 }.isEmpty, "another user's device is not touched")
        #expect(f.core.connectedDeviceCount == 1, "bob's only")
    }
}
