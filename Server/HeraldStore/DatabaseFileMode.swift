import Glibc
import HeraldStoreProtocol

/// A database file whose permissions the store narrowed to its owner.
public struct DatabaseFileModeChange: Sendable, Equatable, CustomStringConvertible {
    /// The file: the database itself or its `-wal`, `-shm` or `-journal` companion.
    public var path: String
    /// The permission bits it had (e.g. 0o644).
    public var oldMode: mode_t
    /// The permission bits it has now (e.g. 0o600).
    public var newMode: mode_t

    public var description: String { "\(path): mode \(Self.octal(oldMode)) -> \(Self.octal(newMode))" }

    static func octal(_ mode: mode_t) -> String { "0" + String(mode, radix: 8) }
}

/// Keeps the database and its companions readable by their owner only.
///
/// The file holds the JWT signing secret (when no `--secret-file` is given), every message and the API key hashes,
/// so nobody but the server's user may read it, whatever the umask. SQLite creates a new file with 0644 masked by the
/// umask, so a new database is created here first, 0600 with an explicit `fchmod`, before `sqlite3_open_v2` opens it.
/// SQLite then creates `-wal`, `-shm` and `-journal` with the database's own mode (os_unix.c `findCreateFileMode`),
/// so they are 0600 as well. Files left group- or world-accessible by an older build (or by hand) lose those bits
/// when the store opens them; the changes are reported so the server can log them.
enum DatabaseFileMode {
    /// Owner read and write.
    static let ownerOnly: mode_t = 0o600
    /// Suffixes of the files SQLite keeps next to a database.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Whether `path` names a file on disk (not an in-memory or temporary database, nor a URI).
    static func isFile(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && !path.hasPrefix("file:")
    }

    /// Creates the database file 0600 when it is missing, or narrows an existing one to its owner.
    static func prepareDatabase(at path: String) throws(StoreError) -> [DatabaseFileModeChange] {
        guard isFile(path) else { return [] }
        let created = retryingOnInterrupt { Glibc.open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, ownerOnly) }
        if created >= 0 {
            defer { Glibc.close(created) }
            // The umask may have taken bits off 0600 (e.g. 0277 leaves 0400, and SQLite could not write); set it exactly.
            guard fchmod(created, ownerOnly) == 0 else { throw failure("chmod 0600", path) }
            return []
        }
        guard errno == EEXIST else { throw failure("create", path) }
        return try narrow(path).map { [$0] } ?? []
    }

    /// Narrows whichever of the database's companion files exist to their owner.
    static func protectCompanions(of path: String) throws(StoreError) -> [DatabaseFileModeChange] {
        guard isFile(path) else { return [] }
        var changes: [DatabaseFileModeChange] = []
        for suffix in companionSuffixes {
            if let change = try narrow(path + suffix) { changes.append(change) }
        }
        return changes
    }

    /// Takes the group and other bits off `path`; nil when it has none or does not exist.
    private static func narrow(_ path: String) throws(StoreError) -> DatabaseFileModeChange? {
        var status = stat()
        guard stat(path, &status) == 0 else {
            // A companion SQLite removed meanwhile (the last connection closing) needs nothing.
            if errno == ENOENT { return nil }
            throw failure("stat", path)
        }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 != 0 else { return nil }
        let narrowed = mode & 0o700
        guard chmod(path, narrowed) == 0 else {
            if errno == ENOENT { return nil }
            throw failure("chmod \(DatabaseFileModeChange.octal(narrowed)) (it is \(DatabaseFileModeChange.octal(mode)), readable beyond its owner)", path)
        }
        return DatabaseFileModeChange(path: path, oldMode: mode, newMode: narrowed)
    }

    private static func retryingOnInterrupt(_ call: () -> Int32) -> Int32 {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }

    /// The current `errno` as a store error about `operation` on `path`.
    private static func failure(_ operation: String, _ path: String) -> StoreError {
        let code = errno
        let kind: StoreError.Kind = (code == EACCES || code == EPERM || code == EROFS) ? .readOnly : .io
        return StoreError(kind: kind, message: "\(operation) \(path): \(String(cString: strerror(code))) (errno \(code))")
    }
}
