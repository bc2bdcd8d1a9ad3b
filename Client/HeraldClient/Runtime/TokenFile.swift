import Glibc

/// Why `--token-file` (or HERALD_TOKEN_FILE) gave no token: the file and the cause, on one line.
public struct TokenFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var cause: String
    public var description: String { "cannot read the token file \(path): \(cause)" }
}

/// A token kept in a file (`--token-file`, HERALD_TOKEN_FILE): it stays out of `ps` and out of the shell's history,
/// and one file serves every terminal.
public enum TokenFile {
    /// A token is a few hundred bytes; a larger file is not a token file.
    static let maxBytes = 16384

    /// The file's text without trailing whitespace (editors and `echo` end files with a newline).
    ///
    /// - Throws: ``TokenFileError`` when the file cannot be read, is too large or holds no token.
    public static func read(_ path: String) throws(TokenFileError) -> String {
        var bytes: [UInt8]
        do { bytes = try SmallFile.read(path, maxBytes: maxBytes) } catch {
            switch error {
            case .missing(let cause), .unreadable(let cause): throw TokenFileError(path: path, cause: cause)
            case .tooLarge: throw TokenFileError(path: path, cause: "larger than \(maxBytes) bytes: not a token file")
            }
        }
        let whitespace: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
        while let last = bytes.last, whitespace.contains(last) { bytes.removeLast() }
        guard !bytes.isEmpty else { throw TokenFileError(path: path, cause: "the file is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
