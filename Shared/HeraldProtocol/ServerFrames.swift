import Foundation
import HeraldRules

/// How a `sync` was answered.
public enum SyncMode: String, Codable, Sendable {
    /// No cursor was given: the response carries the full state (conversations, bell).
    case snapshot
    /// Every event after the cursor was replayed before this response, exactly once and in order (R3). With
    /// ``ResponseFrame/more`` the replay stopped at a bounded page ending at `latest`: the device is not live yet and
    /// sends `sync` again with `after` = `latest`.
    case resume
    /// The cursor is older than the retained stream: the response carries the full state; reload (R3).
    case resync
}

/// The answer to one request. Exactly one per request, carrying its id.
///
/// Fields are filled as they fit the request; absent fields are omitted from the JSON.
public struct ResponseFrame: Codable, Sendable, Equatable {
    public var type: String = "response"
    /// The request's id; nil only when the request had no readable id.
    public var id: Int?
    public var ok: Bool
    public var error: ErrorInfo?

    // sync
    public var mode: SyncMode?
    /// The newest event sequence of the user's stream that this response reflects (U7); for a resume page with
    /// ``more``, the last replayed sequence.
    public var latest: Int64?
    /// A resume was cut at a bounded page (flow control for long backlogs): the stream is not live yet; send `sync`
    /// with `after` = ``latest`` for the next page. Absent on the final page, which makes the stream live (R1a).
    public var more: Bool?
    // conversations, dm, group
    public var conversation: ConversationInfo?
    public var conversations: [ConversationInfo]?
    // history, search
    public var messages: [MessageInfo]?
    public var hasMore: Bool?
    /// `members`: one page of a conversation's participants, by id.
    public var participants: [ParticipantInfo]?
    /// `users`: one page of the other users, by id.
    public var users: [ParticipantInfo]?
    // send
    public var message: MessageInfo?
    /// True when a send was a retry of an already stored message (R4).
    public var duplicate: Bool?
    // ack
    /// The ids that became read by this request.
    public var read: [String]?
    // unread state (sync, conversations, ack)
    public var unread: [String: Int]?
    public var badge: Int?
    // bell
    public var notification: NotificationInfo?
    public var notifications: [NotificationInfo]?
    public var bellUnread: Int?
    // push.register, push.unregister: the device the target belongs to
    public var device: String?
    /// N3: the user's quiet hours (snapshot, `quiet`).
    public var quiet: Bool?

    public init(id: Int?, ok: Bool = true) {
        self.id = id
        self.ok = ok
    }

    /// A failed response.
    public static func failure(id: Int?, _ error: ErrorInfo) -> ResponseFrame {
        var frame = ResponseFrame(id: id, ok: false)
        frame.error = error
        return frame
    }

    /// The JSON text of this response.
    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

/// The names of server events.
public enum EventName: String, Codable, Sendable {
    /// A message was stored in one of the user's conversations (also the user's own, for their other devices).
    case message
    /// The user was added to a conversation (a new dm or group).
    case conversation
    /// The user's read state changed (on any of their devices): `messages` became read; `unread`/`badge` are the new counts.
    case read
    /// Someone read one of the user's messages (U6).
    case receipt
    /// The bell changed: `action` is created, read or readAll; `bellUnread` is the new count.
    case bell
    /// A push alert for this device, which is in the background (P2). Not part of the stream: no seq.
    case push
    /// A push this device received was withdrawn because its message was read (P5). No seq.
    case pushCleared = "push.cleared"
    /// `user` left the group `conversationId`: when it is this user, the conversation is gone from their list and
    /// counts; otherwise drop `user` from its participants.
    case left
    /// A group's title or participants changed (G1, G2): `conversation` is the group as it is now. Its `unread` is not
    /// this user's count (one body goes to every participant): keep the count you have.
    case groupChanged = "group.changed"
    /// The user's alert settings changed on one of their devices (N1, N3, N4): `conversationId` with `muted` (and
    /// `mutedUntil`) or `markedUnread` (with `unread`/`badge`), or `quiet` for the user.
    case settings
    /// A message was edited (M1): `message` is it with its new text, `edited` and `editedAt`. Never alerts, never
    /// changes unread state.
    case messageEdited = "message.edited"
    /// A message was unsent (M2): `message` is its placeholder (`unsent`, no text). For a user who had not read it,
    /// `unread`/`badge` are the new counts (U7).
    case messageUnsent = "message.unsent"
    /// `user` started (`typing` true) or stopped typing in `conversationId` (E1). Ephemeral: no seq, never replayed.
    case typing
    /// `user`'s presence is now `status` (with `lastSeen` when offline) (E2). Ephemeral: no seq, never replayed.
    case presence
    /// `user` reacted `emoji` to `messageId` in `conversationId` (at `at`): to every participant, so each shows the
    /// reactions under the message. A stream event with a seq, replayed on resume like an edit.
    case reaction
}

/// What happened to the bell.
public enum BellAction: String, Codable, Sendable {
    case created, read, readAll
}

/// One server event. Stream events carry the user's sequence number `seq` (R3, U7); device-only events
/// (push, push.cleared) carry none.
public struct EventFrame: Codable, Sendable, Equatable {
    public var type: String = "event"
    public var event: EventName
    public var seq: Int64?

    public var message: MessageInfo?
    public var conversation: ConversationInfo?
    /// The conversation an id-only event is about (read, receipt, push.cleared).
    public var conversationId: String?
    /// Message ids that became read (read event).
    public var messages: [String]?
    public var unread: [String: Int]?
    public var badge: Int?
    // receipt
    public var messageId: String?
    public var reader: String?
    public var at: Int64?
    // bell
    public var action: BellAction?
    public var notification: NotificationInfo?
    public var notificationIds: [String]?
    public var bellUnread: Int?
    // push
    public var push: PushInfo?
    /// `message.unsent`: the conversation's list preview now, its newest message not unsent (M2); absent when none is left.
    public var lastMessage: MessageInfo?
    // left
    public var user: String?
    // settings (N1, N3, N4)
    public var muted: Bool?
    public var mutedUntil: Int64?
    public var markedUnread: Bool?
    public var quiet: Bool?
    // typing, presence
    public var typing: Bool?
    public var status: PresenceStatus?
    public var lastSeen: Int64?
    // reaction
    public var emoji: String?

    public init(event: EventName) {
        self.event = event
    }

    /// The JSON text of this event without `seq`: encoded once and shared by every receiver, whose own
    /// sequence number is spliced in by ``withSequence(_:seq:)``.
    public func encodeBody() -> [UInt8] {
        var copy = self
        copy.seq = nil
        var writer = JSONWriter()
        copy.write(to: &writer)
        return writer.bytes
    }

    /// Splices `"seq":N` into an encoded event body, so one encoding serves every user of a fan-out.
    public static func withSequence(_ body: [UInt8], seq: Int64) -> [UInt8] {
        var out = sequencePrefix(seq)
        out.append(contentsOf: body.dropFirst())  // drop "{"
        return out
    }

    /// `{"seq":N,` — the per-user bytes that precede a shared body (without its leading `{`).
    public static func sequencePrefix(_ seq: Int64) -> [UInt8] {
        Array("{\"seq\":\(seq),".utf8)
    }

    /// The most bytes ``writeSequencePrefix(_:into:)`` writes: `{"seq":` + the 20 characters of `Int64.min` + `,`.
    public static let maxSequencePrefixSize = 28

    /// Writes ``sequencePrefix(_:)`` into `buffer` without allocating (fan-out writes it per receiver) and returns
    /// how many bytes it wrote; 0 when `buffer` is shorter than ``maxSequencePrefixSize``.
    public static func writeSequencePrefix(_ seq: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count >= maxSequencePrefixSize else { return 0 }
        var index = 0
        for byte in "{\"seq\":".utf8 {
            buffer[index] = byte
            index += 1
        }
        if seq < 0 {
            buffer[index] = UInt8(ascii: "-")
            index += 1
        }
        // Digits of the magnitude, most significant first (UInt64 holds |Int64.min|).
        let magnitude = seq.magnitude
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            buffer[index] = UInt8(ascii: "0") + UInt8(magnitude / divisor % 10)
            index += 1
            divisor /= 10
        }
        buffer[index] = UInt8(ascii: ",")
        return index + 1
    }
}

/// Anything the server sends on /sync, as the client decodes it.
public enum ServerFrame: Sendable, Equatable {
    case response(ResponseFrame)
    case event(EventFrame)

    private struct TypeProbe: Decodable { var type: String }

    /// Decodes one text frame from the server.
    public static func decode(_ bytes: [UInt8]) -> Result<ServerFrame, ErrorInfo> {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        do {
            switch try decoder.decode(TypeProbe.self, from: data).type {
            case "response": return .success(.response(try decoder.decode(ResponseFrame.self, from: data)))
            case "event": return .success(.event(try decoder.decode(EventFrame.self, from: data)))
            case let other: return .failure(ErrorInfo(.unknownType, "unknown server frame type '\(other.prefix(64))'"))
            }
        } catch {
            return .failure(ErrorInfo(.badJSON, "undecodable server frame: \(error)"))
        }
    }
}
