import Foundation
import HeraldCrypto

/// Where access tokens come from: minted here with the server's `--secret` (HS256, the claims the server's
/// `JSONWebToken` reads), or printed by `herald-server token <user> --db <db>`, one process per user.
///
/// With `--secret`, users need not exist beforehand: the sync service records an unknown token subject as a
/// user when it connects (`SyncCore.connect`, "A token signed with `--secret` may name a user the database has
/// never seen"). `herald-server token` creates the user itself.
enum TokenSource {
    case secret([UInt8])
    case serverBinary(path: String, db: String)

    /// A token for `user` valid for a day.
    func token(for user: String) throws(BenchError) -> String {
        switch self {
        case .secret(let key):
            let now = Int(Date().timeIntervalSince1970)
            let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
            let claims = Base64URL.encode(Array(#"{"exp":\#(now + 86_400),"iat":\#(now),"name":"\#(user)","sub":"\#(user)"}"#.utf8))
            let input = header + "." + claims
            return input + "." + Base64URL.encode(HMACSHA256.mac(key: key, message: Array(input.utf8)))
        case .serverBinary(let path, let db):
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["token", user, "--db", db]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            do { try process.run() } catch { throw BenchError("cannot run \(path): \(error)") }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchError("\(path) token \(user) exited \(process.terminationStatus)") }
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
}
