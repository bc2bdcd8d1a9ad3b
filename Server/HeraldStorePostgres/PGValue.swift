/// A value bound to a statement parameter, sent to the server in binary format.
enum PGValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    /// A bigint[] (e.g. message ids for one `= ANY($n)`), sent in text format.
    case intArray([Int64])
    /// SQL NULL of the given type.
    case null(PGType)

    static func optionalText(_ value: String?) -> PGValue {
        value.map(PGValue.text) ?? .null(.text)
    }

    /// The parameter's type, fixed when its statement is prepared.
    var type: PGType {
        switch self {
        case .int: .int8
        case .text: .text
        case .blob: .bytea
        case .intArray: .int8Array
        case .null(let type): type
        }
    }
}

/// The PostgreSQL type OIDs the store binds (pg_type.h).
enum PGType: UInt32 {
    case bool = 16
    case bytea = 17
    case int8 = 20
    case text = 25
    case int8Array = 1016
}
