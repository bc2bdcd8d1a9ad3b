import Foundation
import HeraldStore

/// The PostgreSQL backend of ``SyncStore`` (through libpq): what lets several `herald-server` nodes share
/// one database.
///
/// - **One connection per store**, confined to one thread at a time (the server's sync thread, which runs
///   every request and commit in order). A pool would buy nothing there: the sync thread does one thing at
///   a time, and group commit already puts a whole batch in one transaction. Each other user of the
///   database (`herald-server token`, the HTTP API's key lookups, another node) opens its own store, i.e.
///   its own connection. `@unchecked Sendable` for the same reason as `SQLiteStore`: it may be created on
///   one thread and handed to another, but calls must never overlap.
/// - **Migrations on open**, all pending ones in one transaction under an advisory lock.
/// - **Prepared statements**, prepared on first use per connection, parameters and results in binary.
/// - **Transactions with the SQLite store's guarantees**: ``transaction(_:)`` is `BEGIN … COMMIT` with
///   savepoints for nested calls (sent with the next statement, see ``PGConnection/defer(_:)``); a commit that
///   PostgreSQL turned into a rollback throws, so nothing is acknowledged that was not committed.
/// - **One writer at a time across nodes**: every writing transaction takes the nodes' write lock first
///   (``PostgresSchema/writeLock``), so batches never deadlock, message ids follow commit order (R2), stream
///   seqs are 1, 2, 3, … with no gap or duplicate (R3) and counts and seqs agree in one order (U7). It also bumps
///   the write clock, which tells this store whether its in-memory heads and conversations are still current.
/// - **Nothing per recipient per message**: sends, bodies, heads and stream runs of a batch are written by one
///   statement before COMMIT (``PendingStreams``), together with one wake-up row and its one NOTIFY, which
///   PostgreSQL delivers only if the transaction commits, to every node listening (``PostgresStreamListener``).
///
/// The design and what each step costs: `Server/HeraldStorePostgres/README.md`.
public final class PostgresStore: SyncStore, APIKeyStore, @unchecked Sendable {
    let connection: PGConnection
    /// This node's id once it joined the cluster (``joinCluster(node:)``): written into its push outbox rows.
    var clusterNode: String?
    /// What the open transaction appended to streams, written just before COMMIT.
    var pending = PendingStreams()
    /// Where in ``pending``'s journal each open savepoint began (a rollback to it undoes what came after).
    var pendingAtSavepoint: [Int] = []
    /// Conversations read in the open transaction (``conversation(key:)``).
    var conversationsInTransaction: [Int64: ConversationRecord] = [:]
    /// Committed state kept between transactions, valid while nobody else writes (``cacheGeneration``): the last seq of
    /// each user's stream, and conversations with their participants.
    var committedHeads: [String: Int64] = [:]
    var committedConversations: [Int64: ConversationRecord] = [:]
    /// The write clock as this store's last commit left it; nil when unknown.
    var cacheGeneration: Int64?
    /// The write clock of the open transaction.
    var transactionGeneration: Int64?
    /// When this store last committed (monotonic ms).
    var lastCommitAt: Int64?
    /// How many transactions in a row found the write clock one past this store's own last commit (or presumed so and
    /// committed): nobody else writes, so the next transaction may presume it too (``begin()``).
    var soleWriterStreak = 0
    static let soleWriterStreakToPresume = 16
    /// Whether the open transaction presumed its write clock instead of reading it.
    var presumedGeneration = false
    /// Whether the transaction about to begin may presume it (a ``repeatableTransaction(_:)``'s first attempt).
    var mayPresumeGeneration = false
    /// Whether the last transaction ended because its presumed write clock was wrong (nothing of it was stored).
    var anotherWriterCameFirst = false
    private let isReadOnly: Bool
    /// Event body ids reserved from the database and not used yet (``nextBodyID()``).
    var bodyIDPool: [Int64] = []
    /// Message ids reserved and not used yet. They were taken under the write lock, and are kept only while no other
    /// writer commits (dropped when the write clock says one did, or a transaction fails): ids follow commit order (R2).
    var messageIDPool: [Int64] = []

    /// The LISTEN/NOTIFY channel of wake-ups: "<id> <node>" names the `stream_wakeups` row a committed transaction
    /// of `node` wrote (its stream runs, push requests, withdrawals and sign-outs). One NOTIFY per transaction.
    public static let wakeChannel = "herald_wake"

    /// The database's clock in ms since the epoch: heartbeats and wake-ups are stamped and judged by one clock.
    static let databaseNow = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"

    /// The schema version this build writes.
    public static var schemaVersion: Int { PostgresSchema.migrations.count }

    /// Connects to the database and migrates it to the current schema.
    ///
    /// - Parameters:
    ///   - url: A libpq connection string: `postgres://user@host:port/db` or `host=… dbname=…`.
    ///   - readOnly: Every transaction is read-only (`default_transaction_read_only`): reads work, writes
    ///     throw `.readOnly`. The schema must already be current.
    ///   - lockTimeoutMilliseconds: How long a statement waits for a row lock another connection holds
    ///     before it fails with `.busy` (the counterpart of SQLite's busy timeout).
    public init(url: String, readOnly: Bool = false, lockTimeoutMilliseconds: Int32 = 5_000) throws {
        var setup = ["SET client_min_messages = error", "SET lock_timeout = \(max(lockTimeoutMilliseconds, 1))"]
        if readOnly { setup.append("SET default_transaction_read_only = on") }
        isReadOnly = readOnly
        connection = try PGConnection(conninfo: url, sessionSetup: setup.joined(separator: "; "))
        do {
            try migrate(readOnly: readOnly)
        } catch {
            connection.close()
            throw error
        }
    }

    /// Whether `location` names a PostgreSQL database (`postgres://` or `postgresql://`) rather than a file.
    public static func isPostgresURL(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://")
    }

    private func migrate(readOnly: Bool) throws {
        let latest = Int64(PostgresSchema.migrations.count)
        if readOnly {
            let version = try schemaVersionStored()
            if version > latest {
                throw StoreError(kind: .other, message: "database schema version \(version) is newer than this build (\(latest))")
            }
            if version < latest {
                throw StoreError(kind: .readOnly, message: "database needs migration from \(version) to \(latest) but is read-only")
            }
            return
        }
        try connection.executeScript("BEGIN")
        connection.transactionDepth = 1
        defer { connection.transactionDepth = 0 }
        do {
            // The advisory lock makes a second node wait here, then see the version the first one wrote.
            try connection.executeScript(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock)); CREATE TABLE IF NOT EXISTS herald_schema (version bigint NOT NULL)")
            var version = try connection.scalar("SELECT max(version) FROM herald_schema") ?? -1
            if version < 0 {
                try connection.execute("INSERT INTO herald_schema (version) VALUES (0)")
                version = 0
            }
            if version > latest {
                throw StoreError(kind: .other, message: "database schema version \(version) is newer than this build (\(latest))")
            }
            while version < latest {
                try connection.executeScript(PostgresSchema.migrations[Int(version)])
                version += 1
            }
            try connection.execute("UPDATE herald_schema SET version = $1", .int(version))
            try commit()
        } catch {
            _ = try? connection.executeScript("ROLLBACK")
            throw error
        }
    }

    /// The applied schema version (0 on an empty database).
    func schemaVersionStored() throws(StoreError) -> Int64 {
        guard try connection.scalar("SELECT CASE WHEN to_regclass('herald_schema') IS NULL THEN 0::bigint ELSE 1::bigint END") == 1 else { return 0 }
        return try connection.scalar("SELECT max(version) FROM herald_schema") ?? 0
    }

    // MARK: - Transactions and maintenance

    /// A transaction of its own for rows that no node keeps in memory (cluster bookkeeping), without the write lock and
    /// the write clock. Inside another transaction it simply joins it.
    func transactionWithoutWriteLock(_ body: () throws -> Void) throws {
        if connection.transactionDepth > 0 { return try body() }
        try connection.executeScript("BEGIN")
        connection.transactionDepth = 1
        defer { connection.transactionDepth = 0 }
        do {
            try body()
        } catch {
            _ = try? connection.executeScript("ROLLBACK")
            throw error
        }
        guard try connection.executeScript("COMMIT") == "COMMIT" else {
            throw StoreError(kind: .other, message: "the transaction was rolled back because a statement inside it failed")
        }
    }

    /// A nested call's SAVEPOINT and RELEASE are not round trips of their own: they travel with the next statement
    /// (``PGConnection/defer(_:)``), and a nested body that ran no statement costs nothing.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let depth = connection.transactionDepth
        let savepoint = "SAVEPOINT s\(depth)"
        if depth == 0 {
            try begin()
        } else {
            connection.defer(savepoint)
            pendingAtSavepoint.append(pending.mark)
        }
        connection.transactionDepth = depth + 1
        let result: T
        do {
            result = try body()
        } catch {
            connection.transactionDepth = depth
            rollback(depth: depth)
            throw error
        }
        connection.transactionDepth = depth
        if depth == 0 {
            try commit()
        } else {
            // A statement that failed inside the body (and was caught there) aborted this savepoint: the nested call
            // fails as a whole, like a throwing body.
            if connection.transactionFailed {
                rollback(depth: depth)
                throw StoreError(kind: .other, message: "a statement inside the nested transaction failed; it was rolled back")
            }
            pendingAtSavepoint.removeLast()
            if !connection.cancelDeferred(savepoint) { connection.defer("RELEASE SAVEPOINT s\(depth)") }
        }
        return result
    }

    /// A transaction that presumed the write clock and was refused because another writer came first stored nothing:
    /// `body` runs once more, this time after reading the clock (a batch is redone whole, not request by request).
    /// Only such a transaction presumes the write clock (``begin()``): any other caller's body may have done what
    /// cannot be done twice.
    public func repeatableTransaction<T>(_ body: () throws -> T) throws -> T {
        guard connection.transactionDepth == 0 else { return try transaction(body) }
        do {
            mayPresumeGeneration = true
            defer { mayPresumeGeneration = false }
            return try transaction(body)
        } catch where anotherWriterCameFirst {
            return try transaction(body)
        }
    }

    /// Runs `body` in the open transaction without a savepoint of its own, or in a new transaction when none is open:
    /// for operations whose only database work is reads and whose writes wait in ``pending`` until COMMIT (the
    /// caller's savepoint, if any, restores ``pending`` when it rolls back).
    func joiningTransaction<T>(_ body: () throws -> T) throws -> T {
        connection.transactionDepth > 0 ? try body() : try transaction(body)
    }

    /// Runs reads as one consistent snapshot (REPEATABLE READ, READ ONLY): takes no row locks, works on a
    /// read-only store. Inside a ``transaction(_:)`` it simply joins it.
    public func snapshot<T>(_ body: () throws -> T) throws -> T {
        if connection.transactionDepth > 0 { return try body() }
        try connection.executeScript("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        connection.transactionDepth = 1
        defer {
            connection.transactionDepth = 0
            // A read transaction has nothing to lose; ending it cannot fail in a way that matters.
            _ = try? connection.executeScript("COMMIT")
            // What it read is as of its snapshot, not under the write lock: no later transaction may take it from memory.
            endTransaction()
        }
        return try body()
    }

    /// PostgreSQL checks its own pages; this checks that the server answers and the schema is this build's.
    public func integrityCheck() throws -> Bool {
        try schemaVersionStored() == Int64(PostgresSchema.migrations.count)
    }

    public func close() {
        connection.close()
    }

    /// Opens a writing transaction: the nodes' write lock first, then the write clock, which says whether what this store
    /// keeps in memory is still current (nobody else committed since its own last commit).
    ///
    /// A store that has been the only writer for a while (``soleWriterStreak``), opening the first attempt of a
    /// ``repeatableTransaction(_:)``, does not wait for that answer: it
    /// expects the clock one past its own last commit, and the opening goes out with the transaction's first statement
    /// (usually the flush, together with COMMIT: one round trip per batch). If another writer came in between, that
    /// first statement fails and with it the transaction, nothing stored; the next transactions wait for the clock
    /// again until the store has been alone for ``soleWriterStreakToPresume`` of them.
    private func begin() throws(StoreError) {
        anotherWriterCameFirst = false
        guard !isReadOnly else {
            try connection.executeScript("BEGIN")
            return
        }
        if mayPresumeGeneration, let cached = cacheGeneration, soleWriterStreak >= Self.soleWriterStreakToPresume {
            transactionGeneration = cached + 1
            presumedGeneration = true
            connection.beginWithNextStatement([
                "BEGIN", "SELECT pg_advisory_xact_lock(\(PostgresSchema.writeLock))", "SELECT herald_next_generation(\(cached + 1))",
            ])
            return
        }
        // A plain UPDATE: the function's check is needed only when the clock is presumed, and its PL/pgSQL call cost
        // three times the statement (pg_stat_statements). The lock, the clock and what the writers since this store's
        // last commit changed go in one round trip: with two busy nodes every opening follows the other's commit, and
        // each further round trip here was one more the other node waited out for the lock.
        let cached = cacheGeneration
        let canCatchUp = cached != nil && lastCommitAt.map { Self.uptimeMilliseconds() - $0 < Self.catchUpWindowMilliseconds } == true
        connection.beginWithNextStatement([
            "BEGIN", "SELECT pg_advisory_xact_lock(\(PostgresSchema.writeLock))", "UPDATE write_clock SET generation = generation + 1",
        ])
        let rows: [OpeningRow]
        do throws(StoreError) {
            rows = try connection.query(Self.openingQuery, .int(canCatchUp ? cached ?? .max : .max), .int(cached ?? -1)) { row in
                OpeningRow(user: row.optionalText(0), value: row.int(1), signal: row.optionalText(2))
            }
        } catch {
            // BEGIN may have run before the lock or the clock failed (lock_timeout while another node writes): the
            // session would stay in that failed transaction and refuse every later one, the node answering
            // `unavailable` until restarted.
            connection.rollBackStrayTransaction()
            throw error
        }
        // The clock's row comes first (the only row without a user or a signal).
        let generation = rows.first { $0.user == nil && $0.signal == nil }?.value
        transactionGeneration = generation
        if let generation, let cached, cached == generation - 1 {
            soleWriterStreak += 1
            return
        }
        soleWriterStreak = 0
        // Ids taken before another writer's are below its ids: the block taken in the opening follows them (R2).
        messageIDPool.removeAll()
        if let last = rows.first(where: { $0.signal == Self.messageIDBlockRow })?.value {
            messageIDPool = Array(stride(from: last, through: last - Self.messageIDBlock + 1, by: -1))
        }
        if generation != nil, canCatchUp {
            catchUp(rows)
            return
        }
        committedHeads.removeAll(keepingCapacity: true)
        committedConversations.removeAll(keepingCapacity: true)
    }

    /// A row of ``openingQuery``: the write clock (`value`), a user's newest head moved by another writer, or a
    /// conversation someone left (`signal` `left <key>`).
    private struct OpeningRow {
        let user: String?
        let value: Int64
        let signal: String?
    }

    /// Run under the write lock right after the clock moved: the clock, and from the wake-up rows of every writer
    /// since generation $1 (this store's last commit; none for `Int64.max`) the heads they moved and the conversations
    /// someone left. No row newer than the clock can exist while the lock is held. When another writer came since
    /// generation $2 (this store's last commit, -1 for none), the ids this store kept are below that writer's, so a new
    /// block of message ids is taken here too (the row ``messageIDBlockRow``, its last id).
    static let openingQuery = """
        SELECT NULL::text, generation, NULL::text FROM write_clock
        UNION ALL
        SELECT x.u, max(x.s + x.n - 1), NULL FROM stream_wakeups w, unnest(w.users, w.first_seqs, w.counts) AS x(u, s, n)
        WHERE w.generation > $1 GROUP BY x.u
        UNION ALL
        SELECT NULL, 0, x.signal FROM stream_wakeups w, unnest(w.signals) AS x(signal)
        WHERE w.generation > $1 AND x.signal LIKE 'left %'
        UNION ALL
        SELECT NULL, setval(pg_get_serial_sequence('messages', 'id'), nextval(pg_get_serial_sequence('messages', 'id')) + \(messageIDBlock - 1)),
               '\(messageIDBlockRow)'
        FROM write_clock WHERE generation <> $2 + 1
        """

    /// How many message ids one `setval` takes.
    static let messageIDBlock: Int64 = 256
    /// The `signal` of ``openingQuery``'s row that carries a new block of message ids.
    static let messageIDBlockRow = "message ids"

    private static func uptimeMilliseconds() -> Int64 {
        Int64(DispatchTime.now().uptimeNanoseconds / 1_000_000)
    }

    /// How long after this store's last commit its memory can still be caught up from wake-up rows (they are kept 10
    /// minutes); after that it starts empty.
    static let catchUpWindowMilliseconds: Int64 = 300_000

    /// Brings the in-memory heads and conversations up to the write clock by the wake-up rows the writers since this
    /// store's last commit left (``openingQuery``): every head they moved is in one, and so is every conversation
    /// someone left. Writers that left no row changed neither.
    private func catchUp(_ rows: [OpeningRow]) {
        for row in rows {
            if let user = row.user, let head = committedHeads[user] {
                committedHeads[user] = max(head, row.value)
            } else if let signal = row.signal, let key = Int64(signal.dropFirst("left ".count)) {
                committedConversations[key] = nil
            }
        }
    }

    /// Writes the transaction's streams and wake-up and commits, in one round trip; throws when PostgreSQL did not
    /// commit.
    private func commit() throws(StoreError) {
        connection.discardDeferred()  // COMMIT releases every savepoint
        defer { endTransaction() }
        if connection.transactionUnsent, pending.isEmpty {
            // Nothing ran and nothing is to be written: the transaction never has to reach the server.
            connection.dropUnsentTransaction()
            return
        }
        // The flush still belongs to the transaction: a connection lost before it must fail it, not reconnect.
        connection.transactionDepth = 1
        defer { connection.transactionDepth = 0 }
        let tag: String
        do throws(StoreError) {
            if let committed = try writePendingStreams(wakeUp: true, thenCommit: true) {
                tag = committed
            } else {
                tag = try connection.executeScript("COMMIT")
            }
        } catch {
            // A lost connection leaves the outcome unknown; the caller reports failure and the client's
            // retry is idempotent (R4). Any other failure ended the transaction already or left it to roll back.
            abandonTransaction()
            // Refused at its opening because another writer came first (the clock was presumed): nothing ran, and what
            // this store keeps is the database's as of its last commit, which the next opening catches up from the
            // wake-up rows. Forgetting it made every batch after such a refusal read its conversations and heads
            // anew, under the nodes' lock (two nodes: about a third of all sends).
            if !anotherWriterCameFirst { forgetCommittedState() }
            throw error
        }
        // PostgreSQL answers COMMIT of a failed transaction (a statement errored outside any savepoint)
        // with ROLLBACK and no error: never report that as committed.
        guard tag == "COMMIT" else {
            forgetCommittedState()
            throw StoreError(kind: .other, message: "the transaction was rolled back because a statement inside it failed")
        }
        // Committed: this transaction's state is the database's, up to its generation.
        if presumedGeneration { soleWriterStreak += 1 }
        cacheGeneration = transactionGeneration
        lastCommitAt = Self.uptimeMilliseconds()
        for (user, stream) in pending.streams { committedHeads[user] = stream.head }
        if committedConversations.count > 10_000 { committedConversations.removeAll(keepingCapacity: true) }
        for (key, record) in conversationsInTransaction { committedConversations[key] = record }
    }

    /// Undoes the transaction (`depth` 0) or the savepoint opened at `depth`, in the database and in memory.
    private func rollback(depth: Int) {
        if depth == 0 {
            connection.discardDeferred()
            abandonTransaction()
            endTransaction()
            return
        }
        if let mark = pendingAtSavepoint.popLast() { pending.rollback(to: mark) }
        conversationsInTransaction.removeAll()
        // Never sent: nothing ran inside it, so there is nothing to undo in the database.
        if connection.cancelDeferred("SAVEPOINT s\(depth)") { return }
        connection.discardDeferred()  // inner savepoints end with this one
        _ = try? connection.executeScript("ROLLBACK TO SAVEPOINT s\(depth); RELEASE SAVEPOINT s\(depth)")
    }

    /// Ends a transaction that failed or is given up: a ROLLBACK when any of it reached the server. A transaction that
    /// failed while its write clock was presumed may have met another writer: the next ones wait for the clock.
    private func abandonTransaction() {
        anotherWriterCameFirst = presumedGeneration && connection.refusedOpening != nil
        if presumedGeneration { soleWriterStreak = 0 }
        messageIDPool.removeAll()
        if connection.transactionUnsent {
            connection.dropUnsentTransaction()
        } else {
            _ = try? connection.executeScript("ROLLBACK")
        }
    }

    /// Forgets what this store keeps between transactions: after a failed commit it may not be the database's.
    private func forgetCommittedState() {
        cacheGeneration = nil
        messageIDPool.removeAll()
        committedHeads.removeAll(keepingCapacity: true)
        committedConversations.removeAll(keepingCapacity: true)
    }

    /// Forgets the transaction's in-memory state: its head locks ended with it.
    private func endTransaction() {
        transactionGeneration = nil
        presumedGeneration = false
        pending = PendingStreams()
        conversationsInTransaction.removeAll()
        pendingAtSavepoint.removeAll()
    }

    // MARK: - Meta

    private static let secretKey = "jwt.secret"

    public func secret() throws -> [UInt8]? {
        try connection.queryFirst("SELECT value FROM meta WHERE key = $1", .text(Self.secretKey)) { row in row.blob(0) }
    }

    public func setSecret(_ secret: [UInt8]) throws {
        try connection.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            .text(Self.secretKey), .blob(secret))
    }

    public func secret(orCreate make: () -> [UInt8]) throws -> [UInt8] {
        if let existing = try secret() { return existing }
        // Two nodes starting at once: the second insert does nothing and both read the first one's secret.
        try connection.execute(
            "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING", .text(Self.secretKey), .blob(make()))
        guard let stored = try secret() else { throw StoreError(kind: .notFound, message: "the signing secret vanished") }
        return stored
    }

    public func meta(_ key: String) throws -> String? {
        try connection.queryFirst("SELECT value FROM meta WHERE key = $1", .text(key)) { row in row.text(0) }
    }

    public func setMeta(_ key: String, _ value: String?) throws {
        if let value {
            try connection.execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                .text(key), .blob(Array(value.utf8)))
        } else {
            try connection.execute("DELETE FROM meta WHERE key = $1", .text(key))
        }
    }

    // MARK: - Users

    public func upsertUser(id: String, name: String) throws {
        try connection.execute(
            "INSERT INTO users (id, name) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET name = excluded.name", .text(id), .text(name))
    }

    /// One round trip, without the nodes' write lock: a user row is in no node's memory kept by write clock, and two
    /// nodes creating the same user meet on its primary key (the later one keeps the row the first wrote).
    public func admit(_ arrivals: [Arrival]) throws -> [Admission] {
        guard !arrivals.isEmpty else { return [] }
        var admissions: [Admission?] = Array(repeating: nil, count: arrivals.count)
        try transactionWithoutWriteLock {
            try connection.execute(
                "INSERT INTO users (id, name) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (id) DO NOTHING",
                .textArray(arrivals.map(\.user.id)), .textArray(arrivals.map(\.user.name)))
            // A token issued before a sign-out of all the user's devices ('') or of this one is refused; a device that
            // came without a token (issued at Int64.max here) never is. Each arrival looks its user up by key: a join
            // planned while `users` was small (a new cluster) kept scanning all of it as it grew (2.3 ms a batch).
            let rows = try connection.query(
                """
                SELECT a.i, (SELECT u.name FROM users u WHERE u.id = a.u),
                       EXISTS (SELECT 1 FROM sign_outs s WHERE s.user_id = a.u AND s.device IN ('', a.d) AND a.t < s.issued_before)
                FROM unnest($1::text[], $2::text[], $3::bigint[]) WITH ORDINALITY AS a(u, d, t, i)
                """,
                .textArray(arrivals.map(\.user.id)), .textArray(arrivals.map { $0.device ?? "" }), .intArray(arrivals.map { $0.issuedAt ?? .max })
            ) { row in (index: Int(row.int(0)) - 1, name: row.optionalText(1), signedOut: row.int(2) != 0) }
            for row in rows where admissions.indices.contains(row.index) {
                guard let name = row.name else { continue }
                admissions[row.index] = Admission(user: UserRecord(id: arrivals[row.index].user.id, name: name), signedOut: row.signedOut)
            }
        }
        return try admissions.map { admission in
            guard let admission else { throw StoreError(kind: .other, message: "an arriving user was not stored") }
            return admission
        }
    }

    public func user(id: String) throws -> UserRecord? {
        try connection.queryFirst("SELECT id, name FROM users WHERE id = $1", .text(id)) { row in
            UserRecord(id: row.text(0), name: row.text(1))
        }
    }

    // MARK: - API keys

    private static let apiKeyColumns = "id, name, hash, created_at, scope, expires_at, revoked_at"

    private static func apiKeyRecord(_ row: PGRow) throws(StoreError) -> APIKeyRecord {
        let id = row.text(0)
        return APIKeyRecord(
            id: id, name: row.text(1), hash: row.blob(2), createdAt: row.int(3), scope: try APIKeyRecord.scope(stored: row.text(4), id: id),
            expiresAt: row.optionalInt(5), revokedAt: row.optionalInt(6))
    }

    public func insertAPIKey(_ key: APIKeyRecord) throws {
        try connection.execute(
            "INSERT INTO api_keys (id, name, hash, created_at, scope, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)", .text(key.id),
            .text(key.name), .blob(key.hash), .int(key.createdAt), .text(key.scope.rawValue), key.expiresAt.map(PGValue.int) ?? .null(.int8),
            key.revokedAt.map(PGValue.int) ?? .null(.int8))
    }

    public func apiKey(id: String) throws -> APIKeyRecord? {
        try connection.queryFirst("SELECT \(Self.apiKeyColumns) FROM api_keys WHERE id = $1", .text(id), row: Self.apiKeyRecord)
    }

    public func apiKeys() throws -> [APIKeyRecord] {
        try connection.query("SELECT \(Self.apiKeyColumns) FROM api_keys ORDER BY created_at, id", row: Self.apiKeyRecord)
    }

    public func revokeAPIKey(id: String, at: Int64) throws -> APIKeyRecord? {
        try connection.execute("UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL", .int(at), .text(id))
        return try apiKey(id: id)
    }
}
