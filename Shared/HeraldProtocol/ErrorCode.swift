/// The stable error codes of herald.v1 responses. Clients switch on these; the message is for people.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    /// The frame is not a JSON object.
    case badJSON = "bad_json"
    /// A field is missing, has the wrong type, or an invalid value.
    case badRequest = "bad_request"
    /// The `type` names no request of this protocol version.
    case unknownType = "unknown_type"
    /// A field or the whole frame is over its limit.
    case tooLarge = "too_large"
    /// The conversation does not exist or the user is not in it; both look the same (R5).
    case notParticipant = "not_participant"
    /// The message or notification does not exist or is not the user's to see; both look the same (R5).
    case notFound = "not_found"
    /// The named user does not exist.
    case unknownUser = "unknown_user"
    /// The request conflicts with the current state: it reuses a key that already names something else (a
    /// clientMessageId used in another conversation), leaves, renames or adds to a direct conversation (G6), unsends a
    /// system line (G5) or edits an image or unsent message; nothing was stored. Retrying the same request fails the
    /// same way.
    case conflict = "conflict"
    /// Too many requests; retry later. The connection stays open.
    case rateLimited = "rate_limited"
    /// The store refused the write (disk full, read-only); nothing was stored.
    case unavailable = "unavailable"
    /// A request that needs `sync` first, or a second `sync`.
    case badState = "bad_state"
    /// A server bug; nothing was stored.
    case `internal` = "internal"
    /// The request is understood, but this user may not do it (M1, M2: only the sender edits or unsends a message; G3:
    /// only a group's creator removes another member).
    case forbidden = "forbidden"
    /// The time allowed for it has passed (M1: 15 minutes to edit, M2: 2 minutes to unsend, by default).
    case tooLate = "too_late"
    /// The message was edited as many times as allowed (M1: 5).
    case tooManyEdits = "too_many_edits"
    /// The user stored as much message content today (UTC) as the server allows (`--user-daily-quota-bytes`); nothing was
    /// stored. Retrying fails the same way until the next UTC day.
    case quotaExceeded = "quota_exceeded"
}

/// The error object of a failed response.
public struct ErrorInfo: Codable, Sendable, Equatable, Error {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }
}
