import HeraldProtocol
@testable import HeraldSync
import Testing

/// Each user's turn on the sync thread (``SyncConfiguration/userBatchMicroseconds``): past it the user's later inputs
/// wait for the next batch, in order, and other users' inputs go first. Driven with a clock that makes every input
/// cost 3 ms, over the 2 ms default turn.
@Suite("SyncCore: fair turns per user")
struct SyncCoreFairTurnsTests {
    /// A fixture whose every measured input costs 3,000 µs (the clock moves 3 ms at each reading).
    static func fixture() throws -> SyncCoreFixture {
        let f = try SyncCoreFixture()
        var ticks = 0
        f.core.workClock = {
            ticks += 3_000
            return ticks
        }
        return f
    }

    static func conversations(_ device: Int, id: Int) -> SyncInput<Int> {
        .text(device, Array(#"{"id":\#(id),"type":"conversations"}"#.utf8))
    }

    /// The ids of the responses `device` received, in order.
    static func answered(_ f: SyncCoreFixture, _ device: Int) -> [Int] {
        f.frames(device).compactMap { if case .response(let response) = $0 { response.id } else { nil } }
    }

    @Test("A user past their turn: the rest of their requests wait for the next batch, in order; another user's are answered in the same batch")
    func busyUserWaitsOthersDoNot() throws {
        let f = try Self.fixture()
        f.online(1, "alice")
        f.online(2, "alice")
        f.online(3, "bob")
        f.clear()
        f.process([Self.conversations(1, id: 101), Self.conversations(2, id: 201), Self.conversations(1, id: 102),
                   Self.conversations(3, id: 301), Self.conversations(2, id: 202)])
        #expect(Self.answered(f, 1) == [101])
        #expect(Self.answered(f, 2) == [])
        #expect(Self.answered(f, 3) == [301], "bob's request is not held back by alice's")
        #expect(f.core.hasPostponedInputs)
        #expect(f.core.nextDeadline == .min, "inputs carried over are due at once")
        // Each batch then answers one more of alice's, in the order she sent them.
        f.process([])
        f.process([])
        f.process([])
        #expect(Self.answered(f, 1) == [101, 102])
        #expect(Self.answered(f, 2) == [201, 202])
        #expect(!f.core.hasPostponedInputs)
    }

    @Test("A new batch serves users with nothing carried over before the backlog of a busy user")
    func newcomersGoBeforeTheBacklog() throws {
        let f = try Self.fixture()
        f.online(1, "alice")
        f.online(3, "bob")
        f.clear()
        f.process((0..<5).map { Self.conversations(1, id: 100 + $0) })
        #expect(Self.answered(f, 1) == [100])
        let deliveries = f.process([Self.conversations(3, id: 300)])
        let order = deliveries.flatMap(\.devices)
        #expect(order.first == 3, "bob is answered first: \(order)")
        #expect(Self.answered(f, 3) == [300])
        #expect(Self.answered(f, 1) == [100, 101])
    }

    @Test("With no turn limit (0) every input of the batch is handled in it, first come, first served")
    func noLimitHandlesEverything() throws {
        let f = try SyncCoreFixture(userBatchMicroseconds: 0)
        var ticks = 0
        f.core.workClock = {
            ticks += 3_000
            return ticks
        }
        f.online(1, "alice")
        f.clear()
        f.process((0..<5).map { Self.conversations(1, id: 100 + $0) })
        #expect(Self.answered(f, 1) == [100, 101, 102, 103, 104])
        #expect(!f.core.hasPostponedInputs)
    }

    @Test("A device that leaves while its requests wait leaves after them (its disconnect waits its turn too)")
    func departureKeepsItsPlace() throws {
        let f = try Self.fixture()
        f.online(1, "alice")
        f.clear()
        f.process([Self.conversations(1, id: 100), Self.conversations(1, id: 101), .disconnect(1)])
        #expect(f.core.connectedDeviceCount == 1)
        f.process([])
        #expect(Self.answered(f, 1) == [100, 101])
        f.process([])
        #expect(f.core.connectedDeviceCount == 0)
    }
}
