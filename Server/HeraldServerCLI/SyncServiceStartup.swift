import HeraldPush
import HeraldServer
import HeraldStore
import Synchronization
import Logging

/// Opens the store the options name and creates on it the /sync service, which registers its route on `server`, and
/// the backend API (`/api/v1/`), which registers its own and goes through the sync service for everything it reads
/// and writes (API keys included): stopping the sync service stops both.
///
/// With push credentials, the push gateway too: its workers drain the store's push queue, woken by the sync thread
/// when it queues pushes; the caller stops it after the sync service.
func startSyncService(options: HeraldServerOptions, server: HeraldHTTPServer, logger: Logger) throws -> (SyncService, PushGateway?) {
    let location = StoreLocation(dbPath: options.dbPath, storeURL: options.store)
    let storage = try location.openForServing(logger: logger)
    let gateway: PushGateway?
    do { gateway = try makePushGateway(options: options, location: location, logger: logger) } catch {
        storage.store.close()
        throw error
    }
    var wake: (@Sendable () -> Void)?
    if let gateway { wake = { gateway.wake() } }
    let sync = try SyncService(storage: storage, options: options, server: server, logger: logger, pushQueued: wake)
    _ = APIService(sync: sync, server: server, options: options.api, logger: logger)
    if let gateway {
        server.metrics.appended.withLock { $0.append { gateway.metrics.prometheusText() } }
        gateway.start()
    }
    return (sync, gateway)
}
