import HeraldStore

/// Maps PostgreSQL failures onto the backend-neutral ``StoreError`` kinds.
///
/// The SQLSTATE (the five-character code every server error carries) decides the kind; the message keeps
/// the server's words, the SQLSTATE and the statement, so a log line says what failed where. `code` stays 0:
/// in `StoreError` it means an SQLite result code, which PostgreSQL does not have.
enum PGError {
    static func storeError(sqlState: String?, message: String) -> StoreError {
        let state = sqlState ?? ""
        let text = state.isEmpty ? message : "\(message) (SQLSTATE \(state))"
        return StoreError(kind: kind(sqlState: state), message: text)
    }

    /// The kind for one SQLSTATE; an empty state means libpq lost or never had a connection.
    static func kind(sqlState state: String) -> StoreError.Kind {
        if state.isEmpty { return .io }
        switch state {
        // serialization_failure, deadlock_detected, lock_not_available, query_canceled (lock/statement timeout),
        // too_many_connections, cannot_connect_now (starting up): another writer or the server is in the way.
        // HR001: herald_next_generation's refusal, another writer came first (PostgresSchema+Checks.swift).
        case "40001", "40P01", "55P03", "57014", "53300", "57P03", PostgresSchema.anotherWriterState: return .busy
        // read_only_sql_transaction, insufficient_privilege.
        case "25006", "42501": return .readOnly
        // disk_full, program_limit_exceeded's cousin out_of_memory is not "full" of the database.
        case "53100": return .full
        // data_corrupted, index_corrupted.
        case "XX001", "XX002": return .corrupt
        default: break
        }
        switch state.prefix(2) {
        case "23": return .constraint  // integrity_constraint_violation
        case "08", "58": return .io  // connection_exception, system_error (I/O)
        case "57": return .io  // operator_intervention: admin/crash shutdown
        case "53": return .full  // insufficient_resources
        default: return .other
        }
    }
}
