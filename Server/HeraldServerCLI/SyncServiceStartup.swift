import HeraldServer
import Logging

/// Opens the store the options name and creates on it the /sync service, which registers its route on `server`, and
/// the backend API (`/api/v1/`), which registers its own and goes through the sync service for everything it reads
/// and writes (API keys included): stopping the sync service stops both.
func startSyncService(options: HeraldServerOptions, server: HeraldHTTPServer, logger: Logger) throws -> SyncService {
    let storage = try StoreLocation(dbPath: options.dbPath, storeURL: options.store).openForServing(logger: logger)
    let sync = try SyncService(storage: storage, options: options, server: server, logger: logger)
    _ = APIService(sync: sync, server: server, options: options.api, logger: logger)
    return sync
}
