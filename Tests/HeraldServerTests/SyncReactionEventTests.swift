import HeraldProtocol
import HeraldSync
import Testing

/// Reactions under a message: every participant learns who reacted with what, as a stream event with a seq (R3),
/// and nobody outside the conversation does (R5).
@Suite("SyncCore: reaction events to every participant")
struct SyncReactionEventTests {
    @Test("A react reaches every device of every participant (the reactor's too) as a 'reaction' event with a seq; a non-participant gets nothing")
    func reactionReachesParticipants() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob"); f.online(3, "bob"); f.online(4, "carol")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(2, in: c, "react to this"))
        f.clear()
        f.request(1, #"{"type":"react","message":"\#(m.id)","emoji":"👍"}"#)
        for device in [1, 2, 3] {
            let reactions = f.events(device).filter { $0.event == .reaction }
            #expect(reactions.count == 1, "device \(device)")
            let event = try #require(reactions.first)
            #expect(event.conversationId == c && event.messageId == m.id && event.user == "alice" && event.emoji == "👍")
            #expect(event.seq != nil && event.at != nil, "a stream event, replayed on resume")
        }
        #expect(f.events(4).isEmpty, "R5: carol is not in the conversation")
    }

    @Test("R3: a device that was away during a reaction gets it on resume, once")
    func reactionReplayedOnResume() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let synced = f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        let m = try #require(f.say(2, in: c, "react later"))
        let cursor = try #require(f.events(2).last?.seq ?? synced.latest)
        f.process([.disconnect(2)])
        f.request(1, #"{"type":"react","message":"\#(m.id)","emoji":"❤️"}"#)
        f.clear()
        let response = f.online(5, "bob", after: cursor)
        #expect(response.mode == .resume)
        let replayed = f.events(5).filter { $0.event == .reaction }
        #expect(replayed.map(\.emoji) == ["❤️"] && replayed.first?.user == "alice" && replayed.first?.messageId == m.id)
    }
}
