/// A value bound to a statement parameter.
enum SQLiteValue {
    case int(Int64)
    case text(String)
    case blob([UInt8])
    case null

    static func optionalText(_ value: String?) -> SQLiteValue {
        value.map(SQLiteValue.text) ?? .null
    }
}
