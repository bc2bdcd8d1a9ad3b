import Foundation
import HeraldCrypto
import Testing

/// What a child process printed and how it ended.
struct ToolResult {
    var status: Int32
    var output: [UInt8]
    var text: String { String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// Runs `python3 -c script args...` with `input` on stdin: the independent implementations (PyJWT, http_ece,
/// py_vapid, cryptography) our output is checked against.
func runPython(_ script: String, _ arguments: [String] = [], input: [UInt8] = []) throws -> ToolResult {
    try runTool(["python3", "-c", script] + arguments, input: input)
}

/// Runs a command found on PATH, feeding `input` on stdin and collecting stdout.
func runTool(_ arguments: [String], input: [UInt8] = []) throws -> ToolResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    // Write on another thread: a large input could fill the pipe while the child fills its stdout.
    let writer = Thread {
        stdin.fileHandleForWriting.write(Data(input))
        try? stdin.fileHandleForWriting.close()
    }
    writer.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ToolResult(status: process.terminationStatus, output: Array(output))
}

/// Decodes base64url test-vector text, failing the test on a typo.
func b64(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [UInt8] {
    try #require(Base64URL.decode(text), "not base64url: \(text)", sourceLocation: sourceLocation)
}

/// Runs `body` and returns the kind of `CryptoError` it threw, or nil if it threw nothing (any other error fails).
func cryptoErrorKind<T>(_ body: () throws(CryptoError) -> T) -> CryptoError.Kind? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.kind
    }
}

/// A fresh RSA key as PEM, made by Python's `cryptography`: `pkcs1` picks `BEGIN RSA PRIVATE KEY` over PKCS#8.
func makeRSAPEM(bits: Int = 2048, pkcs1: Bool = false) throws -> String {
    let result = try runPython("""
        import sys
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.hazmat.primitives import serialization as s
        key = rsa.generate_private_key(public_exponent=65537, key_size=int(sys.argv[1]))
        fmt = s.PrivateFormat.TraditionalOpenSSL if sys.argv[2] == "1" else s.PrivateFormat.PKCS8
        sys.stdout.write(key.private_bytes(s.Encoding.PEM, fmt, s.NoEncryption()).decode())
        """, [String(bits), pkcs1 ? "1" : "0"])
    try #require(result.status == 0)
    return String(decoding: result.output, as: UTF8.self)
}
