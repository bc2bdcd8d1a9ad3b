/// The server frames' JSON, written with ``JSONWriter``: the same keys in the same order as their `Codable`
/// conformances (which the clients decode with), absent optionals omitted.

import HeraldRules

extension ErrorInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("code", code.rawValue)
            out.field("message", message)
        }
    }
}

extension ParticipantInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("id", id)
            out.field("name", name)
        }
    }
}

extension MessageInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("id", id)
            out.field("conversation", conversation)
            out.field("sender", sender)
            out.field("senderName", senderName)
            out.field("kind", kind.rawValue)
            out.field("text", text)
            out.field("imageURL", imageURL)
            out.field("clientMessageId", clientMessageId)
            out.field("createdAt", createdAt)
            out.field("mentions", mentions)
            out.field("edited", edited)
            out.field("editedAt", editedAt)
            out.field("editCount", editCount)
            out.field("unsent", unsent)
            out.field("reactions", reactions)
        }
    }
}

extension ReactionInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("user", user)
            out.field("emoji", emoji)
        }
    }
}

extension ConversationInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("id", id)
            out.field("kind", kind.rawValue)
            out.field("title", title)
            out.field("participants", participants)
            out.field("participantCount", participantCount)
            out.field("unread", unread)
            out.field("lastMessage", lastMessage)
            out.field("lastActivity", lastActivity)
            out.field("muted", muted)
            out.field("mutedUntil", mutedUntil)
            out.field("markedUnread", markedUnread)
        }
    }
}

extension NotificationInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("id", id)
            out.field("kind", kind.rawValue)
            out.field("actor", actor)
            out.field("text", text)
            out.field("url", url)
            out.field("read", read)
            out.field("createdAt", createdAt)
        }
    }
}

extension PushInfo: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("conversation", conversation)
            out.field("message", message)
            out.field("sender", sender)
            out.field("preview", preview)
            out.field("title", title)
            out.field("url", url)
            out.field("mentioned", mentioned)
            out.field("quiet", quiet)
        }
    }
}

extension ResponseFrame: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("type", type)
            out.field("id", id)
            out.field("ok", ok)
            out.field("error", error)
            out.field("mode", mode?.rawValue)
            out.field("latest", latest)
            out.field("more", more)
            out.field("conversation", conversation)
            out.field("conversations", conversations)
            out.field("messages", messages)
            out.field("hasMore", hasMore)
            out.field("participants", participants)
            out.field("users", users)
            out.field("message", message)
            out.field("duplicate", duplicate)
            out.field("read", read)
            out.field("unread", unread)
            out.field("badge", badge)
            out.field("notification", notification)
            out.field("notifications", notifications)
            out.field("bellUnread", bellUnread)
            out.field("device", device)
            out.field("quiet", quiet)
        }
    }
}

extension EventFrame: JSONWritable {
    public func write(to writer: inout JSONWriter) {
        writer.object { out in
            out.field("type", type)
            out.field("event", event.rawValue)
            out.field("seq", seq)
            out.field("message", message)
            out.field("conversation", conversation)
            out.field("conversationId", conversationId)
            out.field("messages", messages)
            out.field("unread", unread)
            out.field("badge", badge)
            out.field("messageId", messageId)
            out.field("reader", reader)
            out.field("at", at)
            out.field("action", action?.rawValue)
            out.field("notification", notification)
            out.field("notificationIds", notificationIds)
            out.field("bellUnread", bellUnread)
            out.field("push", push)
            out.field("lastMessage", lastMessage)
            out.field("user", user)
            out.field("muted", muted)
            out.field("mutedUntil", mutedUntil)
            out.field("markedUnread", markedUnread)
            out.field("quiet", quiet)
            out.field("typing", typing)
            out.field("status", status?.rawValue)
            out.field("lastSeen", lastSeen)
            out.field("emoji", emoji)
        }
    }
}
