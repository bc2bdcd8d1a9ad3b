import Glibc

/// What the config file says: the defaults a person would otherwise type every time. Flags and the HERALD_*
/// variables override each of them.
public struct ClientConfigFile: Equatable, Sendable {
    /// `server = ws://host:port`
    public var server: String?
    /// `token-file = /path/to/token` (a leading `~/` is the home directory)
    public var tokenFile: String?

    public init(server: String? = nil, tokenFile: String? = nil) {
        self.server = server
        self.tokenFile = tokenFile
    }
}

/// Why the config file could not be used: the file, the line and the cause, on one line (a bad flag: exit 2).
public struct ClientConfigFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var line: Int?
    public var cause: String
    public var description: String { "config file \(path)\(line.map { ":\($0)" } ?? ""): \(cause)" }
}

extension ClientConfigFile {
    /// A config file is a few lines; a larger one is not one.
    static let maxBytes = 65536

    /// Where the file lives (XDG Base Directory): `$XDG_CONFIG_HOME/herald/config`, else `$HOME/.config/herald/config`;
    /// nil when neither names an absolute directory (the spec ignores a relative XDG_CONFIG_HOME).
    public static func path(environment: (String) -> String?) -> String? {
        if let base = environment("XDG_CONFIG_HOME"), base.hasPrefix("/") { return base + "/herald/config" }
        if let home = environment("HOME"), home.hasPrefix("/") { return home + "/.config/herald/config" }
        return nil
    }

    /// Parses `key = value` lines (LF or CRLF: a file written on Windows reads the same); blank lines and lines starting with `#` are skipped. Unknown keys are refused so a
    /// typo does not silently fall back to a default.
    public static func parse(_ text: String, path: String, home: String?) throws(ClientConfigFileError) -> ClientConfigFile {
        var config = ClientConfigFile()
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw ClientConfigFileError(path: path, line: index + 1, cause: "expected `key = value`")
            }
            let key = line[..<equals].trimmingWhitespace()
            let value = line[line.index(after: equals)...].trimmingWhitespace()
            guard !value.isEmpty else { throw ClientConfigFileError(path: path, line: index + 1, cause: "\(key) has no value") }
            switch key {
            case "server": config.server = value
            case "token-file":
                if value.hasPrefix("~/"), let home { config.tokenFile = home + value.dropFirst(1) } else { config.tokenFile = value }
            default:
                throw ClientConfigFileError(path: path, line: index + 1, cause: "unknown key \(key) (known: server, token-file)")
            }
        }
        return config
    }

    /// The file at ``path(environment:)``, parsed; an empty config when there is none.
    ///
    /// - Throws: ``ClientConfigFileError`` when the file exists but cannot be read or parsed.
    public static func load(environment: (String) -> String?) throws(ClientConfigFileError) -> ClientConfigFile {
        guard let path = path(environment: environment) else { return ClientConfigFile() }
        let bytes: [UInt8]
        do { bytes = try SmallFile.read(path, maxBytes: maxBytes) } catch {
            switch error {
            case .missing: return ClientConfigFile()
            case .unreadable(let cause): throw ClientConfigFileError(path: path, line: nil, cause: cause)
            case .tooLarge: throw ClientConfigFileError(path: path, line: nil, cause: "larger than \(maxBytes) bytes")
            }
        }
        return try parse(String(decoding: bytes, as: UTF8.self), path: path, home: environment("HOME"))
    }
}

extension StringProtocol {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
