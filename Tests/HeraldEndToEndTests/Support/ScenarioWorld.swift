import HeraldTestSupport

/// What scenarios do through a world, the same on one node (HeraldEndToEndTests) or spread over several
/// (HeraldEndToEndMultiNodeTests, which links this file).
protocol ScenarioWorld: AnyObject {}

extension ScenarioWorld {
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
}
