/// A prepared statement's place in ``SQLiteConnection``'s cache: its SQL text, compared whole but hashed by its length
/// and its first and last eight bytes only. The texts are the store's own, a few dozen of them, up to hundreds of
/// bytes each, and a /sync send looks up a dozen: hashing every byte of each was 4% of the send's instructions
/// (callgrind), while these sixteen bytes and the length already tell the texts apart (two that do not only cost an
/// equality check).
struct SQLStatementKey: Hashable {
    let sql: String

    init(_ sql: String) { self.sql = sql }

    static func == (lhs: SQLStatementKey, rhs: SQLStatementKey) -> Bool { lhs.sql == rhs.sql }

    func hash(into hasher: inout Hasher) {
        let utf8 = sql.utf8
        hasher.combine(utf8.count)
        let hashedEnds: Bool? = utf8.withContiguousStorageIfAvailable { bytes in
            guard bytes.count >= 8, let base = UnsafeRawPointer(bytes.baseAddress) else { return false }
            hasher.combine(base.loadUnaligned(as: UInt64.self))
            hasher.combine(base.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self))
            return true
        }
        // Short or non-contiguous text (never the store's own literals): all of it.
        if hashedEnds != true { hasher.combine(sql) }
    }
}
