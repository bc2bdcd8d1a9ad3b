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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw TokenFileError(path: path, cause: String(cString: strerror(errno))) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { throw TokenFileError(path: path, cause: String(cString: strerror(errno))) }
            if count == 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > maxBytes { throw TokenFileError(path: path, cause: "larger than \(maxBytes) bytes: not a token file") }
        }
        let whitespace: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r")]
        while let last = bytes.last, whitespace.contains(last) { bytes.removeLast() }
        guard !bytes.isEmpty else { throw TokenFileError(path: path, cause: "the file is empty") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
