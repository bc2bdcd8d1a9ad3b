import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol
import HeraldSync

/// The JSON bodies the API answers with (schemas in openapi.json).
enum APIResponses {
    struct User: Codable, Equatable {
        var id: String
        var name: String
    }

    struct Token: Codable, Equatable {
        var token: String
        var user: User
        /// Unix seconds.
        var expiresAt: Int64
    }

    /// The answer to a member's removal from a group.
    struct Removed: Codable, Equatable {
        var conversation: String
        var user: String
    }

    /// A device's push target as the API shows it: where it is alerted, without the Web Push keys.
    struct PushTarget: Codable, Equatable {
        var user: String
        var device: String
        var provider: String
        /// The APNs/FCM/webhook token, or the Web Push endpoint.
        var token: String
        var topic: String?
        var sandbox: Bool
        /// Milliseconds since the epoch.
        var updatedAt: Int64

        init(_ record: PushTargetRecord) {
            user = record.user
            device = record.device
            provider = record.provider.rawValue
            token = record.token
            topic = record.topic
            sandbox = record.sandbox
            updatedAt = record.updatedAt
        }
    }

    struct PushTargets: Codable, Equatable {
        var user: String
        var targets: [PushTarget]
    }

    struct RemovedPushTarget: Codable, Equatable {
        var user: String
        var device: String
    }

    /// The answer to a sign-out: whose, and which device (absent: every device).
    struct SignedOut: Codable, Equatable {
        var user: String
        var device: String?
    }

    struct Conversation: Codable, Equatable {
        var id: String
        var kind: ConversationKind
        var title: String?
        var participants: [ParticipantInfo]
        var lastActivity: Int64
    }

    struct PostedMessage: Codable, Equatable {
        var message: MessageInfo
        /// True when this was a retry of an already stored (sender, clientMessageId) (R4): nothing new was sent.
        var duplicate: Bool
    }

    struct CreatedNotification: Codable, Equatable {
        var notification: NotificationInfo
        var bellUnread: Int
        var bellBadgeText: String
    }

    struct ConversationUnread: Codable, Equatable {
        var conversation: String
        var unread: Int
    }

    struct Unread: Codable, Equatable {
        var user: String
        var conversations: [ConversationUnread]
        var badge: Int
        var badgeText: String
        var bellUnread: Int
        var bellBadgeText: String
        /// The user's stream position these counts reflect (U7).
        var latest: Int64
    }

    struct Health: Codable, Equatable {
        var status: String
        var connections: Int
        var uptimeSeconds: Int64
        var version: String
    }

    static func conversation(_ info: ConversationInfo) -> Conversation {
        Conversation(id: info.id, kind: info.kind, title: info.title, participants: info.participants, lastActivity: info.lastActivity)
    }

    static func unread(user: String, perConversation: [String: Int], badge: Int, bellUnread: Int, latest: Int64) -> Unread {
        // Ordered by conversation number, so the same state gives the same bytes.
        let rows = perConversation.map { ConversationUnread(conversation: $0.key, unread: $0.value) }
            .sorted { ($0.conversation.count, $0.conversation) < ($1.conversation.count, $1.conversation) }
        return Unread(
            user: user, conversations: rows, badge: badge, badgeText: BadgeText.text(for: badge), bellUnread: bellUnread,
            bellBadgeText: BadgeText.text(for: bellUnread), latest: latest)
    }
}
