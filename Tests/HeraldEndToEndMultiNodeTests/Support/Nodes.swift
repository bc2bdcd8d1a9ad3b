import Foundation
import HeraldTestSupport

/// Two real `herald-server` nodes on one fresh database of the shared ``PostgresCluster``: what a multi-node
/// world calls "the server".
///
/// Stopping and restarting act on every node, so "the server restarts" means the whole deployment goes away and
/// comes back (R3), which is what the single-node scenario expects of every client, whichever node it is on.
final class Nodes: @unchecked Sendable {
    // @unchecked: immutable; TestServer is thread-safe.

    /// The nodes, in the order clients are spread over them.
    let nodes: [TestServer]
    /// The `postgres://` URL of the database the nodes share.
    let store: String

    /// A fresh database and `count` nodes serving it.
    init(count: Int = 2, pushGrace: Double, arguments: [String]) throws {
        let url = try PostgresCluster.newDatabase()
        store = url
        nodes = try (0..<count).map { _ in try TestServer(pushGrace: pushGrace, arguments: arguments, store: url) }
    }

    /// The first node's port (the one tokens are minted through).
    var port: Int { nodes[0].port }

    /// A token for `user` (`herald-server token --store`), valid on every node: the secret lives in the store.
    func token(_ user: String) throws -> String { try nodes[0].token(user) }

    /// SIGTERM to every node, then waits for each; returns 0 when every node exited 0, else the first other status
    /// (nil: a node was still running at the deadline and was killed).
    @discardableResult
    func stop(timeout: Duration = .seconds(15)) -> Int32? {
        var statuses: [Int32?] = []
        for node in nodes { statuses.append(node.stop(timeout: timeout)) }
        return statuses.first { $0 != 0 } ?? 0
    }

    /// Starts every node again on its own port and the same store, so clients reconnect to the node they were on.
    func restart() throws {
        for node in nodes { try node.restart() }
    }

    /// Every node's log, labelled, for failure messages.
    var standardError: String {
        nodes.enumerated().map { "node \($0.offset):\n\($0.element.standardError)" }.joined(separator: "\n")
    }
}
