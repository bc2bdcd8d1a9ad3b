import HeraldSync

extension APIService {
    /// Renders an edit's or unsend's result (M1, M2): 200 with the message as it is now, a retry alike.
    @Sendable static func revisedMessage(_ value: BackendValue) -> HTTPResponse? {
        guard case .message(let info, _) = value else { return nil }
        return .json(200, APIResponses.RevisedMessage(message: info))
    }

    /// Renders a group's rename or new member (G1, G2): 200 with the group as the acting participant sees it now.
    @Sendable static func changedGroup(_ value: BackendValue) -> HTTPResponse? {
        guard case .conversation(let info, _) = value else { return nil }
        return .json(200, APIResponses.conversation(info))
    }
}
