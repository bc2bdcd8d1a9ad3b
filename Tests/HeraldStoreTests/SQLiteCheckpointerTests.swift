import Foundation
@testable import HeraldStore
import Testing

@Suite("SQLite: WAL checkpoints on a thread of their own")
struct SQLiteCheckpointerTests {
    @Test("Steady commits: the background thread copies the WAL into the file, and the WAL starts over instead of growing")
    func walStaysBounded() throws {
        let database = try TemporaryDatabase()
        let settings = SQLiteCheckpointer.Settings(interval: 0.01, restartFrames: 64)
        let store = try SQLiteStore(
            path: database.path, readOnly: false, synchronous: .normal, busyTimeoutMilliseconds: 5_000, backgroundCheckpoints: settings)
        defer { store.close() }
        try store.upsertUser(id: "alice", name: "Alice")
        try store.upsertUser(id: "bob", name: "Bob")
        let conversation = try store.findOrCreateDirect(between: "alice", and: "bob", now: 1).conversation
        // The writer leaves checkpoints to the thread.
        #expect(try store.connection.scalar("PRAGMA wal_autocheckpoint") == 0)
        func size(_ path: String) -> Int { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 }
        let text = String(repeating: "x", count: 2_000)
        var largestWAL = 0
        var written = 0
        // About 8 MB of messages, one transaction per 10 (each commit appends its pages to the WAL).
        for batch in 0..<400 {
            try store.transaction {
                for index in 0..<10 {
                    _ = try store.insertMessage(
                        conversation: conversation.id, sender: "alice", clientMessageId: "b\(batch)-\(index)", kind: .text, text: text, imageURL: nil,
                        now: 2)
                }
            }
            written += 10 * text.utf8.count
            largestWAL = max(largestWAL, size(database.path + "-wal"))
            if batch % 40 == 0 { Thread.sleep(forTimeInterval: 0.02) }
        }
        // Without checkpoints the WAL would hold everything written (> 8 MB); with the thread's RESTARTs at 64 frames it
        // starts over again and again.
        #expect(written >= 8_000_000)
        #expect(largestWAL < written / 2, "largest WAL \(largestWAL) B for \(written) B written")
        // The data reached the database file itself while the store was open.
        let deadline = Date().addingTimeInterval(10)
        while size(database.path) < written / 2, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(size(database.path) >= written / 2)
        #expect(try store.history(conversation: conversation.id, before: nil, limit: 5_000).count == 4_000)
    }
}
