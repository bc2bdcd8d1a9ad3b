import CSQLite
import Foundation
import HeraldStoreProtocol

/// Copies the WAL into the database file on a thread of its own, so the writer's commits do not wait for it.
///
/// With SQLite's automatic checkpoints, the commit that crosses the WAL threshold copies the pages and fdatasyncs the
/// file on the committing thread: for the server that is the sync thread, and every request of that batch waits. The
/// writer's connection has `wal_autocheckpoint = 0` instead, and this thread runs a PASSIVE checkpoint every `interval` (``Settings``)
/// on its own connection; PASSIVE never blocks the writer or readers. Durability is unchanged (WAL + NORMAL: commits
/// are in the WAL with write(2); the WAL is fsynced by the checkpoint, now here). In the chat benchmark (5,000 users
/// × 1 msg/s, server pinned to one core) the delivery p99 went from 19.6 ms to 11-12.5 ms.
///
/// Under steady writes a PASSIVE checkpoint never catches up with the end of the WAL, so the WAL would never start
/// over and would grow without bound (it reached 1.4 GB in 10 s of that benchmark). When it is longer than
/// `restartFrames`, the thread runs a RESTART checkpoint: it waits for the current commit, holds new ones back while
/// it copies what is left (little, since PASSIVE copied the rest), and the next commit starts the WAL over.
/// Measured alternatives: SCHED_IDLE for this thread starves it on a saturated core (the WAL grew to 550 MB and the
/// eventual RESTART stalled commits for 350 ms); SQLite's own checkpoints alone give the 19.6 ms above.
final class SQLiteCheckpointer: @unchecked Sendable {
    struct Settings {
        /// How often to checkpoint.
        var interval: TimeInterval = 0.2
        /// The WAL length (in frames of one page, 4 KiB) beyond which the WAL is made to start over: 64 MiB. Each
        /// restart holds the writer back for the copy of the last frames and an fdatasync of the database file; at
        /// 16 MiB the chat load (5,000 messages/s in 1,000+ small commits/s) restarted the WAL every ~0.6 s.
        var restartFrames = 16_384
    }

    private let connection: SQLiteConnection
    private let settings: Settings
    private let condition = NSCondition()
    private var stopping = false
    private var finished = false

    init(path: String, settings: Settings) throws(StoreError) {
        self.settings = settings
        connection = try SQLiteConnection(path: path, readOnly: false, busyTimeoutMilliseconds: 5_000)
        // A connection learns that the file is in WAL mode only when it first reads it; until then a checkpoint
        // quietly does nothing (and reports -1 frames).
        try connection.executeScript("PRAGMA journal_mode = WAL")
        let thread = Thread { [self] in run() }
        thread.name = "herald-checkpoint"
        thread.start()
    }

    /// Stops the thread (after its current checkpoint) and closes its connection. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while !finished { condition.wait() }
        condition.unlock()
    }

    private func run() {
        condition.lock()
        while !stopping {
            _ = condition.wait(until: Date(timeIntervalSinceNow: settings.interval))
            if stopping { break }
            condition.unlock()
            checkpointOnce()
            condition.lock()
        }
        connection.close()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func checkpointOnce() {
        // Errors (busy: another checkpoint is running; I/O) are retried at the next interval; the writer is unaffected.
        guard let (frames, _) = try? connection.checkpoint(mode: SQLITE_CHECKPOINT_PASSIVE), frames > settings.restartFrames else { return }
        _ = try? connection.checkpoint(mode: SQLITE_CHECKPOINT_RESTART)
    }
}
