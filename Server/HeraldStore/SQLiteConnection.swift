import CSQLite
import Glibc
import HeraldStoreProtocol

/// One sqlite3 connection with a cache of prepared statements.
///
/// Every call returns errors as `StoreError`; nothing here traps on a failing statement.
/// Not thread-safe: it belongs to the single thread that owns the `SQLiteStore`.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    private var statements: [SQLStatementKey: OpaquePointer] = [:]
    /// The busy handler's state (its timeout and when the current wait began); lives as long as the connection.
    private let busyState = UnsafeMutablePointer<csqlite_busy_state>.allocate(capacity: 1)
    /// Files whose group and other permissions this open took away (see ``DatabaseFileMode``).
    let fileModeChanges: [DatabaseFileModeChange]

    init(path: String, readOnly: Bool, busyTimeoutMilliseconds: Int32) throws(StoreError) {
        _ = Self.processSettings
        // A read-only open creates nothing and may be another user's; a writer owns the files and keeps them 0600.
        var changes = readOnly ? [] : try DatabaseFileMode.prepareDatabase(at: path)
        // NOMUTEX: the store is confined to one thread, so SQLite's own mutexes are pure overhead.
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX
        var db: OpaquePointer?
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_close_v2(db)
            throw StoreError.sqlite(code, message: "open \(path): \(message)")
        }
        if !readOnly {
            do throws(StoreError) {
                changes += try DatabaseFileMode.protectCompanions(of: path)
            } catch {
                sqlite3_close_v2(db)
                throw error
            }
        }
        handle = db
        fileModeChanges = changes
        sqlite3_extended_result_codes(db, 1)
        // Waits for a lock in fine steps: the writer is woken within 0.1 ms of the checkpointer letting go.
        busyState.initialize(to: csqlite_busy_state(timeout_us: Int64(busyTimeoutMilliseconds) * 1_000, started: timespec()))
        csqlite_busy_timeout_fine(db, busyState)
    }

    deinit {
        close()
        busyState.deallocate()
    }

    /// Applied once, before the process's first connection: SQLite's allocation statistics take a global mutex on
    /// every allocation (~5% of the server under an insert load), and nothing reads them.
    private static let processSettings: Void = { _ = csqlite_disable_memory_statistics() }()

    /// Whether the connection was opened read-only or the file could only be opened for reading.
    var isReadOnly: Bool {
        guard let handle else { return true }
        return sqlite3_db_readonly(handle, "main") == 1
    }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    var changes: Int {
        guard let handle else { return 0 }
        return Int(sqlite3_changes(handle))
    }

    /// Rows changed by every INSERT, UPDATE and DELETE since the connection opened: a body that leaves it unchanged
    /// wrote nothing (what a foreign key action or trigger changes comes with a row its statement changed).
    var totalChanges: Int64 {
        guard let handle else { return 0 }
        return sqlite3_total_changes64(handle)
    }

    /// The rowid of the most recent successful INSERT.
    var lastInsertRowID: Int64 {
        guard let handle else { return 0 }
        return sqlite3_last_insert_rowid(handle)
    }

    /// Finalizes the cached statements and closes the connection; later calls throw.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements without parameters or results (schema, pragmas, BEGIN/COMMIT).
    func executeScript(_ sql: String) throws(StoreError) {
        let db = try open()
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(db, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(errorMessage)
            throw StoreError.sqlite(sqlite3_extended_errcode(db), message: "\(message) [\(sql.prefix(60))]")
        }
    }

    /// Runs a cached statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ bindings: SQLiteValue...) throws(StoreError) -> Int {
        try execute(sql, bindings: bindings)
    }

    /// The same, with the values in an array (a statement whose number of values varies).
    @discardableResult
    func execute(_ sql: String, bindings: [SQLiteValue]) throws(StoreError) -> Int {
        try withStatement(sql, bindings) { (_: SQLiteRow) throws(StoreError) -> Void in }
        return changes
    }

    /// Runs a cached statement and maps every row.
    func query<T>(_ sql: String, _ bindings: SQLiteValue..., row map: (SQLiteRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        var results: [T] = []
        try withStatement(sql, bindings) { (row: SQLiteRow) throws(StoreError) in results.append(try map(row)) }
        return results
    }

    /// Runs a cached statement and maps its first row, if any.
    func queryFirst<T>(_ sql: String, _ bindings: SQLiteValue..., row map: (SQLiteRow) throws(StoreError) -> T) throws(StoreError) -> T? {
        var result: T?
        try withStatement(sql, bindings) { (row: SQLiteRow) throws(StoreError) in
            if result == nil { result = try map(row) }
        }
        return result
    }

    /// Runs a cached statement whose first row's first column is an integer.
    func scalar(_ sql: String, _ bindings: SQLiteValue...) throws(StoreError) -> Int64? {
        var result: Int64?
        try withStatement(sql, bindings) { (row: SQLiteRow) throws(StoreError) in
            if result == nil, !row.isNull(0) { result = row.int(0) }
        }
        return result
    }

    /// Runs a WAL checkpoint of the given mode (`SQLITE_CHECKPOINT_PASSIVE`, `…_RESTART`, …) and returns the WAL's
    /// size in frames and how many of them are now in the database file.
    func checkpoint(mode: Int32) throws(StoreError) -> (walFrames: Int, checkpointed: Int) {
        let db = try open()
        var log: Int32 = 0
        var done: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(db, nil, mode, &log, &done)
        guard code == SQLITE_OK else {
            throw StoreError.sqlite(sqlite3_extended_errcode(db), message: "checkpoint: \(String(cString: sqlite3_errmsg(db)))")
        }
        return (Int(log), Int(done))
    }

    /// Whether no transaction is open. SQLite rolls a whole transaction back by itself after some errors (I/O, a full
    /// disk, no memory: "the transaction may have been rolled back automatically"), and then this turns true while a
    /// savepoint of the caller's is still thought to be open.
    var isAutocommit: Bool { handle.map { sqlite3_get_autocommit($0) != 0 } ?? true }

    // MARK: - Internals

    private func open() throws(StoreError) -> OpaquePointer {
        guard let handle else { throw StoreError(kind: .other, message: "the store is closed") }
        return handle
    }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        let key = SQLStatementKey(sql)
        if let statement = statements[key] { return statement }
        let db = try open()
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw StoreError.sqlite(sqlite3_extended_errcode(db), message: "\(String(cString: sqlite3_errmsg(db))) [\(sql)]")
        }
        statements[key] = statement
        return statement
    }

    /// Bytes the text and blob values of `bindings` take (at least 1, so the buffer is never empty).
    private static func borrowedByteCount(_ bindings: [SQLiteValue]) -> Int {
        var total = 1
        for value in bindings {
            switch value {
            case .text(let string): total += string.utf8.count
            case .blob(let bytes): total += bytes.count
            case .int, .null: break
            }
        }
        return total
    }

    /// Copies `string`'s UTF-8 to `place`; returns its length.
    private static func copyUTF8(of string: String, to place: UnsafeMutableRawPointer) -> Int {
        var string = string
        return string.withUTF8 { bytes in
            if let base = bytes.baseAddress { place.copyMemory(from: base, byteCount: bytes.count) }
            return bytes.count
        }
    }

    private func withStatement(_ sql: String, _ bindings: [SQLiteValue], _ each: (SQLiteRow) throws(StoreError) -> Void) throws(StoreError) {
        let db = try open()
        let statement = try prepared(sql)
        // Text and blob values are copied into one buffer the statement borrows until it is reset (SQLITE_STATIC):
        // bound as SQLITE_TRANSIENT, SQLite allocated and copied each one (perf of a /sync group of 1,000: the 64-row
        // upserts of stream runs spent more in malloc for their user ids than in the rest of binding).
        let borrowed = UnsafeMutableRawPointer.allocate(byteCount: Self.borrowedByteCount(bindings), alignment: 8)
        defer { borrowed.deallocate() }
        // Reset and unbind whatever happens, so the cached statement never holds a read transaction open (and no longer
        // names `borrowed` once it goes).
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var used = 0
        for (offset, value) in bindings.enumerated() {
            let index = Int32(offset + 1)
            let code: Int32
            switch value {
            case .int(let number):
                code = sqlite3_bind_int64(statement, index, number)
            case .text(let string):
                // Never a NULL pointer (that would bind SQL NULL): an empty string is bound at the buffer's start.
                let place = borrowed + used
                let length = Self.copyUTF8(of: string, to: place)
                used += length
                code = sqlite3_bind_text(statement, index, place.assumingMemoryBound(to: CChar.self), Int32(length), nil)
            case .blob(let bytes):
                // A NULL pointer would bind SQL NULL, so the empty blob is bound as a zero-length zeroblob.
                if bytes.isEmpty {
                    code = sqlite3_bind_zeroblob(statement, index, 0)
                } else {
                    let place = borrowed + used
                    bytes.withUnsafeBytes { place.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                    used += bytes.count
                    code = sqlite3_bind_blob(statement, index, place, Int32(bytes.count), nil)
                }
            case .null:
                code = sqlite3_bind_null(statement, index)
            }
            guard code == SQLITE_OK else {
                throw StoreError.sqlite(code, message: "bind \(index): \(String(cString: sqlite3_errmsg(db))) [\(sql)]")
            }
        }
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_ROW {
                try each(SQLiteRow(statement: statement))
            } else if code == SQLITE_DONE {
                return
            } else {
                throw StoreError.sqlite(sqlite3_extended_errcode(db), message: "\(String(cString: sqlite3_errmsg(db))) [\(sql)]")
            }
        }
    }
}

/// The current row of a stepping statement; valid only inside the row callback.
struct SQLiteRow {
    let statement: OpaquePointer

    func isNull(_ column: Int32) -> Bool {
        sqlite3_column_type(statement, column) == SQLITE_NULL
    }

    func int(_ column: Int32) -> Int64 {
        sqlite3_column_int64(statement, column)
    }

    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func optionalInt(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }
}
