import CSQLite
import HeraldStoreProtocol

extension StoreError {
    /// Maps an SQLite result code (primary or extended) to a store error.
    static func sqlite(_ code: Int32, message: String) -> StoreError {
        let kind: Kind
        switch code & 0xFF {
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_READONLY, SQLITE_PERM: kind = .readOnly
        case SQLITE_FULL: kind = .full
        case SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_PROTOCOL: kind = .io
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .corrupt
        default: kind = .other
        }
        return StoreError(kind: kind, code: code, message: message)
    }
}
