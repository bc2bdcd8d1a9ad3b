import HeraldProtocol
@testable import HeraldSync
import Testing

/// Each user's turn on the sync thread (``SyncConfiguration/userBatchMicroseconds``, 2 ms by default): past it the
/// user's later inputs wait for the next batch, in order, and other users' inputs go first; time spent over the turn is
/// owed, and a user who owes sits out batches in which anyone else has work. Driven by a clock the test moves.
@Suite("SyncCore: fair turns per user")
struct SyncCoreFairTurnsTests {
    /// The core's work clock: every reading moves it by ``costPerReading`` microseconds (0 while setting up), so each
    /// measured input costs that much.
    final class WorkClock {
        var costPerReading = 0
        private var ticks = 0
        func read() -> Int {
            ticks += costPerReading
            return ticks
        }
    }

    /// A fixture with alice on devices 1 and 2 and bob on device 3, synced for free; from then on every input costs 3 ms.
    static func fixture(turn: Int = SyncConfiguration().userBatchMicroseconds) throws -> (SyncCoreFixture, WorkClock) {
        let f = try SyncCoreFixture(userBatchMicroseconds: turn)
        let clock = WorkClock()
        f.core.workClock = { clock.read() }
        f.online(1, "alice")
        f.online(2, "alice")
        f.online(3, "bob")
        f.clear()
        clock.costPerReading = 3_000
        return (f, clock)
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
        let (f, _) = try Self.fixture()
        f.process([Self.conversations(1, id: 101), Self.conversations(2, id: 201), Self.conversations(1, id: 102),
                   Self.conversations(3, id: 301), Self.conversations(2, id: 202)])
        #expect(Self.answered(f, 1) == [101])
        #expect(Self.answered(f, 2) == [])
        #expect(Self.answered(f, 3) == [301], "bob's request is not held back by alice's")
        #expect(f.core.hasPostponedInputs)
        #expect(f.core.nextDeadline == .min, "inputs carried over are due at once")
        // Alone, alice then gets one input per batch (each over her turn), in the order she sent them.
        for _ in 0..<3 { f.process([]) }
        #expect(Self.answered(f, 1) == [101, 102])
        #expect(Self.answered(f, 2) == [201, 202])
        #expect(!f.core.hasPostponedInputs)
    }

    @Test("A user who owes time sits out a batch in which someone else has a request, and is served once alone")
    func debtorSitsOutWhileOthersAreServed() throws {
        let (f, _) = try Self.fixture()
        f.process((0..<5).map { Self.conversations(1, id: 100 + $0) })
        #expect(Self.answered(f, 1) == [100])
        let deliveries = f.process([Self.conversations(3, id: 300)])
        #expect(deliveries.flatMap(\.devices) == [3], "only bob is answered in his batch")
        #expect(Self.answered(f, 1) == [100])
        f.process([])
        #expect(Self.answered(f, 1) == [100, 101], "with nobody else waiting alice is served")
    }

    @Test("A user within their turn is served in arrival order with everyone else, in one batch")
    func cheapRequestsShareABatch() throws {
        let (f, clock) = try Self.fixture()
        clock.costPerReading = 100
        f.process([Self.conversations(1, id: 100), Self.conversations(3, id: 300), Self.conversations(1, id: 101)])
        #expect(Self.answered(f, 1) == [100, 101])
        #expect(Self.answered(f, 3) == [300])
        #expect(!f.core.hasPostponedInputs)
    }

    @Test("With no turn limit (0) every input of the batch is handled in it, first come, first served")
    func noLimitHandlesEverything() throws {
        let (f, _) = try Self.fixture(turn: 0)
        f.process((0..<5).map { Self.conversations(1, id: 100 + $0) })
        #expect(Self.answered(f, 1) == [100, 101, 102, 103, 104])
        #expect(!f.core.hasPostponedInputs)
    }

    @Test("A device that leaves while its requests wait leaves after them (its disconnect waits its turn too)")
    func departureKeepsItsPlace() throws {
        let (f, _) = try Self.fixture()
        f.process([Self.conversations(1, id: 100), Self.conversations(1, id: 101), .disconnect(1)])
        #expect(f.core.connectedDeviceCount == 3)
        f.process([])
        #expect(Self.answered(f, 1) == [100, 101])
        f.process([])
        #expect(f.core.connectedDeviceCount == 2)
    }
}
