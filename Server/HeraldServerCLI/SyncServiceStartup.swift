import HeraldServer
import Logging

/// What `serve` must stop after the HTTP server has shut down.
protocol StoppableService {
    func shutdown()
}

extension SyncService: StoppableService {}

/// Creates the /sync service, which opens the database and registers its route on `server`.
func startSyncService(options: HeraldServerOptions, server: HeraldHTTPServer, logger: Logger) throws -> any StoppableService {
    try SyncService(options: options, server: server, logger: logger)
}
