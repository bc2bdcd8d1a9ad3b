import Glibc

/// The token signing secret read from a file (`--secret-file`, `HERALD_SECRET_FILE`): unlike `--secret` it never
/// shows in `ps` or `/proc/<pid>/cmdline`, and unlike the generated secret it is not kept in the database.
///
/// The file must be a regular file accessible by its owner only (mode 0600 or 0400), hold UTF-8 text, and not be
/// empty; one trailing line break (`\n` or `\r\n`) is not part of the secret, so `openssl rand -hex 32 > file` works.
///
/// ```swift
/// options.secret = try SecretFile.read("/etc/herald/secret")
/// ```
public enum SecretFile {
    /// The largest secret file read; anything longer is not a secret but a mistake (a wrong path).
    public static let maxBytes = 64 * 1024

    /// The secret in the file at `path`.
    ///
    /// - Throws: ``SecretFileError`` saying what is wrong with the file and how to fix it; nothing is read from a
    ///   file that group or others could read.
    public static func read(_ path: String) throws(SecretFileError) -> String {
        let descriptor = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw SecretFileError(path: path, reason: .cannotOpen(errno: errno)) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw SecretFileError(path: path, reason: .cannotOpen(errno: errno)) }
        guard status.st_mode & S_IFMT == S_IFREG else { throw SecretFileError(path: path, reason: .notRegularFile) }
        let mode = status.st_mode & 0o7777
        guard mode & 0o077 == 0 else { throw SecretFileError(path: path, reason: .accessibleByOthers(mode: mode)) }
        guard status.st_size <= maxBytes else { throw SecretFileError(path: path, reason: .tooLarge(bytes: Int(status.st_size))) }

        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { buffer in retryingOnInterrupt { Glibc.read(descriptor, buffer.baseAddress, buffer.count) } }
            guard count >= 0 else { throw SecretFileError(path: path, reason: .cannotRead(errno: errno)) }
            if count == 0 { break }
            bytes += chunk[0..<count]
            // The size was checked at fstat, but the file may grow while it is read.
            guard bytes.count <= maxBytes else { throw SecretFileError(path: path, reason: .tooLarge(bytes: bytes.count)) }
        }
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard !bytes.isEmpty else { throw SecretFileError(path: path, reason: .empty) }
        // The secret is used as the UTF-8 bytes of a string (like --secret); bytes that are not UTF-8 would be
        // replaced on the way and sign with a different secret than the file holds.
        guard let secret = String(validating: bytes, as: UTF8.self) else { throw SecretFileError(path: path, reason: .notUTF8) }
        return secret
    }

    private static func retryingOnInterrupt<T: BinaryInteger>(_ call: () -> T) -> T {
        while true {
            let result = call()
            if result >= 0 || errno != EINTR { return result }
        }
    }
}

/// Why a secret file cannot be used.
public struct SecretFileError: Error, Equatable, CustomStringConvertible {
    /// What is wrong with the file.
    public enum Reason: Equatable, Sendable {
        /// open(2) or fstat(2) failed with this errno (missing file, no permission).
        case cannotOpen(errno: Int32)
        /// read(2) failed with this errno.
        case cannotRead(errno: Int32)
        /// A directory, device or pipe.
        case notRegularFile
        /// Group or others have some permission (the mode is shown); the secret would be readable beyond the owner.
        case accessibleByOthers(mode: mode_t)
        /// Nothing but a line break.
        case empty
        /// Over ``SecretFile/maxBytes``.
        case tooLarge(bytes: Int)
        /// Not UTF-8 text.
        case notUTF8
    }

    /// The file given.
    public var path: String
    /// What is wrong with it.
    public var reason: Reason

    public var description: String {
        switch reason {
        case .cannotOpen(let code): "cannot open secret file \(path): \(String(cString: strerror(code)))"
        case .cannotRead(let code): "cannot read secret file \(path): \(String(cString: strerror(code)))"
        case .notRegularFile: "secret file \(path) is not a regular file"
        case .accessibleByOthers(let mode):
            "secret file \(path) is accessible by group or others (mode 0\(String(mode, radix: 8))); run: chmod 600 \(path)"
        case .empty: "secret file \(path) is empty"
        case .tooLarge(let bytes): "secret file \(path) is \(bytes) bytes, over the \(SecretFile.maxBytes)-byte limit"
        case .notUTF8: "secret file \(path) is not UTF-8 text (e.g. create it with: openssl rand -hex 32 > \(path))"
        }
    }
}
