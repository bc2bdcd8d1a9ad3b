import HeraldServer
import Logging

/// What `serve` must stop after the HTTP server has shut down.
protocol StoppableService {
    func shutdown()
}

/// Creates the /sync service (which registers its route on `server`).
///
/// TEMPORARY SWITCH: SyncService (owner "sync") did not exist when this was written, so this returns a no-op.
/// Once `SyncService` lands, replace the body with:
/// `return try SyncService(options: options, server: server, logger: logger)` and keep the conformance below.
func startSyncService(options: HeraldServerOptions, server: HeraldHTTPServer, logger: Logger) throws -> any StoppableService {
    NoSyncService()
}

private struct NoSyncService: StoppableService {
    func shutdown() {}
}
