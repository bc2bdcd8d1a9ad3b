import Foundation

/// One server and the clients connected to it for a scenario: users are created with tokens on the fly,
/// each client is started and waited on until its stream is live (the `connected` event).
final class World: @unchecked Sendable {
    let server: ServerProcess
    private(set) var clients: [ScriptClient] = []
    private var tokens: [String: String] = [:]

    /// A fresh server with its own database. `pushGrace` is P4's grace in seconds.
    init(pushGrace: Double = 0, serverArguments: [String] = []) throws {
        server = try ServerProcess(pushGrace: pushGrace, extraArguments: serverArguments)
    }

    /// The token of `user` (display name: the id capitalised), made once.
    func token(_ user: String) throws -> String {
        if let token = tokens[user] { return token }
        let token = try server.token(user, name: user.prefix(1).uppercased() + user.dropFirst())
        tokens[user] = token
        return token
    }

    /// Makes sure `user` exists, without connecting a device.
    func createUser(_ user: String) throws {
        _ = try token(user)
    }

    /// Starts a device of `user` and waits until it is connected.
    func connect(_ user: String, arguments: [String] = [], toastDuration: Double? = 1, waitConnected: Bool = true) throws -> ScriptClient {
        let client = try ScriptClient(user, server: server.url, token: try token(user), arguments: arguments, toastDuration: toastDuration)
        clients.append(client)
        if waitConnected { try client.waitConnected() }
        return client
    }

    /// `dm <other>` from `client`; returns the conversation id.
    func dm(_ client: ScriptClient, _ other: String) throws -> String {
        let answer = try client.ok("dm \(other)")
        guard let id = answer.string("conversation") else { throw HarnessError("dm answered without a conversation: \(answer)") }
        return id
    }

    /// `group "<title>" <members…>` from `client`; returns the conversation id.
    func group(_ client: ScriptClient, title: String, _ members: [String]) throws -> String {
        let answer = try client.ok("group \"\(title)\" \(members.joined(separator: " "))")
        guard let id = answer.string("conversation") else { throw HarnessError("group answered without a conversation: \(answer)") }
        return id
    }

    /// `send <c> <text>` from `client`; returns the stored message id.
    @discardableResult
    func send(_ client: ScriptClient, _ conversation: String, _ text: String) throws -> String {
        let answer = try client.ok("send \(conversation) \(text)")
        guard let id = answer.string("message") else { throw HarnessError("send answered without a message id: \(answer)") }
        return id
    }

    deinit {
        for client in clients { _ = client.quit() }
    }
}

extension JSONLine {
    /// unread(c) from a `state` line.
    func unread(_ conversation: String) -> Int? { (dict("unread")?[conversation] as? NSNumber)?.intValue }
    /// The visible toast of a `state` line, if any.
    var toast: [String: Any]? { dict("toast") }
    /// The viewport of a `state` line, if any.
    var viewport: [String: Any]? { dict("viewport") }
    /// Visible message ids of the viewport.
    var visible: [String] { (viewport?["visible"] as? [String]) ?? [] }
    /// The pushes a `state` line holds.
    var pushes: [[String: Any]] { (array("pushes") as? [[String: Any]]) ?? [] }
    /// The bell object of a `state` line.
    var bell: [String: Any]? { dict("bell") }
    /// Conversation ids in list order.
    var conversationOrder: [String] { ((array("conversations") as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String } }
}
