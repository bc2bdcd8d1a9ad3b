import Foundation
import Glibc
import Synchronization

/// A real `herald-server` for scenario tests: an ephemeral loopback port, its own temporary database, tokens for
/// users, `herald --script` clients, and the stop / crash / restart paths.
///
/// Started with ``ChildProcess`` (posix_spawn + waitpid), so stopping returns the real exit status and no wait can
/// hang on a process that has already exited.
///
/// ```swift
/// let server = try TestServer(pushGrace: 0)
/// let bob = try server.client("bob", toastDuration: 1)
/// #expect(server.stop() == 0)        // SIGTERM: the graceful path
/// try server.restart()               // same port, same database
/// ```
public final class TestServer: @unchecked Sendable {
    // @unchecked: the running process and the token cache are guarded by Mutexes; the rest is immutable.

    /// The temporary directory holding the database and the server logs; removed on deinit.
    public let directory: URL
    /// The database passed with `--db`, kept across restarts (unused when ``store`` is set).
    public let databasePath: String
    /// The shared PostgreSQL store (`postgres://…`) passed with `--store` instead of `--db`, for a node of a
    /// multi-node deployment; nil for the usual SQLite file.
    public let store: String?
    /// The port the server listens on, kept across restarts.
    public let port: Int
    /// Arguments after `serve --host --port --db` (or `--store`): `--push-grace-seconds` when given, then the caller's.
    public let arguments: [String]
    private let running: Mutex<(child: ChildProcess, output: LineCollector, log: String, starts: Int)>
    private let tokens = Mutex<[String: String]>([:])

    /// Starts the server.
    ///
    /// - Parameters:
    ///   - pushGrace: P4's grace period in seconds (`--push-grace-seconds`); nil keeps the server's default.
    ///   - arguments: extra server flags, e.g. `["--secret", "s"]`.
    ///   - store: a `postgres://` URL: serve and mint tokens with `--store` on that shared database (several
    ///     nodes may use the same one) instead of a fresh SQLite file.
    public init(pushGrace: Double? = nil, arguments: [String] = [], store: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("herald-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("herald.db").path
        self.store = store
        self.arguments = (pushGrace.map { ["--push-grace-seconds", String($0)] } ?? []) + arguments
        do {
            let first = try Self.launch(port: 0, database: store.map { ["--store", $0] } ?? ["--db", databasePath], arguments: self.arguments, log: directory.appendingPathComponent("server-1.log").path)
            port = first.port
            running = Mutex((first.child, first.output, first.log, 1))
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        kill()
        try? FileManager.default.removeItem(at: directory)
    }

    /// `--store <url>` when the server runs on a shared store, else `--db <file>`: for `serve` and `token`.
    private var database: [String] { store.map { ["--store", $0] } ?? ["--db", databasePath] }

    /// Starts `herald-server serve` and waits for `herald-server listening on 127.0.0.1:<port>`.
    private static func launch(port: Int, database: [String], arguments: [String], log: String) throws
        -> (child: ChildProcess, output: LineCollector, log: String, port: Int) {
        let child = try ChildProcess(HeraldBinaries.server,
                                     ["serve", "--host", "127.0.0.1", "--port", String(port)] + database + arguments,
                                     output: .pipe, error: .file(log))
        let output = LineCollector(descriptor: child.pipes.output ?? -1)
        let context = { "\nserver log:\n" + ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "") }
        do {
            let bound = try output.wait("herald-server listening line", timeout: .seconds(20), context: context) { lines in
                ServerHarness.listeningPort(in: lines.joined(separator: "\n") + "\n")
            }
            return (child, output, log, bound)
        } catch {
            _ = child.waitForExitOrKill(timeout: .zero)
            throw error
        }
    }

    /// The `ws://` URL clients connect to.
    public var url: String { "ws://127.0.0.1:\(port)" }

    /// The current server process's id (it changes with ``restart()``).
    public var pid: pid_t { running.withLock { $0.child.pid } }

    /// Whether the server process runs.
    public var isRunning: Bool { running.withLock { $0.child.isRunning } }

    /// What the current server process wrote to stderr (its log).
    public var standardError: String {
        let log = running.withLock { $0.log }
        return (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
    }

    /// A token for `user` from `herald-server token <user> --name <name> --db <db>` (`--store <url>` on a shared
    /// store), which creates the user; `name` defaults to the id capitalised. Made once per user and kept.
    public func token(_ user: String, name: String? = nil) throws -> String {
        if let token = tokens.withLock({ $0[user] }) { return token }
        let display = name ?? user.prefix(1).uppercased() + user.dropFirst()
        let result = try runToCompletion(HeraldBinaries.server, ["token", user, "--name", display] + database, timeout: .seconds(30))
        let token = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        guard result.status == 0, !token.isEmpty else {
            throw ProcessHarnessError("token \(user) failed with \(result.status): \(result.standardError)")
        }
        tokens.withLock { $0[user] = token }
        return token
    }

    /// Starts `herald --script` as `user` (a new device), waiting for `connected` unless told not to.
    public func client(_ user: String, toastDuration: Double? = nil, arguments: [String] = [], waitConnected: Bool = true) throws -> ClientProcess {
        let client = try ClientProcess.start(port: port, token: try token(user), name: user, toastDuration: toastDuration, arguments: arguments)
        if waitConnected { try client.waitConnected() }
        return client
    }

    /// SIGTERM, the graceful path (close 1001 to everyone, then exit); returns the exit status, or nil if the server
    /// was still running after `timeout` (it is then killed).
    @discardableResult
    public func stop(timeout: Duration = .seconds(15)) -> Int32? {
        let child = running.withLock { $0.child }
        child.send(signal: SIGTERM)
        let status = child.waitForExit(timeout: timeout)
        if status == nil { _ = child.waitForExitOrKill(timeout: .zero) }
        return status
    }

    /// SIGKILL, the crash path: nothing gets to flush. Waits until the process is gone.
    public func kill() {
        _ = running.withLock { $0.child }.waitForExitOrKill(timeout: .zero)
    }

    /// Starts the server again on the same port and database, so clients reconnect to it. A server still running
    /// is killed first (SIGKILL, the crash path).
    public func restart() throws {
        kill()
        let starts = running.withLock { $0.starts } + 1
        let next = try Self.launch(port: port, database: database, arguments: arguments,
                                   log: directory.appendingPathComponent("server-\(starts).log").path)
        running.withLock { $0 = (next.child, next.output, next.log, starts) }
    }
}
