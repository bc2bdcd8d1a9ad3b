import Foundation
@testable import HeraldStore
import Testing

/// The values a statement is given are the values stored: texts and blobs of every size, empty ones (which are not
/// NULL), NULL, integers, many in one statement, and a statement run while another one is still stepping.
@Suite("SQLite: bound values arrive whole")
struct SQLiteBindingTests {
    private static let texts = ["", "a", "bob", "exactly15bytes!", "sixteen bytes!!!", "zoë ☕️ 𝄞", String(repeating: "long ", count: 300)]
    private static let blobs: [[UInt8]] = [[], [0], [0, 1, 2, 255], [UInt8](repeating: 7, count: 5_000)]

    private func connection() throws -> (TemporaryDatabase, SQLiteConnection) {
        let database = try TemporaryDatabase()
        let connection = try SQLiteConnection(path: database.path, readOnly: false, busyTimeoutMilliseconds: 1_000)
        try connection.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, text_value, blob_value, number, absent)", bindings: [])
        return (database, connection)
    }

    @Test("texts and blobs of every size (empty ones stay empty, not NULL), NULL and integers, many rows in one statement")
    func valuesRoundTrip() throws {
        let (database, connection) = try connection()
        defer { withExtendedLifetime(database) {} }
        var rows: [(text: String, blob: [UInt8], number: Int64)] = []
        for (index, text) in Self.texts.enumerated() {
            for (offset, blob) in Self.blobs.enumerated() { rows.append((text, blob, Int64(index * 10 + offset) - 20)) }
        }
        let sql = "INSERT INTO t (text_value, blob_value, number, absent) VALUES "
            + Array(repeating: "(?, ?, ?, ?)", count: rows.count).joined(separator: ", ")
        try connection.execute(sql, bindings: rows.flatMap { [.text($0.text), .blob($0.blob), .int($0.number), .null] })
        let stored = try connection.query(
            "SELECT typeof(text_value), text_value, typeof(blob_value), blob_value, number, absent IS NULL FROM t ORDER BY id"
        ) { row in (row.text(0), row.text(1), row.text(2), row.blob(3), row.int(4), row.int(5)) }
        #expect(stored.count == rows.count)
        for (row, expected) in zip(stored, rows) {
            #expect(row.0 == "text" && row.1 == expected.text)
            #expect(row.2 == "blob" && row.3 == expected.blob)
            #expect(row.4 == expected.number && row.5 == 1)
        }
    }

    @Test("a statement run inside another one's rows keeps both statements' values")
    func nestedStatements() throws {
        let (database, connection) = try connection()
        defer { withExtendedLifetime(database) {} }
        for text in Self.texts { try connection.execute("INSERT INTO t (text_value) VALUES (?)", bindings: [.text(text)]) }
        var pairs: [(String, Int64)] = []
        // The outer query's bound text is compared on every row it steps through, after the inner ones ran.
        _ = try connection.query("SELECT text_value FROM t WHERE text_value <> ? ORDER BY id", .text("bob")) { (row: SQLiteRow) throws(StoreError) in
            let text = row.text(0)
            let count = try connection.scalar("SELECT count(*) FROM t WHERE text_value = ?", .text(text)) ?? -1
            pairs.append((text, count))
        }
        #expect(pairs.map(\.0) == Self.texts.filter { $0 != "bob" })
        #expect(pairs.allSatisfy { $0.1 == 1 })
    }
}
