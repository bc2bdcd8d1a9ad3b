import HeraldServer
import Logging

/// What `serve` must stop after the HTTP server has shut down.
protocol StoppableService {
    func shutdown()
}

extension SyncService: StoppableService {}

/// The /sync service and the /api/v1 backend API on top of it.
struct SyncAndAPI: StoppableService {
    let sync: SyncService
    let api: APIService

    func shutdown() {
        sync.shutdown()
        api.shutdown()
    }
}

/// Creates the /sync service, which opens the database and registers its route on `server`, and the backend API
/// (`/api/v1/`) that writes through it.
func startSyncService(options: HeraldServerOptions, api: APIOptions, server: HeraldHTTPServer, logger: Logger) throws -> any StoppableService {
    let sync = try SyncService(options: options, server: server, logger: logger)
    do {
        return SyncAndAPI(sync: sync, api: try APIService(sync: sync, server: server, options: api, logger: logger))
    } catch {
        sync.shutdown()
        throw error
    }
}
