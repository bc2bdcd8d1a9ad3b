import Foundation
import Glibc
import Synchronization

/// A child process started with `posix_spawn` and reaped with `waitpid`, never Foundation's `Process`.
///
/// Foundation's `Process` learns of a child's exit through a socket the child holds; when another child
/// (a forked tmux server, a process spawned concurrently) keeps that socket open, `waitUntilExit` never returns.
/// Here the exit status comes from `waitpid` on our own pid only, children inherit nothing but stdin, stdout and
/// stderr (every other descriptor is closed in the child), and start with default signal handling and no
/// blocked signals whatever the test thread had.
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `pid` is immutable; the reaped status is guarded by the Mutex.

    /// Where one of the child's standard streams goes.
    public enum Stream: Sendable {
        /// /dev/null.
        case null
        /// A file, created or truncated.
        case file(String)
        /// A pipe; the parent's end is in ``ChildProcess/pipes``.
        case pipe
    }

    /// The parent's ends of the pipes asked for (owned by the caller, which must close them).
    public struct Pipes: Sendable {
        /// Write end of the child's stdin.
        public var input: Int32?
        /// Read end of the child's stdout.
        public var output: Int32?
        /// Read end of the child's stderr.
        public var error: Int32?
    }

    /// The child's process id.
    public let pid: pid_t
    /// The executable's path.
    public let executable: String
    /// The parent's ends of the pipes.
    public let pipes: Pipes
    private let reaped = Mutex<Int32?>(nil)

    /// Starts `executable` with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; nil inherits the test process's.
    ///   - input, output, error: where stdin, stdout and stderr go.
    public init(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                input: Stream = .null, output: Stream = .null, error: Stream = .null) throws {
        (pid, pipes) = try Self.spawnLock.withLock { _ in
            try Self.spawn(executable, arguments, environment: environment, input: input, output: output, error: error)
        }
        self.executable = executable
    }

    /// Held from creating a child's pipes to spawning it, so no other child of ours inherits them.
    private static let spawnLock = Mutex<Void>(())

    /// The descriptors open in this process now.
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    private static func spawn(_ executable: String, _ arguments: [String], environment: [String: String]?,
                              input: Stream, output: Stream, error: Stream) throws -> (pid_t, Pipes) {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ProcessHarnessError("\(executable) is missing or not executable: run `swift build` first or set HERALD_BIN_DIR")
        }
        ignoreBrokenPipes
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentEnds = Pipes()
        var childEnds: [Int32] = []
        defer { for fd in childEnds { close(fd) } }
        func route(_ stream: Stream, to target: Int32, childReads: Bool) throws -> Int32? {
            switch stream {
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", childReads ? O_RDONLY : O_WRONLY, 0)
                return nil
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, childReads ? O_RDONLY : (O_WRONLY | O_CREAT | O_TRUNC), 0o600)
                return nil
            case .pipe:
                var fds: [Int32] = [0, 0]
                // pipe2 is a GNU extension Swift's Glibc does not import; spawnLock keeps our other spawns from
                // inheriting these descriptors before close-on-exec is set.
                guard pipe(&fds) == 0 else { throw ProcessHarnessError("pipe failed: errno \(errno)") }
                for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
                let (childEnd, parentEnd) = childReads ? (fds[0], fds[1]) : (fds[1], fds[0])
                childEnds.append(childEnd)
                // dup2 clears close-on-exec on the target descriptor, so only 0, 1 and 2 survive the exec.
                posix_spawn_file_actions_adddup2(&actions, childEnd, target)
                return parentEnd
            }
        }
        do {
            parentEnds.input = try route(input, to: 0, childReads: true)
            parentEnds.output = try route(output, to: 1, childReads: false)
            parentEnds.error = try route(error, to: 2, childReads: false)
        } catch {
            for fd in [parentEnds.input, parentEnds.output, parentEnds.error].compactMap({ $0 }) { close(fd) }
            throw error
        }
        // The child keeps 0, 1 and 2 only (closefrom is a GNU extension Swift does not import): a descriptor
        // that closes meanwhile is ignored by glibc's close action.
        for fd in Self.openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        let envp = environmentLines.map { strdup($0) } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard spawned == 0 else {
            for fd in [parentEnds.input, parentEnds.output, parentEnds.error].compactMap({ $0 }) { close(fd) }
            throw ProcessHarnessError("posix_spawn \(executable) failed: \(String(cString: strerror(spawned)))")
        }
        return (pid, parentEnds)
    }

    /// Writing to a pipe whose reader has gone must be an error (EPIPE), not the end of the test process.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The exit status once the child has ended: its exit code, or 128 + the signal that ended it (as a shell
    /// reports it). nil while it runs. Reaps the child.
    public var exitStatus: Int32? {
        reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
            if result == pid { reaped = Self.decode(status) }
            return reaped
        }
    }

    /// Whether the child is still running.
    public var isRunning: Bool { exitStatus == nil }

    /// Sends `signal` unless the child has already been reaped (its pid could then belong to someone else).
    public func send(signal: Int32) {
        reaped.withLock { reaped in
            if reaped == nil { _ = kill(pid, signal) }
        }
    }

    /// Waits up to `timeout` for the child to end; returns its exit status, or nil if it still runs.
    public func waitForExit(timeout: Duration) -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let status = exitStatus { return status }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// Waits up to `timeout`, then SIGKILLs a child still running; returns the exit status either way.
    public func waitForExitOrKill(timeout: Duration) -> Int32 {
        if let status = waitForExit(timeout: timeout) { return status }
        send(signal: SIGKILL)
        return reaped.withLock { reaped in
            if let reaped { return reaped }
            var status: Int32 = 0
            var result: pid_t
            repeat { result = waitpid(pid, &status, 0) } while result < 0 && errno == EINTR
            reaped = result == pid ? Self.decode(status) : 128 + SIGKILL
            return reaped ?? 128 + SIGKILL
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }

    deinit {
        // Never leave a running child or a zombie behind.
        _ = waitForExitOrKill(timeout: .zero)
    }
}

/// What ``runToCompletion(_:_:environment:timeout:)`` saw.
public struct CompletedProcess: Sendable {
    /// Exit code, or 128 + signal.
    public let status: Int32
    /// Everything written to stdout.
    public let standardOutput: String
    /// Everything written to stderr.
    public let standardError: String

    /// The last line of stdout as a JSON object (how `herald-bench` reports a run); nil when it is not one.
    public var lastJSONObject: [String: Any]? {
        let line = standardOutput.split(separator: "\n").last.map(String.init) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }
}

/// Runs `executable` to completion (stdin /dev/null) and returns its status, stdout and stderr.
///
/// stdout and stderr go to temporary files rather than pipes, so a child that forks a daemon (tmux) is done when
/// the child itself exits, not when the daemon closes its copy of a pipe. A child still running at `timeout` is
/// killed and reported as an error.
@discardableResult
public func runToCompletion(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                            timeout: Duration = .seconds(120)) throws -> CompletedProcess {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("herald-run-\(UUID().uuidString)").path
    let outputPath = base + ".out", errorPath = base + ".err"
    defer {
        unlink(outputPath)
        unlink(errorPath)
    }
    let child = try ChildProcess(executable, arguments, environment: environment, output: .file(outputPath), error: .file(errorPath))
    let finished = child.waitForExit(timeout: timeout)
    let status = child.waitForExitOrKill(timeout: .zero)
    let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    let errors = (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? ""
    guard finished != nil else {
        throw ProcessHarnessError("\(executable) \(arguments.joined(separator: " ")) still running after \(timeout); killed.\nstdout:\n\(output)\nstderr:\n\(errors)")
    }
    return CompletedProcess(status: status, standardOutput: output, standardError: errors)
}
