import Foundation
import HeraldTestSupport

/// One server and the clients connected to it for a scenario, on the shared process harness
/// (``TestServer``, ``ClientProcess``): users are created with tokens on the fly, each client is started and
/// waited on until its stream is live (the `connected` event), and every client quits when the world goes.
final class World: ScenarioWorld, @unchecked Sendable {
    let server: TestServer
    private(set) var clients: [ClientProcess] = []

    /// A fresh server with its own database. `pushGrace` is P4's grace in seconds (0 so tests need no waits).
    init(pushGrace: Double = 0, serverArguments: [String] = []) throws {
        server = try TestServer(pushGrace: pushGrace, arguments: serverArguments)
    }

    /// Makes sure `user` exists (display name: the id capitalised), without connecting a device.
    func createUser(_ user: String) throws {
        _ = try server.token(user)
    }

    /// Starts a device of `user` with short toasts unless told otherwise, and waits until it is connected.
    func connect(_ user: String, arguments: [String] = [], toastDuration: Double? = 1, waitConnected: Bool = true) throws -> ClientProcess {
        let client = try server.client(user, toastDuration: toastDuration, arguments: arguments, waitConnected: false)
        clients.append(client)
        if waitConnected { try client.waitConnected() }
        return client
    }

    deinit {
        for client in clients { client.quit() }
    }
}
