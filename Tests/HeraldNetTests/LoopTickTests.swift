import HeraldNet
import Testing

@Suite("HeraldNet event loop tick")
struct LoopTickTests {
    @Test("A tick of any size from the options starts the loop or fails with NetError, never traps converting to ns")
    func hugeTick() throws {
        for tick in [1, 1_500] {
            let group = try LoopGroup(threads: 1, tickMilliseconds: tick)
            #expect(group.loops.count == 1)
            group.shutdown()
        }
        for tick in [Int.max / 1_000_000 + 1, Int.max] {
            do {
                let group = try LoopGroup(threads: 1, tickMilliseconds: tick)
                #expect(group.loops.count == 1)
                group.shutdown()
            } catch {
                // A NetError from timerfd_settime is an answer too; only a trap fails this test.
                #expect(error is NetError)
            }
        }
    }
}
