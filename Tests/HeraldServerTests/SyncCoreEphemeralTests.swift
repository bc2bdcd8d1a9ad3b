import Foundation
import HeraldProtocol
import HeraldRules
@testable import HeraldSync
import HeraldStore
import Testing

@Suite("SyncCore: typing and presence (E1, E2)")
struct SyncCoreEphemeralTests {
    private static func typing(_ events: [EventFrame]) -> [EventFrame] { events.filter { $0.event == .typing } }
    private static func presence(_ events: [EventFrame]) -> [EventFrame] { events.filter { $0.event == .presence } }

    /// What `device` got from `deliveries`, in order: "response" or the event's name.
    private static func kinds(_ deliveries: [SyncDelivery<Int>], for device: Int) -> [String] {
        deliveries.flatMap { delivery in
            delivery.devices.indices.filter { delivery.devices[$0] == device }.map { index -> String in
                switch ServerFrame.decode(delivery.payload(at: index)) {
                case .success(.response): "response"
                case .success(.event(let event)): event.event.rawValue
                case .failure: "undecodable"
                }
            }
        }
    }

    @Test("E1: a start reaches the other participants' live devices once, without seq; refreshes send nothing; never a non-participant (R5)")
    func startReachesParticipants() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "bob"); f.online(4, "carol")
        let c = f.dm(1, with: "bob")
        f.clear()
        #expect(f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#).ok)
        for device in [2, 3] {
            let events = Self.typing(f.ephemeralEvents(device))
            #expect(events.count == 1, "device \(device)")
            #expect(events.first?.user == "alice" && events.first?.typing == true && events.first?.conversationId == c && events.first?.seq == nil)
        }
        #expect(Self.typing(f.ephemeralEvents(1)).isEmpty, "not to the typist")
        #expect(Self.typing(f.ephemeralEvents(4)).isEmpty, "R5: carol is not in c")
        f.advance(milliseconds: 2_000)
        #expect(f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#).ok)
        #expect(Self.typing(f.ephemeralEvents(2)).isEmpty, "a refresh is not a change")
    }

    @Test("E1: a non-participant's typing is refused not_participant and nobody hears of it")
    func nonParticipantRefused() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(4, "carol")
        let c = f.dm(1, with: "bob")
        f.clear()
        let answer = f.request(4, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        #expect(answer.error?.code == .notParticipant)
        #expect(Self.typing(f.ephemeralEvents(1)).isEmpty && Self.typing(f.ephemeralEvents(2)).isEmpty)
    }

    @Test("E1: 6 s without a refresh ends it (typing false); a refresh at 4 s pushes the end to 10 s")
    func silenceEndsTyping() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.clear()
        f.advance(milliseconds: 4_000)
        f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.advance(milliseconds: 2_500)
        #expect(Self.typing(f.ephemeralEvents(2)).isEmpty, "refreshed at 4 s: still typing at 6.5 s")
        #expect(f.core.nextDeadline <= f.now + 3_500)
        f.advance(milliseconds: 3_500)
        let ended = Self.typing(f.ephemeralEvents(2))
        #expect(ended.map(\.typing) == [false])
    }

    @Test("E1: a message from the typist ends it, after the message; a stop ends it; a stop without a start sends nothing")
    func messageAndStopEndTyping() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.clear()
        let send = #"{"type":"send","id":900,"conversation":"\#(c)","clientMessageId":"typed","text":"hello"}"#
        #expect(Self.kinds(f.process([.text(1, Array(send.utf8))]), for: 2) == ["message", "typing"])
        #expect(Self.typing(f.ephemeralEvents(2)).map(\.typing) == [false])
        f.request(1, #"{"type":"typing.stop","conversation":"\#(c)"}"#)
        #expect(Self.typing(f.ephemeralEvents(2)).isEmpty)
        f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.request(1, #"{"type":"typing.stop","conversation":"\#(c)"}"#)
        #expect(Self.typing(f.ephemeralEvents(2)).map(\.typing) == [true, false])
    }

    @Test("E1: leaving the thread or disconnecting ends the device's typing; another device of the user keeps it")
    func leavingEndsTyping() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(5, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        f.request(1, #"{"type":"scene","scene":"thread","conversation":"\#(c)"}"#)
        f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.request(5, #"{"type":"typing.start","conversation":"\#(c)"}"#)
        f.clear()
        f.request(1, #"{"type":"scene","scene":"list"}"#)
        #expect(Self.typing(f.ephemeralEvents(2)).isEmpty, "alice still types on device 5")
        f.process([.disconnect(5)])
        #expect(Self.typing(f.ephemeralEvents(2)).map(\.typing) == [false])
    }

    @Test("E1: a flood is refused rate_limited beyond the burst and changes nothing for others")
    func floodIsRateLimited() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        f.clear()
        var codes: [ErrorCode?] = []
        for _ in 0..<20 { codes.append(f.request(1, #"{"type":"typing.start","conversation":"\#(c)"}"#).error?.code) }
        #expect(codes.prefix(6).allSatisfy { $0 == nil })
        #expect(codes.dropFirst(6).allSatisfy { $0 == .rateLimited })
        #expect(Self.typing(f.ephemeralEvents(2)).count == 1)
        f.advance(milliseconds: 1_000)
        #expect(f.request(1, #"{"type":"typing.stop","conversation":"\#(c)"}"#).ok, "the budget refills")
    }

    @Test("E2: online, away, offline with lastSeen reach contacts only, at most once per 2 s, and nothing is stored")
    func presenceChanges() throws {
        let f = try SyncCoreFixture()
        f.online(2, "bob"); f.online(4, "carol")
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        _ = c
        f.clear()
        let latestBefore = try f.store.latestSeq(user: "bob")
        f.advance(milliseconds: 2_000)
        f.request(1, #"{"type":"scene","scene":"background"}"#)
        let away = Self.presence(f.ephemeralEvents(2))
        #expect(away.map(\.status) == [.away] && away.first?.user == "alice" && away.first?.lastSeen == nil && away.first?.seq == nil)
        // Within 2 s of that update: held, then one update with the newest state.
        f.advance(milliseconds: 500)
        f.process([.disconnect(1)])
        let leftAt = f.now
        #expect(Self.presence(f.ephemeralEvents(2)).isEmpty, "coalesced: less than 2 s since the last update")
        f.advance(milliseconds: 1_500)
        let offline = Self.presence(f.ephemeralEvents(2))
        #expect(offline.map(\.status) == [.offline])
        #expect(offline.first?.lastSeen == leftAt)
        #expect(Self.presence(f.ephemeralEvents(4)).isEmpty, "R5: carol shares no conversation with alice")
        #expect(try f.store.latestSeq(user: "bob") == latestBefore, "never stored as a stream event")
    }

    @Test("E2: a device that syncs is told its contacts' presence right after the answer")
    func syncTellsPresence() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(3, "carol")
        _ = f.dm(1, with: "bob")
        f.request(3, #"{"type":"scene","scene":"background"}"#)
        _ = f.dm(3, with: "bob")
        f.clear()
        f.process([.connect(2, user: "bob", name: "Bob", deviceName: nil)])
        let kinds = Self.kinds(f.process([.text(2, Array(#"{"type":"sync","id":901}"#.utf8))]), for: 2)
        #expect(kinds == ["response", "presence", "presence"])
        let told = Self.presence(f.ephemeralEvents(2))
        #expect(Set(told.map { "\($0.user ?? "?")=\($0.status?.rawValue ?? "?")" }) == ["alice=online", "carol=away"])
    }

    @Test("E2: the participants of a new conversation learn each other's presence (they shared none before)")
    func newConversationIntroduces() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(4, "carol")
        f.request(2, #"{"type":"scene","scene":"background"}"#)
        f.clear()
        _ = f.dm(1, with: "bob")
        #expect(Self.presence(f.ephemeralEvents(1)).map { "\($0.user ?? "?")=\($0.status?.rawValue ?? "?")" } == ["bob=away"])
        #expect(Self.presence(f.ephemeralEvents(2)).map { "\($0.user ?? "?")=\($0.status?.rawValue ?? "?")" } == ["alice=online"])
        #expect(Self.presence(f.ephemeralEvents(4)).isEmpty, "R5")
    }

    @Test("E2: presence travels through 1:1 conversations and groups of up to 64, not through a bigger group")
    func bigGroupCarriesNoPresence() throws {
        let crowd = (1...64).map { ("member\($0)", "Member \($0)") }
        let f = try SyncCoreFixture(users: SyncCoreFixture.cast + crowd)
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "member1")
        let members = (["bob"] + crowd.map(\.0)).map { "\"\($0)\"" }.joined(separator: ",")
        #expect(f.request(1, #"{"type":"group","title":"Everyone","members":[\#(members)]}"#).ok)
        f.clear()
        f.advance(milliseconds: 2_000)
        f.request(1, #"{"type":"scene","scene":"background"}"#)
        #expect(Self.presence(f.ephemeralEvents(2)).isEmpty && Self.presence(f.ephemeralEvents(3)).isEmpty, "65 others: too big")
        _ = f.dm(1, with: "bob")
        f.advance(milliseconds: 2_000)
        f.request(1, #"{"type":"scene","scene":"list"}"#)
        #expect(Self.presence(f.ephemeralEvents(2)).map(\.status) == [.away, .online], "the dm: introduced, then the change")
        #expect(Self.presence(f.ephemeralEvents(3)).isEmpty)
    }
}
