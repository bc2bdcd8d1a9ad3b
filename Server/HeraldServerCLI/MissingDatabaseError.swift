import Foundation

/// `token` or `apikey` was pointed at a SQLite file that does not exist. Only `serve` creates a database: a token
/// minted into a new, empty one (say, from another directory than the server's) carries that database's secret, and
/// the running server refuses it.
struct MissingDatabaseError: Error, CustomStringConvertible {
    /// The database path as given (`--db`, HERALD_DB or the default `herald.db`).
    var path: String

    /// The path made absolute against the current directory, so the line says which directory was looked in.
    var absolutePath: String { URL(fileURLWithPath: path).standardizedFileURL.path }

    var description: String {
        "no database at \(absolutePath) — start herald-server there first, or pass --db <file>"
    }
}
