import Foundation
import Glibc
@testable import HeraldStore
import Testing

/// API keys as stored: scope, expiry and revocation on every backend, and the migration that added them.
@Suite("API keys in the store")
struct APIKeyStoreTests {
    @Test("A key keeps its scope and expiry; listing is oldest first; revoking stamps it once and an unknown id is nil",
          arguments: StoreBackend.allCases)
    func scopeExpiryAndRevocation(_ backend: StoreBackend) throws {
        let database = try backend.makeDatabase()
        let store = try database.open()
        defer { store.close() }
        try store.insertAPIKey(APIKeyRecord(id: "b", name: "reader", hash: [2], createdAt: 20, scope: .read, expiresAt: 1_000))
        try store.insertAPIKey(APIKeyRecord(id: "a", name: "writer", hash: [1], createdAt: 10))
        #expect(try store.apiKeys().map(\.id) == ["a", "b"])
        #expect(try store.apiKey(id: "b") == APIKeyRecord(id: "b", name: "reader", hash: [2], createdAt: 20, scope: .read, expiresAt: 1_000))
        #expect(try store.apiKey(id: "a")?.scope == .full && store.apiKey(id: "a")?.expiresAt == nil)

        #expect(try store.revokeAPIKey(id: "a", at: 500)?.revokedAt == 500)
        #expect(try store.revokeAPIKey(id: "a", at: 900)?.revokedAt == 500, "a second revocation keeps the first time")
        #expect(try store.revokeAPIKey(id: "missing", at: 900) == nil)
        let reopened = try database.open()
        defer { reopened.close() }
        #expect(try reopened.apiKey(id: "a")?.revokedAt == 500, "another connection (the running server's) sees the revocation")
    }

    @Test("A key is usable until its expiry (exclusive) and never once revoked; read permits only reads, full everything")
    func usability() {
        let key = APIKeyRecord(id: "k", name: "n", hash: [1], createdAt: 0, scope: .read, expiresAt: 100)
        #expect(key.isUsable(now: 99) && !key.isUsable(now: 100))
        var revoked = APIKeyRecord(id: "k", name: "n", hash: [1], createdAt: 0)
        #expect(revoked.isUsable(now: .max))
        revoked.revokedAt = 5
        #expect(!revoked.isUsable(now: 0))
        #expect(APIKeyScope.read.permits(.read) && !APIKeyScope.read.permits(.full))
        #expect(APIKeyScope.full.permits(.read) && APIKeyScope.full.permits(.full))
    }

    @Test("Migration 5 keeps a version-4 file's keys working as before: full scope, no expiry, not revoked")
    func migrationFromVersion4() throws {
        let database = try TemporaryDatabase()
        do {
            let old = try SQLiteConnection(path: database.path, readOnly: false, busyTimeoutMilliseconds: 1_000)
            for migration in Schema.migrations[0..<4] { try old.executeScript(migration) }
            try old.executeScript("PRAGMA user_version = 4")
            try old.executeScript("INSERT INTO api_keys (id, name, hash, created_at) VALUES ('old', 'legacy', x'0102', 7)")
            old.close()
        }
        let store = try database.open()
        defer { store.close() }
        #expect(try store.apiKey(id: "old") == APIKeyRecord(id: "old", name: "legacy", hash: [1, 2], createdAt: 7, scope: .full))
        #expect(throws: StoreError.self, "the schema refuses a scope this build does not know") {
            try store.connection.execute("UPDATE api_keys SET scope = 'admin' WHERE id = 'old'")
        }
    }

    // The umask is process-wide, so the binary tests (HardeningSecretsTests) check the files under umask 000; here the
    // test process's own umask (022 usually) is enough to show SQLite's default 0644 is not what the store makes.
    @Test("A new database file and its -wal and -shm are 0600, and an existing 0644 one with its -wal is narrowed to 0600 on open")
    func databaseFilesAreOwnerOnly() throws {
        let database = try TemporaryDatabase()
        let store = try database.open()
        try store.upsertUser(id: "alice", name: "Alice")
        func mode(_ path: String) -> mode_t? {
            var status = stat()
            return stat(path, &status) == 0 ? status.st_mode & 0o7777 : nil
        }
        #expect(mode(database.path) == 0o600 && mode(database.path + "-wal") == 0o600 && mode(database.path + "-shm") == 0o600)
        #expect(store.fileModeChanges.isEmpty)

        for suffix in ["", "-wal"] { try #require(chmod(database.path + suffix, 0o644) == 0) }
        let second = try database.open()
        defer { second.close() }
        store.close()
        #expect(second.fileModeChanges.map(\.path) == [database.path, database.path + "-wal"])
        #expect(second.fileModeChanges.allSatisfy { $0.oldMode == 0o644 && $0.newMode == 0o600 })
        #expect(mode(database.path) == 0o600 && mode(database.path + "-wal") == 0o600)
    }
}
