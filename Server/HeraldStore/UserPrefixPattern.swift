/// The `LIKE` pattern of the user directory's prefix filter, shared by the SQLite and PostgreSQL stores so both match
/// the same users.
///
/// The prefix is text a person typed: its `%`, `_` and `\` are escaped so they match themselves (user ids may contain
/// `_`), and its ASCII letters are lowered, because both stores compare a lowered column (`LIKE` in SQLite already
/// ignores ASCII case; PostgreSQL's `lower` under the "C" collation lowers ASCII only). Use with `ESCAPE '\'`.
public enum UserPrefixPattern {
    /// The pattern matching every text that starts with `prefix`; nil or empty matches everything.
    public static func like(_ prefix: String?) -> String {
        var pattern = ""
        for scalar in (prefix ?? "").unicodeScalars {
            switch scalar {
            case "%", "_", "\\":
                pattern.unicodeScalars.append("\\")
                pattern.unicodeScalars.append(scalar)
            case "A"..."Z":
                pattern.unicodeScalars.append(Unicode.Scalar(scalar.value + 32) ?? scalar)
            default:
                pattern.unicodeScalars.append(scalar)
            }
        }
        return pattern + "%"
    }
}
