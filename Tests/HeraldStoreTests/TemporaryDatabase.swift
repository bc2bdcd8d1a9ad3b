import Foundation
import HeraldStore

/// A fresh SQLite database file in its own temporary directory, removed when the value goes away.
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

/// An SQLite store with users alice, bob and carol, plus the file that holds it (for SQLite-only tests).
func sqliteStoreWithUsers() throws -> (TemporaryDatabase, SQLiteStore) {
    let database = try TemporaryDatabase()
    return (database, try withUsers(database.open()))
}
