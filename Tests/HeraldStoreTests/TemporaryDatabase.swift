import Foundation
import HeraldStore

/// A fresh database file in its own temporary directory, removed when the value goes away.
final class TemporaryDatabase {
    let directory: URL
    var path: String { directory.appendingPathComponent("herald.sqlite").path }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func open(readOnly: Bool = false) throws -> SQLiteStore {
        try SQLiteStore(path: path, readOnly: readOnly)
    }
}

/// A store with users alice, bob and carol, plus the database that holds it.
func storeWithUsers() throws -> (TemporaryDatabase, SQLiteStore) {
    let database = try TemporaryDatabase()
    let store = try database.open()
    for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] {
        try store.upsertUser(id: id, name: name)
    }
    return (database, store)
}

/// Inserts `count` text messages from `sender` and returns them in order.
func send(_ count: Int, from sender: String, in conversation: String, store: SQLiteStore, startingAt now: Int64 = 1_000) throws -> [MessageRecord] {
    try (0..<count).map { index in
        try store.insertMessage(
            conversation: conversation, sender: sender, clientMessageId: "\(sender)-\(UUID().uuidString)", kind: .text,
            text: "message \(index)", imageURL: nil, now: now + Int64(index)
        ).message
    }
}
