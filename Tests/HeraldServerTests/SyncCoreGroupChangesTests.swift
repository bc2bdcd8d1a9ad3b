import HeraldProtocol
@testable import HeraldSync
import Testing

/// G1-G6 in the sync core: who may change a group, what each participant's devices get, and R5 for a removed member.
@Suite("Group changes through the sync core (G1-G6, R5)")
struct SyncCoreGroupChangesTests {
    /// alice (device 1) makes "Team" with bob (2) and carol (3); dave (4) is outside.
    private func team() throws -> (SyncCoreFixture, String) {
        let f = try SyncCoreFixture()
        for (device, user) in [(1, "alice"), (2, "bob"), (3, "carol"), (4, "dave")] { f.online(device, user) }
        let group = try #require(f.request(1, #"{"type":"group","title":"Team","members":["bob","carol"]}"#).conversation?.id)
        f.clear()
        return (f, group)
    }

    private func lines(_ events: [EventFrame]) -> [String] {
        events.filter { $0.event == .message && $0.message?.kind == .system }.compactMap { $0.message?.text }
    }

    @Test("G1, G5: any participant renames; everyone gets group.changed and the line; the same title again changes nothing")
    func rename() throws {
        let (f, group) = try team()
        let answer = f.request(2, #"{"type":"group.rename","conversation":"\#(group)","title":"Team B"}"#)
        #expect(answer.error == nil && answer.conversation?.title == "Team B")
        for device in 1...3 {
            let events = f.events(device)
            #expect(events.first { $0.event == .groupChanged }?.conversation?.title == "Team B", "device \(device)")
            #expect(lines(events) == ["Bob renamed the group to Team B"], "device \(device)")
        }
        #expect(f.events(4).isEmpty, "R5: dave is not in it")
        #expect(f.request(3, #"{"type":"group.rename","conversation":"\#(group)","title":"Team B"}"#).error == nil)
        #expect(f.events(1).isEmpty, "the same title again writes nothing")
        #expect(f.request(4, #"{"type":"group.rename","conversation":"\#(group)","title":"Mine"}"#).error?.code == .notParticipant)
        let dm = f.dm(1, with: "bob")
        #expect(f.request(1, #"{"type":"group.rename","conversation":"\#(dm)","title":"Us"}"#).error?.code == .conflict, "G6")
    }

    @Test("G2: any participant adds; the new member gets the group with nothing unread and the line, and from then on its messages")
    func add() throws {
        let (f, group) = try team()
        f.say(1, in: group, "before dave")
        f.clear()
        let answer = f.request(3, #"{"type":"group.add","conversation":"\#(group)","user":"dave"}"#)
        #expect(answer.error == nil && answer.conversation?.participants.map(\.id) == ["alice", "bob", "carol", "dave"])
        let daves = f.events(4)
        let arrival = try #require(daves.first { $0.event == .conversation }?.conversation)
        #expect(arrival.id == group && arrival.unread == 0, "G2: what came before counts as read")
        #expect(lines(daves) == ["Carol added Dave"])
        for device in 1...3 {
            let events = f.events(device)
            #expect(events.contains { $0.event == .groupChanged && $0.conversation?.participants.count == 4 }, "device \(device)")
            #expect(lines(events) == ["Carol added Dave"], "device \(device)")
        }
        #expect(f.request(2, #"{"type":"group.add","conversation":"\#(group)","user":"dave"}"#).error == nil)
        #expect(f.events(1).isEmpty, "adding a member again writes nothing")
        #expect(f.request(2, #"{"type":"group.add","conversation":"\#(group)","user":"zed"}"#).error?.code == .unknownUser)

        f.say(1, in: group, "hi dave")
        #expect(f.events(4).compactMap { $0.message?.text } == ["hi dave"])
        let history = f.request(4, #"{"type":"history","conversation":"\#(group)"}"#)
        #expect(history.messages?.map { $0.text ?? "" } == ["hi dave", "Carol added Dave", "before dave"], "G2: the history is there")
        #expect(f.request(4, #"{"type":"conversations"}"#).unread?[group] == 1)
    }

    @Test("G3, R5: only the creator removes another member; the removed one gets left, then nothing, and can neither read nor write")
    func remove() throws {
        let (f, group) = try team()
        #expect(f.request(2, #"{"type":"group.remove","conversation":"\#(group)","user":"carol"}"#).error?.code == .forbidden)
        #expect(f.events(3).isEmpty, "a refused removal changes nothing")
        #expect(f.request(1, #"{"type":"group.remove","conversation":"\#(group)","user":"dave"}"#).error?.code == .notFound)
        #expect(f.request(1, #"{"type":"group.remove","conversation":"\#(group)","user":"carol"}"#).error == nil)
        let carols = f.events(3)
        #expect(carols.map(\.event) == [.left] && carols.first?.user == "carol", "carol hears she is out, and nothing else")
        for device in 1...2 {
            let events = f.events(device)
            #expect(events.contains { $0.event == .left && $0.user == "carol" })
            #expect(lines(events) == ["Alice removed Carol"])
        }
        f.say(2, in: group, "without carol")
        f.request(1, #"{"type":"group.rename","conversation":"\#(group)","title":"Two"}"#)
        #expect(f.events(3).isEmpty, "R5: nothing more reaches carol")
        #expect(f.request(3, #"{"type":"history","conversation":"\#(group)"}"#).error?.code == .notParticipant)
        #expect(f.request(3, #"{"type":"send","conversation":"\#(group)","clientMessageId":"c-x","text":"back?"}"#).error?.code == .notParticipant)
        #expect(f.request(3, #"{"type":"typing.start","conversation":"\#(group)"}"#).error?.code == .notParticipant)
        #expect(f.request(3, #"{"type":"group.add","conversation":"\#(group)","user":"carol"}"#).error?.code == .notParticipant)
    }

    @Test("G4: removing yourself is leaving: 'Bob left' for the others, also for a member who is not the creator")
    func removeSelf() throws {
        let (f, group) = try team()
        #expect(f.request(2, #"{"type":"group.remove","conversation":"\#(group)","user":"bob"}"#).error == nil)
        #expect(f.events(2).map(\.event) == [.left])
        #expect(lines(f.events(1)) == ["Bob left"])
        #expect(f.request(3, #"{"type":"leave","conversation":"\#(group)"}"#).error == nil)
        #expect(lines(f.events(1)) == ["Carol left"])
    }

    @Test("G5: a system line is nobody's unread, never a push, reads nothing when acked, and cannot be unsent")
    func systemLineIsNobodysMessage() throws {
        let (f, group) = try team()
        f.request(2, #"{"type":"scene","scene":"background","foreground":false}"#)
        f.clear()
        f.request(1, #"{"type":"group.rename","conversation":"\#(group)","title":"Team B"}"#)
        let line = try #require(f.events(2).first { $0.message?.kind == .system }?.message)
        f.advance(milliseconds: 5_000)
        #expect(f.events(2).filter { $0.event == .push }.isEmpty, "no push for a system line (P1 is for messages)")
        #expect(f.request(2, #"{"type":"conversations"}"#).unread?[group] == 0)
        #expect(f.request(2, #"{"type":"ack","messages":["\#(line.id)"]}"#).read == [])
        #expect(f.request(1, #"{"type":"message.unsend","message":"\#(line.id)"}"#).error?.code == .conflict)
        #expect(f.request(1, #"{"type":"message.edit","message":"\#(line.id)","text":"x"}"#).error != nil)
    }

    @Test("R3: a device that was away resumes into every change in order, the lines included, each once")
    func resumeAfterChanges() throws {
        let (f, group) = try team()
        let before = try #require(f.request(2, #"{"type":"conversations"}"#).latest)
        f.process([.disconnect(2)])
        f.request(1, #"{"type":"group.rename","conversation":"\#(group)","title":"Team B"}"#)
        f.request(1, #"{"type":"group.add","conversation":"\#(group)","user":"dave"}"#)
        f.request(1, #"{"type":"group.remove","conversation":"\#(group)","user":"carol"}"#)
        f.clear()
        f.online(5, "bob", after: before)
        let events = f.events(5)
        #expect(events.map(\.event) == [.groupChanged, .message, .groupChanged, .message, .left, .message])
        #expect(lines(events) == ["Alice renamed the group to Team B", "Alice added Dave", "Alice removed Carol"])
        let seqs = events.compactMap(\.seq)
        #expect(seqs.count == 6 && seqs == seqs.sorted() && Set(seqs).count == 6)
    }
}
