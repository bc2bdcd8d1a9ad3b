import CLibPQ
import Foundation
import Testing

/// A throwaway PostgreSQL 15 cluster, started once per test process and shared by every test; each test
/// gets its own database (``newDatabase()``), so tests never see each other's rows.
///
/// initdb and postgres refuse to run as root, so as root they run as the `postgres` user (or `nobody`) via
/// `setpriv`, in a temporary directory that user owns. The server listens on 127.0.0.1 on a free port and
/// on a unix socket inside that directory. A small shell watchdog owns the server: it waits for its stdin
/// (a pipe this process holds open) to close, which happens whenever this process exits, however it exits,
/// and then stops the server and deletes the directory.
///
/// Used by the store suite (`StoreBackend.postgres`) and by the multi-node server tests. It talks to the
/// server with libpq directly (not through the store under test), so a store bug cannot break the fixture.
///
/// ```swift
/// @Suite(.enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
/// struct MyTests {
///     @Test func something() throws { let store = try PostgresStore(url: try PostgresCluster.newDatabase()) }
/// }
/// ```
public final class PostgresCluster: @unchecked Sendable {
    // @unchecked: `admin` and `databaseCounter` are only used with `lock` held; the rest is immutable.

    /// Where Debian's postgresql-15 package puts the server binaries (override with HERALD_PG_BIN).
    public static let binDirectory = ProcessInfo.processInfo.environment["HERALD_PG_BIN"] ?? "/usr/lib/postgresql/15/bin"

    /// Whether initdb and postgres exist; tests are skipped (with ``skipReason``) only when they do not.
    public static var binariesAvailable: Bool {
        ["initdb", "postgres"].allSatisfy { FileManager.default.isExecutableFile(atPath: binDirectory + "/" + $0) }
    }

    /// Why PostgreSQL tests are skipped: the binaries are missing (and how to get them).
    public static let skipReason = Comment(
        rawValue: "PostgreSQL binaries not found in \(binDirectory): apt-get install postgresql-15 libpq-dev (or set HERALD_PG_BIN)")

    /// The process-wide cluster, started on first use.
    public static func shared() throws -> PostgresCluster {
        startLock.lock()
        defer { startLock.unlock() }
        if let started { return started }
        if let startFailure { throw startFailure }
        do {
            let cluster = try startWithRetries()
            started = cluster
            return cluster
        } catch {
            startFailure = error
            throw error
        }
    }

    /// A cluster of the caller's own, not shared: for a test that restarts or stops the server (``restart(downFor:)``),
    /// which would break every other test on the shared one. Stopped and deleted when this process exits.
    public static func startPrivate() throws -> PostgresCluster {
        try startWithRetries()
    }

    /// A fresh, empty database on the shared cluster; returns its `postgres://` URL.
    public static func newDatabase() throws -> String {
        try shared().createDatabase()
    }

    /// The loopback TCP port the server listens on.
    public let port: Int
    /// The temporary directory holding the data directory, the log and the unix socket.
    public let directory: String
    private let watchdog: Process
    private let watchdogInput: Pipe
    private let lock = NSLock()
    private var admin: AdminConnection?
    private var databaseCounter = 0
    /// How ``restart(downFor:)`` starts the server again: the same pg_ctl, options and user as the first start.
    private var pgctl = ""
    private var serverOptions = ""
    private var runAs: (uid: uid_t, gid: gid_t)?

    nonisolated(unsafe) private static var started: PostgresCluster?
    nonisolated(unsafe) private static var startFailure: (any Error)?
    private static let startLock = NSLock()

    private init(port: Int, directory: String, watchdog: Process, watchdogInput: Pipe) {
        self.port = port
        self.directory = directory
        self.watchdog = watchdog
        self.watchdogInput = watchdogInput
    }

    /// The URL of database `name` on this cluster.
    public func url(database name: String) -> String {
        "postgres://herald@127.0.0.1:\(port)/\(name)"
    }

    /// Creates database t1, t2, … and returns its URL.
    public func createDatabase() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if admin == nil { admin = try AdminConnection(url(database: "postgres")) }
        guard let admin else { throw ClusterError("no admin connection") }
        databaseCounter += 1
        let name = "t\(databaseCounter)"
        try admin.execute("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Ends every session connected to the database (as a restart or a network cut would).
    public func terminateSessions(database url: String) throws {
        lock.lock()
        defer { lock.unlock() }
        guard let admin, let name = url.split(separator: "/").last else { throw ClusterError("no admin connection") }
        try admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND pid <> pg_backend_pid()")
    }

    /// Runs `script` (one or more statements, e.g. an application's `BEGIN; …; COMMIT;`) on its own connection to the
    /// database, as an application would, and returns the last statement's rows as text; throws the server's message.
    public static func run(_ script: String, database url: String) throws -> [[String?]] {
        let session = try AdminConnection(url)
        return try session.rows(script)
    }

    /// Cuts the LISTEN sessions of `applicationName` on the database and keeps them out while `body` runs (the
    /// database refuses new connections meanwhile; sessions already open, like a store's, go on), then lets them back.
    public func cutSessions(named applicationName: String, database url: String, while body: () throws -> Void) throws {
        guard let name = url.split(separator: "/").last else { throw ClusterError("no database in \(url)") }
        try withAdmin { admin in
            try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS false")
            try admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '\(name)' AND application_name = '\(applicationName)'")
        }
        defer { try? withAdmin { admin in try admin.execute("ALTER DATABASE \(name) ALLOW_CONNECTIONS true") } }
        try body()
    }

    private func withAdmin(_ body: (AdminConnection) throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        if admin == nil { admin = try AdminConnection(url(database: "postgres")) }
        guard let admin else { throw ClusterError("no admin connection") }
        try body(admin)
    }

    /// Restarts the server as an operator would: fast shutdown (sessions are ended, transactions in flight roll
    /// back), `downFor` seconds with nothing listening, then a start on the same data directory and port.
    /// Every database and row survives; every client connection is gone and must reconnect. Use it on a
    /// ``startPrivate()`` cluster: the shared one serves other tests running in parallel.
    public func restart(downFor seconds: Double = 1) throws {
        lock.lock()
        defer { lock.unlock() }
        admin = nil
        try runPGCtl("-m fast -w -t 30 stop")
        Thread.sleep(forTimeInterval: seconds)
        try runPGCtl("-l \(Self.shellQuoted(directory + "/server.log")) -o \(Self.shellQuoted(serverOptions)) -w -t 30 start")
        admin = try AdminConnection(url(database: "postgres"))
    }

    /// Runs `pg_ctl -D <data> <arguments>` as the server's user and throws when it fails.
    private func runPGCtl(_ arguments: String) throws {
        let process = Process()
        Self.configure(process, runAs: runAs, directory: directory, arguments: ["/bin/sh", "-c", pgctl + " " + arguments + " >/dev/null 2>&1"])
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Reaped here with waitpid rather than waitUntilExit: called from a test's own thread, Foundation's exit
        // monitor never saw the child end (it stayed a zombie), so waitUntilExit hung.
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(60)
        while true {
            let reaped = waitpid(process.processIdentifier, &status, WNOHANG)
            if reaped == process.processIdentifier { break }
            if reaped < 0 {  // Foundation reaped it first
                status = process.isRunning ? 1 << 8 : process.terminationStatus << 8
                break
            }
            guard Date() < deadline else { throw ClusterError("pg_ctl \(arguments) did not finish within 60 s") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let exitCode = (status >> 8) & 0xff
        guard status & 0x7f == 0, exitCode == 0 else { throw ClusterError("pg_ctl \(arguments) failed: wait status \(status)") }
    }

    // MARK: - Starting

    /// Why the cluster could not be started or used; carries initdb's or the server's own words.
    public struct ClusterError: Error, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    private static func startWithRetries() throws -> PostgresCluster {
        var lastError: any Error = ClusterError("not started")
        // The free port is found by binding port 0 and closing it; another process may grab it before
        // postgres does, so try a few times.
        for _ in 0..<3 {
            do {
                return try start()
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func start() throws -> PostgresCluster {
        let runAs = try unprivilegedUser()
        var template = Array("/tmp/herald-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw ClusterError("mkdtemp failed: errno \(errno)") }
        let directory = String(cString: made)
        if let runAs {
            guard chown(directory, runAs.uid, runAs.gid) == 0 else { throw ClusterError("chown \(directory) failed: errno \(errno)") }
        }
        let data = directory + "/data"
        let log = directory + "/server.log"
        let initdb = Process()
        configure(initdb, runAs: runAs, directory: directory, arguments: [
            binDirectory + "/initdb", "-D", data, "-U", "herald", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync",
        ])
        let initdbOutput = Pipe()
        initdb.standardOutput = initdbOutput
        initdb.standardError = initdbOutput
        try initdb.run()
        let initdbLog = initdbOutput.fileHandleForReading.readDataToEndOfFile()
        initdb.waitUntilExit()
        guard initdb.terminationStatus == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw ClusterError("initdb failed: \(String(decoding: initdbLog, as: UTF8.self))")
        }

        let port = try freePort()
        let options = "-p \(port) -k \(directory) -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200"
        let pgctl = shellQuoted(binDirectory + "/pg_ctl") + " -D " + shellQuoted(data)
        // The watchdog: start postgres (pg_ctl detaches it), wait for stdin to close (this process exited),
        // stop it and delete the files. pg_ctl polls the pid file instead of wait(2): children of a test
        // process inherit a blocked SIGCHLD, which would leave a shell's `wait` hanging forever.
        let script = """
            \(pgctl) -l \(shellQuoted(log)) -o \(shellQuoted(options)) -w -t 30 start >/dev/null 2>&1 || { rm -rf \(shellQuoted(directory)); exit 1; }
            read _ || true
            \(pgctl) -m immediate -w stop >/dev/null 2>&1
            rm -rf \(shellQuoted(directory))
            """
        let watchdog = Process()
        configure(watchdog, runAs: runAs, directory: directory, arguments: ["/bin/sh", "-c", script])
        let input = Pipe()
        watchdog.standardInput = input
        watchdog.standardOutput = FileHandle.nullDevice
        watchdog.standardError = FileHandle.nullDevice
        try watchdog.run()

        let cluster = PostgresCluster(port: port, directory: directory, watchdog: watchdog, watchdogInput: input)
        cluster.pgctl = pgctl
        cluster.serverOptions = options
        cluster.runAs = runAs
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            if !watchdog.isRunning { break }
            if (try? AdminConnection(cluster.url(database: "postgres"))) != nil { return cluster }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let serverLog = (try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no log)"
        try? input.fileHandleForWriting.close()
        throw ClusterError("postgres did not start on port \(port): \(serverLog.suffix(2_000))")
    }

    /// Runs `arguments` as `runAs` (via setpriv) when this process is root, else as this user.
    private static func configure(_ process: Process, runAs: (uid: uid_t, gid: gid_t)?, directory: String, arguments: [String]) {
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        if let runAs {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(runAs.uid)", "--regid=\(runAs.gid)", "--clear-groups", "--"] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = Array(arguments.dropFirst())
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LC_ALL"] = "C"
        process.environment = environment
    }

    /// nil when not root; else the `postgres` user, or `nobody` when the package did not create it.
    private static func unprivilegedUser() throws -> (uid: uid_t, gid: gid_t)? {
        guard getuid() == 0 else { return nil }
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) { return (entry.pointee.pw_uid, entry.pointee.pw_gid) }
        }
        throw ClusterError("running as root and neither user 'postgres' nor 'nobody' exists to run initdb")
    }

    private static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClusterError("socket failed: errno \(errno)") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
            }
        }
        guard bound else { throw ClusterError("bind failed: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The fixture's own libpq session (no prepared statements, no store): enough for CREATE DATABASE and
/// pg_terminate_backend. Used only with ``PostgresCluster``'s lock held.
private final class AdminConnection {
    private let handle: OpaquePointer

    init(_ url: String) throws {
        guard let handle = PQconnectdb(url) else { throw PostgresCluster.ClusterError("PQconnectdb returned nil for \(url)") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresCluster.ClusterError("cannot connect to \(url): \(message)")
        }
        self.handle = handle
    }

    deinit { PQfinish(handle) }

    /// Runs `sql` (no parameters) and returns the last statement's rows as text; throws the server's message.
    func rows(_ sql: String) throws -> [[String?]] {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresCluster.ClusterError(String(cString: PQerrorMessage(handle)))
        }
        return (0..<PQntuples(result)).map { row in
            (0..<PQnfields(result)).map { column in
                PQgetisnull(result, row, column) == 1 ? nil : String(cString: PQgetvalue(result, row, column))
            }
        }
    }

    /// Runs `sql` (no parameters) and throws the server's message when it fails.
    func execute(_ sql: String) throws {
        let result = PQexec(handle, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            throw PostgresCluster.ClusterError("\(sql): \(String(cString: PQerrorMessage(handle)))")
        }
    }
}
