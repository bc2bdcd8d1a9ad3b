import HeraldProtocol
@testable import HeraldSync
import Testing

/// A group large enough that its fan-out finds members' devices through the sync core's recipient cache: who is
/// connected, who left the group and each device's seq must still be exactly what R1a and R3 say. And a burst of a
/// group's due pushes, whose recipients are looked at once per run.
@Suite("Group fan-out through the recipient cache (R1a, R3)")
struct SyncCoreGroupFanOutTests {
    static let members = (1...20).map { ("m\($0)", "Member \($0)") }

    @Test("R1a: a device that connects between two messages to a group of 20 gets the second; one that disconnected gets nothing more")
    func connectsAndLeavesBetweenMessages() throws {
        let f = try SyncCoreFixture(users: Self.members)
        for index in 1...19 { f.online(index, "m\(index)") }
        let group = try #require(f.request(1, #"{"type":"group","title":"Twenty","members":[\#((2...20).map { "\"m\($0)\"" }.joined(separator: ","))]}"#).conversation?.id)
        f.say(1, in: group, "first")
        #expect(f.events(2).filter { $0.event == .message }.count == 1)
        #expect(f.events(20).isEmpty, "m20 has no device yet")

        // m20 comes online and m2 leaves: the next message reaches m20's new device and not m2's closed one.
        f.online(20, "m20")
        f.process([.disconnect(2)])
        f.clear()
        f.say(1, in: group, "second")
        #expect(f.events(20).filter { $0.event == .message }.map { $0.message?.text } == ["second"])
        #expect(f.events(2).isEmpty)

        // A second device of m3 joins the first one: both get the third message, each with m3's next seq.
        f.online(21, "m3")
        f.clear()
        f.say(1, in: group, "third")
        let seqs = [3, 21].map { f.events($0).filter { $0.event == .message }.compactMap(\.seq) }
        #expect(seqs[0].count == 1 && seqs[0] == seqs[1], "both devices of m3 get the event once, with the same seq")
    }

    @Test("R3: members who left the group get nothing of what is said after, the others every message once and in order")
    func leaverHearsNothingMore() throws {
        let f = try SyncCoreFixture(users: Self.members)
        for index in 1...20 { f.online(index, "m\(index)") }
        let group = try #require(f.request(1, #"{"type":"group","title":"Twenty","members":[\#((2...20).map { "\"m\($0)\"" }.joined(separator: ","))]}"#).conversation?.id)
        for text in ["a", "b"] { f.say(1, in: group, text) }
        #expect(f.request(5, #"{"type":"leave","conversation":"\#(group)"}"#).error == nil)
        f.clear()
        for text in ["c", "d", "e"] { f.say(1, in: group, text) }
        #expect(f.events(5).filter { $0.event == .message }.isEmpty)
        for device in [2, 6, 20] {
            let events = f.events(device).filter { $0.event == .message }
            #expect(events.map { $0.message?.text } == ["c", "d", "e"])
            let seqs = events.compactMap(\.seq)
            #expect(seqs == seqs.sorted() && Set(seqs).count == 3, "each once, in seq order")
        }
    }

    @Test("P1-P4 in bursts: due pushes split into runs of one conversation and the same recipients, in order, none dropped")
    func duePushesInRunsOfSameRecipients() {
        func push(_ conversation: String, _ message: String, to users: [String], except: String? = nil) -> PendingPush {
            PendingPush(
                deadline: 0, users: users,
                push: PushInfo(conversation: conversation, message: message, sender: "m1", preview: "hi", title: "M1", url: "herald://conversation/\(conversation)"),
                except: except)
        }
        let group = ["m2", "m3"]
        let participants = ["m1", "m2", "m3"]
        let due: ArraySlice<PendingPush> = [
            push("c1", "a", to: group), push("c1", "b", to: group), push("c2", "c", to: group),
            push("c1", "d", to: group), push("c1", "e", to: ["m2"]), push("c1", "f", to: ["m2"]),
            // S7: the same participant list from different senders is not the same recipients.
            push("c1", "g", to: participants, except: "m1"), push("c1", "h", to: participants, except: "m1"),
            push("c1", "i", to: participants, except: "m2"),
        ][...]
        let runs = SyncCore<Int>.runsOfSameRecipients(due)
        #expect(runs.map(\.range) == [0..<2, 2..<3, 3..<4, 4..<6, 6..<8, 8..<9])
        #expect(runs.map(\.first.push.message) == ["a", "c", "d", "e", "g", "i"])
        #expect(Array(due[6].recipients) == ["m2", "m3"] && Array(due[8].recipients) == ["m1", "m3"], "the sender is never a recipient")
        #expect(SyncCore<Int>.runsOfSameRecipients(due.dropFirst(5)).map(\.range) == [5..<6, 6..<8, 8..<9], "a slice keeps its indices")
        #expect(SyncCore<Int>.runsOfSameRecipients(due.dropFirst(9)).isEmpty)
    }

    @Test("S7: a message's push recipients are the participants but the sender, found in byte order or, in any other order, by a scan")
    func participantsWithoutTheSender() {
        typealias Core = SyncCore<Int>
        let sorted = (0..<300).map { "u\($0)" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for user in ["u0", "u150", "u299", "u42"] {
            #expect(Core.participants(sorted, without: user) == sorted.filter { $0 != user }, "\(user)")
        }
        #expect(Core.participants(sorted, without: "nobody") == sorted)
        #expect(Core.participants(sorted, without: "u") == sorted)
        // A list in another collation's order: still exactly the others.
        let otherOrder = ["b", "C", "a", "D"]
        for user in otherOrder { #expect(Core.participants(otherOrder, without: user) == otherOrder.filter { $0 != user }, "\(user)") }
        #expect(Core.participants([], without: "a").isEmpty)
    }
}
