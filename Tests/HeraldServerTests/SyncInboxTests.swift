@testable import HeraldServer
import HeraldSync
import Testing

@Suite("Sync inbox: bounded batches")
struct SyncInboxTests {
    @Test("A burst is handed over in batches of at most maxBatch, oldest first, none lost; stop is reported only once drained")
    func batchesAreBounded() {
        let inbox = SyncInbox<Int>(maxBatch: 100)
        for device in 0..<250 { inbox.post(.disconnect(device)) }
        inbox.stop()
        var taken: [Int] = []
        var sizes: [Int] = []
        var stoppedAt: Int?
        for round in 0..<5 {
            let (inputs, stopped) = inbox.take(deadline: 0)
            sizes.append(inputs.count)
            for case .disconnect(let device) in inputs { taken.append(device) }
            if stopped { stoppedAt = round; break }
        }
        #expect(sizes == [100, 100, 50])
        #expect(taken == Array(0..<250))
        #expect(stoppedAt == 2)
    }
}
