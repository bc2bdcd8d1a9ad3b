import CLibPQ
import Foundation
import HeraldStore

/// One libpq connection with a cache of server-side prepared statements.
///
/// Parameters and results travel in binary format (no number parsing or bytea hex on either side).
/// Every call returns errors as `StoreError`; nothing here traps on a failing statement or a lost server.
/// Not thread-safe: it belongs to the single thread that owns its store.
///
/// A lost connection is re-established only between transactions (``transactionDepth`` is 0): inside one,
/// reconnecting would silently run the rest of the body in autocommit mode, so the call fails instead
/// and the caller's transaction rolls back as a whole.
final class PGConnection {
    private(set) var handle: OpaquePointer?
    /// SQL text to server-side statement name ("h1", "h2", …); forgotten when the connection is re-established.
    private var statements: [String: String] = [:]
    private var statementCounter = 0
    private let conninfo: String
    /// Session settings (SET …) applied after every (re)connect.
    private let sessionSetup: String
    /// Savepoint nesting depth the owning store keeps; 0 means no transaction is open.
    var transactionDepth = 0
    /// Rows changed by the most recent statement (INSERT/UPDATE/DELETE) or returned (SELECT).
    private(set) var changes = 0
    /// Requests sent that waited for PostgreSQL's answer (a pipeline counts once): what the sync thread spends
    /// waiting on the network is this times the round-trip time.
    private(set) var roundTrips = 0

    /// Connects to `conninfo` (a `postgres://` URI or `key=value` pairs) and runs `sessionSetup`.
    init(conninfo: String, sessionSetup: String) throws(StoreError) {
        self.conninfo = conninfo
        self.sessionSetup = sessionSetup
        try connect()
    }

    deinit { close() }

    /// Closes the connection; later calls throw `.other`.
    func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        statements = [:]
        closed = true
    }

    private var closed = false

    /// The server's process id for this session (what `pg_terminate_backend` takes).
    var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// Runs one or more statements without parameters (schema, BEGIN/COMMIT, SET) and returns the
    /// command tag of the last one ("COMMIT", "ROLLBACK", "SELECT 1", …).
    @discardableResult
    func executeScript(_ sql: String) throws(StoreError) -> String {
        try script(sql) { result in String(cString: PQcmdStatus(result)) }
    }

    /// Runs a script whose last statement returns one integer (text format), e.g. `…; UPDATE … RETURNING n`.
    func scriptInteger(_ sql: String) throws(StoreError) -> Int64? {
        try script(sql) { result in
            guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) > 0, PQgetisnull(result, 0, 0) == 0 else { return nil }
            return Int64(String(cString: PQgetvalue(result, 0, 0)))
        }
    }

    /// Runs `sql` with the simple protocol and reads the last statement's result. Queued savepoint commands go first,
    /// in the same round trip (the simple protocol takes several statements).
    private func script<T>(_ sql: String, read: (OpaquePointer) -> T) throws(StoreError) -> T {
        if sql == "ROLLBACK" {
            refusedOpening = nil
        } else if let refusedOpening {
            throw refusedOpening
        }
        let connection = try open()
        let deferred = takeLeading()
        let text = deferred.isEmpty ? sql : (deferred + [sql]).joined(separator: "; ")
        roundTrips += 1
        guard let result = PQexec(connection, text) else { throw lostConnection(connection, sql: sql) }
        defer { PQclear(result) }
        try check(result, connection, sql: sql)
        return read(result)
    }

    /// Savepoint commands not sent yet (see ``defer(_:)``).
    private var deferredCommands: [String] = []

    /// The opening commands of a transaction that has not reached the server yet (see ``beginWithNextStatement(_:)``).
    private var unsentBegin: [String] = []

    /// Opens a transaction with the next statement instead of a round trip of its own: `commands` (`BEGIN` and what
    /// must run first in it) go out in one pipeline with it, ahead of any queued savepoint command. Every command must
    /// return nothing the caller needs: a check among them fails the statement they travel with.
    func beginWithNextStatement(_ commands: [String]) {
        unsentBegin = commands
    }

    /// Set when the server refused the opening of the transaction because another writer came first
    /// (``PostgresSchema/anotherWriterState``): every later statement of that transaction would only fail, so each
    /// fails here without a round trip, until the transaction is rolled back.
    private(set) var refusedOpening: StoreError?

    /// Whether the open transaction has not reached the server yet: nothing of it ran.
    var transactionUnsent: Bool { !unsentBegin.isEmpty }

    /// Forgets a transaction that never reached the server (its body ran no statement): nothing to commit or roll back.
    func dropUnsentTransaction() {
        unsentBegin.removeAll()
        refusedOpening = nil
        deferredCommands.removeAll(keepingCapacity: true)
    }

    /// Queues a command that returns nothing and cannot fail on a sound transaction (`SAVEPOINT`, `RELEASE
    /// SAVEPOINT`): it goes out in one pipeline with the next statement instead of costing a round trip of its own.
    /// A request's savepoint then travels with the request's first statement, and its release with the next one.
    func `defer`(_ command: String) {
        deferredCommands.append(command)
    }

    /// Drops a queued command that has not been sent (a savepoint whose body ran no statement); false when it was
    /// sent already.
    func cancelDeferred(_ command: String) -> Bool {
        guard let index = deferredCommands.lastIndex(of: command) else { return false }
        deferredCommands.removeSubrange(index...)
        return true
    }

    /// Forgets every queued command: COMMIT and ROLLBACK end every savepoint anyway.
    func discardDeferred() {
        deferredCommands.removeAll(keepingCapacity: true)
    }

    /// What must go out ahead of the next statement: an unsent transaction's opening, then queued savepoint commands.
    private func takeLeading() -> [String] {
        guard !unsentBegin.isEmpty || !deferredCommands.isEmpty else { return [] }
        defer {
            unsentBegin.removeAll()
            deferredCommands.removeAll(keepingCapacity: true)
        }
        return unsentBegin + deferredCommands
    }

    /// Sends `commands`, then the statement `send` queues, then `trailing`, in one pipeline (one round trip), and
    /// returns the statement's result with `trailing`'s command tag. A failing command fails the statement with the
    /// command's error; after a failure PostgreSQL runs nothing more of the pipeline (`trailing` included).
    private func pipelined(
        _ commands: [String], _ connection: OpaquePointer, trailing: String?, send: (OpaquePointer) -> Bool
    ) -> (result: OpaquePointer?, trailingTag: String?) {
        guard PQenterPipelineMode(connection) == 1 else { return (nil, nil) }
        defer { PQexitPipelineMode(connection) }
        for command in commands {
            guard PQsendQueryParams(connection, command, 0, nil, nil, nil, nil, 0) == 1 else { return (nil, nil) }
        }
        guard send(connection) else { return (nil, nil) }
        if let trailing, PQsendQueryParams(connection, trailing, 0, nil, nil, nil, nil, 0) != 1 { return (nil, nil) }
        guard PQpipelineSync(connection) == 1 else { return (nil, nil) }
        let expected = commands.count + 1 + (trailing == nil ? 0 : 1)
        var results: [OpaquePointer] = []
        // Each queued query yields its result, then NULL; the sync point ends the pipeline.
        for _ in 0..<expected {
            guard let result = PQgetResult(connection) else { break }
            results.append(result)
            while let extra = PQgetResult(connection) { PQclear(extra) }
        }
        while let sync = PQgetResult(connection) {
            let isSync = PQresultStatus(sync) == PGRES_PIPELINE_SYNC
            PQclear(sync)
            if isSync { break }
        }
        var trailingTag: String?
        if trailing != nil, results.count == expected, let last = results.last, PQresultStatus(last) == PGRES_COMMAND_OK {
            trailingTag = String(cString: PQcmdStatus(last))
        }
        let statement = results.count > commands.count ? results[commands.count] : results.last
        let chosen = results.first { result in
            let status = PQresultStatus(result)
            return status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK && status != PGRES_PIPELINE_ABORTED
        } ?? statement
        for result in results where result != chosen { PQclear(result) }
        return (chosen, trailingTag)
    }

    /// Ends a transaction the server has open on a live session although the store opened none (a script that began
    /// one failed after its BEGIN), so that the session takes new transactions again.
    func rollBackStrayTransaction() {
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) != PQTRANS_IDLE else { return }
        roundTrips += 1
        if let result = PQexec(handle, "ROLLBACK") { PQclear(result) }
    }

    /// Whether the server considers the current transaction failed (a statement errored outside a savepoint).
    var transactionFailed: Bool {
        guard let handle else { return true }
        return PQtransactionStatus(handle) == PQTRANS_INERROR
    }

    /// Runs a prepared statement that returns no rows; returns the number of rows it changed.
    @discardableResult
    func execute(_ sql: String, _ bindings: PGValue...) throws(StoreError) -> Int {
        try execute(sql, bindings)
    }

    /// The same, with the parameters as an array.
    @discardableResult
    func execute(_ sql: String, _ bindings: [PGValue]) throws(StoreError) -> Int {
        try withResult(sql, bindings) { (_: PGRow) throws(StoreError) -> Void in }
        return changes
    }

    /// Runs a prepared statement, then `command` (such as `COMMIT`) in the same round trip, and returns `command`'s tag.
    /// A failing statement fails the call and `command` does not run.
    func execute(_ sql: String, _ bindings: [PGValue], then command: String) throws(StoreError) -> String {
        var tag: String?
        try withResult(sql, bindings, trailing: command, trailingTag: &tag) { (_: PGRow) throws(StoreError) -> Void in }
        guard let tag else { throw StoreError(kind: .io, message: "no answer to \(command) [\(sql.prefix(80))]") }
        return tag
    }

    /// Runs a prepared statement and maps every row.
    func query<T>(_ sql: String, _ bindings: PGValue..., row map: (PGRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        var results: [T] = []
        try withResult(sql, bindings) { (row: PGRow) throws(StoreError) in results.append(try map(row)) }
        return results
    }

    /// Runs a prepared statement and maps its first row, if any.
    func queryFirst<T>(_ sql: String, _ bindings: PGValue..., row map: (PGRow) throws(StoreError) -> T) throws(StoreError) -> T? {
        var result: T?
        try withResult(sql, bindings) { (row: PGRow) throws(StoreError) in
            if result == nil { result = try map(row) }
        }
        return result
    }

    /// Runs a prepared statement whose first row's first column is an integer (NULL gives nil).
    func scalar(_ sql: String, _ bindings: PGValue...) throws(StoreError) -> Int64? {
        var result: Int64?
        try withResult(sql, bindings) { (row: PGRow) throws(StoreError) in
            if result == nil, !row.isNull(0) { result = row.int(0) }
        }
        return result
    }

    // MARK: - Internals

    private func connect() throws(StoreError) {
        guard let connection = PQconnectdb(conninfo) else {
            throw StoreError(kind: .io, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw StoreError(kind: .io, message: "connect to PostgreSQL: \(message)")
        }
        handle = connection
        statements = [:]
        refusedOpening = nil
        // A transaction that never reached the lost connection goes to this one whole: its opening and savepoints.
        if unsentBegin.isEmpty { deferredCommands = [] }
        if !sessionSetup.isEmpty {
            let result = PQexec(connection, sessionSetup)
            defer { if let result { PQclear(result) } }
            do throws(StoreError) {
                guard let result else { throw lostConnection(connection, sql: sessionSetup) }
                try check(result, connection, sql: sessionSetup)
            } catch {
                PQfinish(connection)
                handle = nil
                throw error
            }
        }
    }

    /// The live connection, re-established first when it was lost and no transaction is open (or none of it was sent).
    private func open() throws(StoreError) -> OpaquePointer {
        guard !closed else { throw StoreError(kind: .other, message: "the store is closed") }
        // A session still in pipeline mode (a pipeline that failed half-sent, so it could not be left) takes no
        // other command, while libpq still calls it healthy: it would fail every statement for good. Treated as lost.
        if let handle, PQstatus(handle) == CONNECTION_OK, PQpipelineStatus(handle) == PQ_PIPELINE_OFF { return handle }
        guard transactionDepth == 0 || transactionUnsent else {
            throw StoreError(kind: .io, message: "the connection to PostgreSQL was lost inside a transaction")
        }
        if let handle { PQfinish(handle) }
        handle = nil
        try connect()
        guard let handle else { throw StoreError(kind: .io, message: "no connection to PostgreSQL") }
        return handle
    }

    private func prepared(_ sql: String, _ bindings: [PGValue], _ connection: OpaquePointer) throws(StoreError) -> String {
        if let name = statements[sql] { return name }
        statementCounter += 1
        let name = "h\(statementCounter)"
        let types = bindings.map { $0.type.rawValue }
        roundTrips += 1
        let result = types.withUnsafeBufferPointer { types in
            PQprepare(connection, name, sql, Int32(types.count), types.baseAddress)
        }
        guard let result else { throw lostConnection(connection, sql: sql) }
        defer { PQclear(result) }
        try check(result, connection, sql: sql)
        statements[sql] = name
        return name
    }

    private func withResult(_ sql: String, _ bindings: [PGValue], _ each: (PGRow) throws(StoreError) -> Void) throws(StoreError) {
        var unused: String?
        try withResult(sql, bindings, trailing: nil, trailingTag: &unused, each)
    }

    private func withResult(
        _ sql: String, _ bindings: [PGValue], trailing: String?, trailingTag: inout String?, _ each: (PGRow) throws(StoreError) -> Void
    ) throws(StoreError) {
        if let refusedOpening { throw refusedOpening }
        let connection = try open()
        let name = try prepared(sql, bindings, connection)
        // One buffer for every parameter's bytes; NULLs have offset -1. The trailing 0 keeps the base
        // address non-nil (empty strings are real, empty values).
        var bytes: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in bindings {
            if case .null = value {
                offsets.append(-1)
                lengths.append(0)
                formats.append(1)
                continue
            }
            let start = bytes.count
            value.appendBinary(to: &bytes)
            offsets.append(start)
            lengths.append(Int32(bytes.count - start))
            formats.append(1)
        }
        bytes.append(0)
        let deferred = takeLeading()
        roundTrips += 1
        let (result, tag): (OpaquePointer?, String?) = bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!)
            let values: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset < 0 ? nil : (base + offset).assumingMemoryBound(to: CChar.self)
            }
            if deferred.isEmpty, trailing == nil {
                return (PQexecPrepared(connection, name, Int32(values.count), values, lengths, formats, 1), nil)
            }
            return pipelined(deferred, connection, trailing: trailing) { connection in
                PQsendQueryPrepared(connection, name, Int32(values.count), values, lengths, formats, 1) == 1
            }
        }
        trailingTag = tag
        guard let result else { throw lostConnection(connection, sql: sql) }
        defer { PQclear(result) }
        try check(result, connection, sql: sql)
        let rows = PQntuples(result)
        if PQresultStatus(result) == PGRES_TUPLES_OK {
            changes = Int(rows)
            for row in 0..<rows { try each(PGRow(result: result, row: row)) }
        } else {
            changes = Int(String(cString: PQcmdTuples(result))) ?? 0
        }
    }

    private func check(_ result: OpaquePointer, _ connection: OpaquePointer, sql: String) throws(StoreError) {
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY { return }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        let message = Self.trimmed(PQresultErrorMessage(result))
        let error = PGError.storeError(sqlState: state, message: "\(message) [\(sql.prefix(80))]")
        if state == PostgresSchema.anotherWriterState { refusedOpening = error }
        throw error
    }

    private func lostConnection(_ connection: OpaquePointer, sql: String) -> StoreError {
        StoreError(kind: .io, message: "\(Self.trimmed(PQerrorMessage(connection))) [\(sql.prefix(80))]")
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "unknown error" }
        // libpq's messages span lines ("…refused\n\tIs the server running…"): one line reads better in a log or a
        // start-up failure.
        return String(cString: message).split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// The current row of a binary-format result; valid only inside the row callback.
struct PGRow {
    let result: OpaquePointer
    let row: Int32

    func isNull(_ column: Int32) -> Bool {
        PQgetisnull(result, row, column) == 1
    }

    /// A bigint, integer, smallint or boolean column (big-endian on the wire); 0 for NULL.
    func int(_ column: Int32) -> Int64 {
        let length = Int(PQgetlength(result, row, column))
        guard !isNull(column), let value = PQgetvalue(result, row, column) else { return 0 }
        let bytes = UnsafeRawBufferPointer(start: value, count: length)
        var number: Int64 = 0
        for byte in bytes { number = number << 8 | Int64(byte) }
        // Sign-extend narrower integers (int4, int2).
        if length > 0, length < 8 {
            let shift = Int64(64 - length * 8)
            number = (number << shift) >> shift
        }
        return number
    }

    func text(_ column: Int32) -> String {
        String(decoding: bytes(column), as: UTF8.self)
    }

    func optionalText(_ column: Int32) -> String? {
        isNull(column) ? nil : text(column)
    }

    func optionalInt(_ column: Int32) -> Int64? {
        isNull(column) ? nil : int(column)
    }

    func blob(_ column: Int32) -> [UInt8] {
        Array(bytes(column))
    }

    private func bytes(_ column: Int32) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(result, row, column))
        guard length > 0, let value = PQgetvalue(result, row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: length)
    }
}
