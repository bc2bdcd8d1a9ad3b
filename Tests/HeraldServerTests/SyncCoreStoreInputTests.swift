import HeraldProtocol
@testable import HeraldSync
@testable import HeraldStore
import Testing

/// SyncCore reading values from the database file that a healthy store never writes: no trap, a clear answer.
@Suite("SyncCore: values from the database file")
struct SyncCoreStoreInputTests {
    @Test("R3: a stream row at seq Int64.min in the file makes a resume resync instead of trapping")
    func oldestSeqAtInt64Min() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        f.say(1, in: c, "hello")
        try f.store.connection.execute("UPDATE stream_runs SET first_seq = ? WHERE user_id = 'bob' AND first_seq = 1", .int(.min))
        let answer = f.online(2, "bob", after: 0)
        #expect(answer.mode == .resync)
        #expect(answer.conversations?.map(\.id) == [c])
    }
}
