import HeraldSync

extension APIService {
    /// A user's mute of a conversation after POST /users/{id}/mutes or DELETE /users/{id}/mutes/{conversation} (N1).
    @Sendable static func muteState(_ value: BackendValue) -> HTTPResponse? {
        guard case .muteState(let user, let conversation, let muted, let until) = value else { return nil }
        return .json(200, APIResponses.MuteState(user: user, conversation: conversation, muted: muted, mutedUntil: until))
    }
}

extension APIResponses {
    /// Whether a user's conversation is muted, and until when (ms since the epoch; null: until unmuted).
    struct MuteState: Codable, Equatable {
        var user: String
        var conversation: String
        var muted: Bool
        var mutedUntil: Int64?
    }
}
