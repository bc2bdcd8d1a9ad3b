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

    @Test("A repeat of the same emoji by the same person announces nothing; history pages carry each message's reactions, none on an unsent placeholder (M2)")
    func reactionsInHistory() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice"); f.online(2, "bob")
        let c = f.dm(1, with: "bob")
        let first = try #require(f.say(2, in: c, "first"))
        let plain = try #require(f.say(2, in: c, "nothing on this"))
        let gone = try #require(f.say(1, in: c, "to be unsent"))
        f.request(1, #"{"type":"react","message":"\#(first.id)","emoji":"👍"}"#)
        f.request(2, #"{"type":"react","message":"\#(first.id)","emoji":"❤️"}"#)
        f.request(2, #"{"type":"react","message":"\#(gone.id)","emoji":"😮"}"#)
        f.clear()
        f.request(1, #"{"type":"react","message":"\#(first.id)","emoji":"👍"}"#)
        #expect(f.events(2).filter { $0.event == .reaction }.isEmpty, "the same reaction again: nothing new")
        f.request(1, #"{"type":"message.unsend","message":"\#(gone.id)"}"#)
        let page = try #require(f.request(2, #"{"type":"history","conversation":"\#(c)","limit":10}"#).messages)
        let byId = Dictionary(uniqueKeysWithValues: page.map { ($0.id, $0) })
        #expect(byId[first.id]?.reactions == [ReactionInfo(user: "alice", emoji: "👍"), ReactionInfo(user: "bob", emoji: "❤️")])
        #expect(byId[plain.id]?.reactions == nil)
        #expect(byId[gone.id]?.unsent == true && byId[gone.id]?.reactions == nil)
    }
}
