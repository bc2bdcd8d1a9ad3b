import Foundation
import HeraldTestSupport

/// The multi-node counterpart of HeraldEndToEndTests' World, with the same API so the same scenario files run:
/// two nodes on one PostgreSQL database (``Nodes``), and each client this world connects goes to the next node in
/// turn (round robin), so a conversation's members, and a user's devices, sit on different nodes.
final class World: ScenarioWorld, @unchecked Sendable {
    let server: Nodes
    private(set) var clients: [ClientProcess] = []

    /// Two fresh nodes on a fresh database. `pushGrace` is P4's grace in seconds (0 so tests need no waits).
    init(pushGrace: Double = 0, serverArguments: [String] = []) throws {
        server = try Nodes(pushGrace: pushGrace, arguments: serverArguments)
    }

    /// Makes sure `user` exists (display name: the id capitalised), without connecting a device.
    func createUser(_ user: String) throws {
        _ = try server.token(user)
    }

    /// Starts a device of `user` on the next node with short toasts unless told otherwise, and waits until it is
    /// connected.
    func connect(_ user: String, arguments: [String] = [], toastDuration: Double? = 1, waitConnected: Bool = true) throws -> ClientProcess {
        let node = server.nodes[clients.count % server.nodes.count]
        let client = try ClientProcess.start(port: node.port, token: try server.token(user), name: user,
                                             toastDuration: toastDuration, arguments: arguments)
        clients.append(client)
        if waitConnected { try client.waitConnected() }
        return client
    }

    deinit {
        for client in clients { client.quit() }
    }
}
