import CSQLite
import HeraldStoreProtocol

/// The SQLite backend of ``SyncStore``: one file, WAL journal, migrations on open, cached statements.
///
/// Confined to one thread at a time (the server's sync thread): it may be created on one thread and
/// handed to another, which is why it is `@unchecked Sendable`, but calls must never overlap.
/// Other processes (e.g. `herald-server token`) may open the same file at the same time; they wait
/// for each other up to the busy timeout and then get `StoreError` of kind `.busy`.
public final class SQLiteStore: SyncStore, @unchecked Sendable {
    /// How hard a commit pushes data to the disk.
    public enum Synchronous: String, Sendable {
        /// WAL + NORMAL: a commit has written its frames to the WAL with write(2) before it returns, so
        /// it is in the kernel's page cache and survives SIGKILL or any crash of this process. Only an
        /// OS crash or power loss can lose the last commits (the WAL is fsynced at checkpoints).
        case normal = "NORMAL"
        /// WAL + FULL: additionally fsyncs the WAL on every commit, so commits survive power loss.
        /// Group commit amortizes the fsync over a batch of sends.
        case full = "FULL"
    }

    let connection: SQLiteConnection
    /// Savepoint nesting depth; 0 means no transaction is open.
    private var transactionDepth = 0
    /// SQLite rolled back the open transaction on its own (after an I/O error, a full disk, ...): every level still
    /// running fails until the outermost one has ended.
    private var transactionLost = false
    private static let lostTransaction = StoreError(
        kind: .io, message: "the transaction was rolled back by SQLite after an earlier error; nothing of it is stored")
    /// Inside ``batchTransaction(_:)``'s first run: nested transactions open no savepoint (see there).
    private var savepointsDeferred = false
    /// A nested transaction of that run threw after writing: the batch must run again with savepoints.
    private var savepointsNeeded = false
    private struct SavepointsNeeded: Error {}
    /// Whether a transaction (or snapshot) is open.
    var isInTransaction: Bool { transactionDepth > 0 }
    /// About how many messages this store inserted since it last indexed them for search (see
    /// ``indexNewMessages()``): a commit indexes them once there are ``searchIndexBatch``.
    var messagesSinceIndexed = 0
    /// Per-user stream heads and newest runs in memory; see ``StreamCache`` for why that is safe.
    var streams = StreamCache()
    /// Conversation participants (fixed at creation), so a send to a group of 1,000 reads no participant rows.
    var participantsCache = ParticipantsCache()

    /// The path this store was opened with.
    public let path: String
    /// Database files that were readable beyond their owner when this store opened them, and are 0600 now (for the
    /// caller to log: the file holds the signing secret and every message).
    public var fileModeChanges: [DatabaseFileModeChange] { connection.fileModeChanges }
    /// Runs WAL checkpoints off the writer's thread (``init(path:readOnly:synchronous:busyTimeoutMilliseconds:checkpointsInBackground:)``).
    private var checkpointer: SQLiteCheckpointer?

    /// Opens (creating when missing) the database at `path` and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - path: The database file; its directory must exist.
    ///   - readOnly: Open with `SQLITE_OPEN_READONLY`: reads work, every write throws `.readOnly`.
    ///     The file must exist and already carry the current schema.
    ///   - synchronous: `.normal` (default) survives process crashes; `.full` also survives power loss.
    ///   - busyTimeoutMilliseconds: How long to wait for another connection's lock before `.busy`.
    ///   - checkpointsInBackground: Copy the WAL into the file on a thread of its own (``SQLiteCheckpointer``)
    ///     instead of inside the commit that crosses SQLite's threshold. For the server's one writing store.
    public convenience init(
        path: String, readOnly: Bool = false, synchronous: Synchronous = .normal, busyTimeoutMilliseconds: Int32 = 5_000,
        checkpointsInBackground: Bool = false
    ) throws {
        try self.init(
            path: path, readOnly: readOnly, synchronous: synchronous, busyTimeoutMilliseconds: busyTimeoutMilliseconds,
            backgroundCheckpoints: checkpointsInBackground ? SQLiteCheckpointer.Settings() : nil)
    }

    /// The designated initializer; `backgroundCheckpoints` lets tests use a short interval and a small WAL bound.
    init(
        path: String, readOnly: Bool, synchronous: Synchronous, busyTimeoutMilliseconds: Int32,
        backgroundCheckpoints: SQLiteCheckpointer.Settings?
    ) throws {
        self.path = path
        connection = try SQLiteConnection(path: path, readOnly: readOnly, busyTimeoutMilliseconds: busyTimeoutMilliseconds)
        do {
            if !connection.isReadOnly {
                // WAL: readers never block the writer, and a commit is one sequential append.
                try connection.executeScript("PRAGMA journal_mode = WAL")
            }
            try connection.executeScript("PRAGMA synchronous = \(synchronous.rawValue); PRAGMA foreign_keys = ON")
            // A 64 MiB page cache and a 256 MiB memory map keep the hot indexes (stream runs, messages, participants) in
            // memory instead of re-reading pages with pread on every statement. With background checkpoints the writer
            // never checkpoints itself (0 turns SQLite's own off); without, every 4,000 pages (16 MiB of WAL) instead of
            // 1,000 runs the checkpoint's writes and fdatasync on the writing thread a quarter as often.
            let autocheckpoint = backgroundCheckpoints == nil ? 4000 : 0
            try connection.executeScript(
                "PRAGMA cache_size = -65536; PRAGMA mmap_size = 268435456; PRAGMA wal_autocheckpoint = \(autocheckpoint); PRAGMA temp_store = MEMORY")
            try migrate()
            try repairLaggingRuns()
            if let backgroundCheckpoints, !connection.isReadOnly {
                checkpointer = try SQLiteCheckpointer(path: path, settings: backgroundCheckpoints)
            }
        } catch {
            connection.close()
            throw error
        }
    }

    deinit { checkpointer?.stop() }

    /// Opens (creating when missing) the database at `path`; see ``init(path:readOnly:synchronous:busyTimeoutMilliseconds:)``.
    public static func open(path: String, readOnly: Bool = false, synchronous: Synchronous = .normal) throws -> SQLiteStore {
        try SQLiteStore(path: path, readOnly: readOnly, synchronous: synchronous)
    }

    /// The schema version this build writes (`PRAGMA user_version`).
    public static var schemaVersion: Int { Schema.migrations.count }

    private func migrate() throws(StoreError) {
        let latest = Int64(Schema.migrations.count)
        var version = try connection.scalar("PRAGMA user_version") ?? 0
        if version > latest {
            throw StoreError(kind: .other, message: "database schema version \(version) is newer than this build (\(latest))")
        }
        // user_version is a signed field of the file: a negative one would index the migrations out of range.
        if version < 0 {
            throw StoreError(kind: .corrupt, message: "database schema version \(version) is not valid")
        }
        if version == latest { return }
        if connection.isReadOnly {
            throw StoreError(kind: .readOnly, message: "database needs migration from \(version) to \(latest) but is read-only")
        }
        while version < latest {
            try connection.executeScript("BEGIN IMMEDIATE")
            do throws(StoreError) {
                // Re-read under the write lock: another process may have migrated meanwhile.
                version = try connection.scalar("PRAGMA user_version") ?? 0
                if version < 0 { throw StoreError(kind: .corrupt, message: "database schema version \(version) is not valid") }
                if version < latest {
                    try connection.executeScript(Schema.migrations[Int(version)])
                    version += 1
                    try connection.executeScript("PRAGMA user_version = \(version)")
                }
                try connection.executeScript("COMMIT")
            } catch {
                try? connection.executeScript("ROLLBACK")
                throw error
            }
        }
    }

    // MARK: - Transactions and maintenance

    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        // Inside a transaction SQLite has already rolled back, a savepoint would open a new transaction of its own and
        // its RELEASE commit it: what comes after a lost transaction fails with it, up to the outermost level.
        if depth > 0, transactionLost { throw Self.lostTransaction }
        if depth > 0, savepointsDeferred { return try withoutSavepoint(body) }
        let savepoint = "s\(depth)"
        // IMMEDIATE takes the write lock up front, so a busy writer is waited for (busy_timeout)
        // at BEGIN instead of failing later when a read transaction tries to upgrade.
        // Cached statements: every request of a batch opens a savepoint, and sqlite3_exec would parse it each time.
        _ = try connection.execute(depth == 0 ? "BEGIN IMMEDIATE" : "SAVEPOINT \(savepoint)")
        let streamsMark = streams.mark
        let participantsMark = participantsCache.mark
        transactionDepth += 1
        let result: T
        do {
            result = try body()
            if connection.isAutocommit { throw Self.lostTransaction }
        } catch {
            transactionDepth = depth
            if connection.isAutocommit { transactionLost = true }
            streams.rollBack(to: streamsMark)
            // A rolled-back conversation's id may be handed out again: forget what was cached meanwhile.
            participantsCache.rollBack(to: participantsMark)
            if depth == 0 {
                try? connection.executeScript("ROLLBACK")
                streams.endTransaction()
                participantsCache.endTransaction()
                transactionLost = false
            } else if !transactionLost {
                try? connection.executeScript("ROLLBACK TO \(savepoint); RELEASE \(savepoint)")
            }
            throw error
        }
        transactionDepth = depth
        var flushed = false
        do {
            // A nested body wrote and threw without a savepoint to undo it: nothing of this run may commit.
            if depth == 0, savepointsNeeded { throw SavepointsNeeded() }
            if depth == 0 { flushed = try writeDirtyStreams() }
            if depth == 0, messagesSinceIndexed >= Self.searchIndexBatch { try indexNewMessages() }
            _ = try connection.execute(depth == 0 ? "COMMIT" : "RELEASE \(savepoint)")
        } catch {
            // A failed COMMIT (disk full, I/O) may leave the transaction open: end it so the
            // connection stays usable, and report the failure: nothing was committed.
            if depth == 0 {
                try? connection.executeScript("ROLLBACK")
                streams.rollBack(to: streamsMark)
                streams.endTransaction()
                participantsCache.rollBack(to: participantsMark)
                participantsCache.endTransaction()
            }
            throw error
        }
        if depth == 0 {
            streams.endTransaction(committed: true, flushed: flushed)
            participantsCache.endTransaction()
        }
        return result
    }

    /// Runs the batch with no savepoint for its requests first: while one is open, SQLite copies every page a statement
    /// first changes into the savepoint's journal (in memory, in 1 KiB pieces) so it can be undone, which was a sixth
    /// of an acknowledged send's instructions (two savepoints a send: its request's and the insert's), and a nested
    /// body almost never throws after writing (a refusal comes before the writes). When one does, the writes it
    /// made cannot be undone alone: this run is rolled back and the batch runs again, with savepoints.
    public func batchTransaction<T>(_ body: () throws -> T) throws -> T {
        guard transactionDepth == 0, !savepointsDeferred else { return try repeatableTransaction(body) }
        savepointsDeferred = true
        savepointsNeeded = false
        do {
            defer { (savepointsDeferred, savepointsNeeded) = (false, false) }
            return try repeatableTransaction(body)
        } catch is SavepointsNeeded {
            return try repeatableTransaction(body)
        }
    }

    /// A nested transaction of ``batchTransaction(_:)``'s first run: the body runs in the open transaction as it is.
    /// When it throws, what it cached is forgotten as a savepoint's rollback would; when it had also changed rows, the
    /// batch is marked to run again (its end throws ``SavepointsNeeded`` instead of committing).
    private func withoutSavepoint<T>(_ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        let changes = connection.totalChanges
        let streamsMark = streams.mark
        let participantsMark = participantsCache.mark
        transactionDepth += 1
        defer { transactionDepth = depth }
        do {
            let result = try body()
            if connection.isAutocommit { throw Self.lostTransaction }
            return result
        } catch {
            if connection.isAutocommit { transactionLost = true }
            streams.rollBack(to: streamsMark)
            participantsCache.rollBack(to: participantsMark)
            if connection.totalChanges != changes { savepointsNeeded = true }
            throw error
        }
    }

    /// Runs reads as one consistent snapshot. Unlike ``transaction(_:)`` it takes no write lock
    /// (BEGIN DEFERRED), so it works on a read-only database and never waits for another writer.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        try connection.executeScript("BEGIN DEFERRED")
        transactionDepth += 1
        defer {
            transactionDepth = 0
            // A read transaction has nothing to lose; ending it cannot fail in a way that matters.
            try? connection.executeScript("COMMIT")
        }
        return try body()
    }

    public func integrityCheck() throws -> Bool {
        let rows = try connection.query("PRAGMA integrity_check") { row in row.text(0) }
        return rows == ["ok"]
    }

    public func close() {
        // Rows left behind by grown runs are written now, so the next open has nothing to repair.
        if !connection.isReadOnly { try? writeLaggingRuns() }
        checkpointer?.stop()
        checkpointer = nil
        connection.close()
    }

    // MARK: - Meta

    private static let secretKey = "jwt.secret"

    public func secret() throws -> [UInt8]? {
        try connection.queryFirst("SELECT value FROM meta WHERE key = ?", .text(Self.secretKey)) { row in row.blob(0) }
    }

    public func setSecret(_ secret: [UInt8]) throws {
        try connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", .text(Self.secretKey), .blob(secret))
    }

    public func secret(orCreate make: () -> [UInt8]) throws -> [UInt8] {
        if let existing = try secret() { return existing }
        return try transaction {
            // Re-read under the write lock: another process may have created it meanwhile.
            if let existing = try secret() { return existing }
            let fresh = make()
            try setSecret(fresh)
            return fresh
        }
    }

    public func meta(_ key: String) throws -> String? {
        try connection.queryFirst("SELECT CAST(value AS TEXT) FROM meta WHERE key = ?", .text(key)) { row in row.text(0) }
    }

    public func setMeta(_ key: String, _ value: String?) throws {
        if let value {
            try connection.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", .text(key), .text(value))
        } else {
            try connection.execute("DELETE FROM meta WHERE key = ?", .text(key))
        }
    }

    // MARK: - Users

    public func upsertUser(id: String, name: String) throws {
        try connection.execute(
            "INSERT INTO users (id, name) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET name = excluded.name",
            .text(id), .text(name))
    }

    public func user(id: String) throws -> UserRecord? {
        try connection.queryFirst("SELECT id, name FROM users WHERE id = ?", .text(id)) { row in
            UserRecord(id: row.text(0), name: row.text(1))
        }
    }
}
