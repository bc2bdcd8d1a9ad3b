/// A failure of the store, typed so the server can report it instead of crashing.
///
/// A failing statement never traps: a full disk, a read-only file or a busy lock held by another
/// process all come back as a `StoreError` carrying the backend's result code and message.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, independent of the backend.
    public enum Kind: String, Sendable, Equatable {
        /// A record the operation needs (conversation, user, cursor message) does not exist.
        case notFound
        /// A constraint was violated: unique key, foreign key, not a participant, not null.
        case constraint
        /// The database is locked by another connection for longer than the busy timeout.
        case busy
        /// The database (or its directory) cannot be written, or was opened read-only.
        case readOnly
        /// The disk or the database's page limit is full.
        case full
        /// The operating system failed a read, write, lock or open.
        case io
        /// The database file is damaged or is not a database.
        case corrupt
        /// Anything else: misuse, a closed store, a schema newer than this build.
        case other
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The backend's result code (SQLite's extended result code), or 0 when the error comes from the store's own checks.
    public var code: Int32
    /// A readable message: the backend's own message plus what the store was doing.
    public var message: String

    /// Creates an error from its parts.
    public init(kind: Kind, code: Int32 = 0, message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    public var description: String {
        code == 0 ? "StoreError.\(kind): \(message)" : "StoreError.\(kind) (sqlite \(code)): \(message)"
    }
}
