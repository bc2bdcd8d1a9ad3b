import Foundation
import HeraldTestSupport

/// One server and the clients connected to it for a scenario, on the shared process harness
/// (``TestServer``, ``ClientProcess``): users are created with tokens on the fly, each client is started and
/// waited on until its stream is live (the `connected` event), and every client quits when the world goes.
final class World: @unchecked Sendable {
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

    /// `dm <other>` from `client`; returns the conversation id.
    func dm(_ client: ClientProcess, _ other: String) throws -> String {
        let answer = try client.ok("dm \(other)")
        guard let id = answer.string("conversation") else { throw ProcessHarnessError("dm answered without a conversation: \(answer)") }
        return id
    }

    /// `group "<title>" <members…>` from `client`; returns the conversation id.
    func group(_ client: ClientProcess, title: String, _ members: [String]) throws -> String {
        let answer = try client.ok("group \"\(title)\" \(members.joined(separator: " "))")
        guard let id = answer.string("conversation") else { throw ProcessHarnessError("group answered without a conversation: \(answer)") }
        return id
    }

    /// `send <c> <text>` from `client`; returns the stored message id.
    @discardableResult
    func send(_ client: ClientProcess, _ conversation: String, _ text: String) throws -> String {
        let answer = try client.ok("send \(conversation) \(text)")
        guard let id = answer.string("message") else { throw ProcessHarnessError("send answered without a message id: \(answer)") }
        return id
    }

    deinit {
        for client in clients { client.quit() }
    }
}
