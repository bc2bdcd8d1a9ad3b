import HeraldProtocol
import HeraldRules

/// Script mode's output (client-script.md "Output"): the core's typed answers and events as the JSON lines the
/// contract fixes, field for field. Only script mode writes JSON; the terminal and HeraldKit take the typed values.
package enum ScriptOutput {
    /// The `ok`, `error` or `state` line of an answer.
    package static func line(_ answer: CommandAnswer) -> JSONValue {
        switch answer.outcome {
        case .state(let snapshot):
            return StateEncoder.state(of: snapshot.core)
        case .error(let code, let message):
            return .object(["type": "error", "cmd": .string(answer.name), "code": .string(code), "message": .string(message)])
        case .ok(let details):
            return .object([JSONField("type", "ok"), JSONField("cmd", .string(answer.name))] + fields(of: details, command: answer.name))
        }
    }

    private static func fields(of details: AnswerDetails, command: String) -> [JSONField] {
        var fields: [JSONField] = []
        func add(_ key: String, _ value: JSONValue?) {
            if let value { fields.append(JSONField(key, value)) }
        }
        add("conversation", details.conversation.map(JSONValue.string))
        add("message", details.message.map(JSONValue.string))
        add("duplicate", details.duplicate.map(JSONValue.bool))
        add("queued", details.queued.map(JSONValue.bool))
        add("clientMessageId", details.clientMessageId.map(JSONValue.string))
        add("notification", details.notification.map(JSONValue.string))
        add("unread", details.unread.map(JSONValue.number))
        add("scene", details.scene.map(JSONValue.string))
        add("pending", details.pending.map(JSONValue.bool))
        add("url", details.url.map(JSONValue.string))
        add("error", details.error.map(JSONValue.string))
        add("toast", details.toast.map(JSONValue.string))
        if let viewport = details.viewport {
            add("visible", .strings(viewport.visible))
            add("atBottom", .bool(viewport.atBottom))
            add("newBelow", .number(viewport.newBelow))
        }
        if let people = details.people {
            // The list is named after the command that asked (`users` or `members`).
            add(command, .array(people.map { .object([JSONField("id", .string($0.id)), JSONField("name", .string($0.name))]) }))
        }
        if let hits = details.hits {
            add("hits", .array(hits.map { hit in
                .object([
                    JSONField("message", .string(hit.id)), JSONField("sender", .string(hit.sender)),
                    JSONField("senderName", .string(hit.senderName)), JSONField("createdAt", .int(hit.createdAt)),
                    JSONField("text", .optional(hit.text)),
                ])
            }))
        }
        add("more", details.more.map(JSONValue.bool))
        return fields
    }

    /// The `event` line of an event; `me` is the user this client runs as (mentions, own clientMessageIds).
    package static func line(_ event: ClientEvent, me: String) -> JSONValue {
        let (name, fields) = nameAndFields(event, me: me)
        return .object([JSONField("type", "event"), JSONField("event", .string(name))] + fields)
    }

    private static func nameAndFields(_ event: ClientEvent, me: String) -> (String, [JSONField]) {
        switch event {
        case .connected(let mode, let latest):
            return ("connected", [JSONField("mode", .string(mode)), JSONField("latest", .int(latest))])
        case .disconnected(let reason):
            return ("disconnected", [JSONField("reason", .string(reason))])
        case .message(let message, let sequence):
            var fields: [JSONField] = [
                JSONField("conversation", .string(message.conversation)), JSONField("message", .string(message.id)),
                JSONField("sender", .string(message.sender)), JSONField("senderName", .string(message.senderName)),
                JSONField("kind", .string(message.kind.rawValue)), JSONField("text", .optional(message.text)),
            ]
            if let url = message.imageURL { fields.append(JSONField("imageURL", .string(url))) }
            fields += mentionFields(of: message, me: me)
            if message.sender == me, let clientMessageId = message.clientMessageId { fields.append(JSONField("clientMessageId", .string(clientMessageId))) }
            if let sequence { fields.append(JSONField("seq", .int(sequence))) }
            return ("message", fields)
        case .history(let conversation, let page):
            let messages: [JSONValue] = page.map { message in
                var fields = [JSONField("message", .string(message.id)), JSONField("sender", .string(message.sender)),
                              JSONField("senderName", .string(message.senderName)), JSONField("kind", .string(message.kind.rawValue)),
                              JSONField("text", .optional(message.text)), JSONField("createdAt", .int(message.createdAt))]
                if let url = message.imageURL { fields.append(JSONField("imageURL", .string(url))) }
                fields += mentionFields(of: message, me: me)
                fields += revisionFields(of: message)
                if let reactions = message.reactions, !reactions.isEmpty {
                    fields.append(JSONField("reactions", .array(reactions.map {
                        .object([JSONField("user", .string($0.user)), JSONField("emoji", .string($0.emoji))])
                    })))
                }
                return .object(fields)
            }
            return ("history", [JSONField("conversation", .string(conversation)), JSONField("messages", .array(messages))])
        case .edited(let message, let sequence):
            var fields = [JSONField("conversation", .string(message.conversation)), JSONField("message", .string(message.id)),
                          JSONField("text", .optional(message.text))]
            if let sequence { fields.append(JSONField("seq", .int(sequence))) }
            return ("message.edited", fields)
        case .unsent(let message, let counts, let sequence):
            var fields = [JSONField("conversation", .string(message.conversation)), JSONField("message", .string(message.id))]
            if let counts { fields += [JSONField("unread", .number(counts.unread)), JSONField("badge", .number(counts.badge))] }
            if let sequence { fields.append(JSONField("seq", .int(sequence))) }
            return ("message.unsent", fields)
        case .settings(let change):
            var fields: [JSONField] = []
            if let quiet = change.quiet { fields.append(JSONField("quiet", .bool(quiet))) }
            if let conversation = change.conversation { fields.append(JSONField("conversation", .string(conversation))) }
            if let muted = change.muted { fields.append(JSONField("muted", .bool(muted))) }
            if let until = change.mutedUntil { fields.append(JSONField("mutedUntil", .int(until))) }
            if let marked = change.markedUnread { fields.append(JSONField("markedUnread", .bool(marked))) }
            if let counts = change.counts { fields += [JSONField("unread", .number(counts.unread)), JSONField("badge", .number(counts.badge))] }
            if let sequence = change.sequence { fields.append(JSONField("seq", .int(sequence))) }
            return ("settings", fields)
        case .conversation(let id, let title):
            return ("conversation", [JSONField("conversation", .string(id)), JSONField("title", .string(title))])
        case .read(let conversation, let messages, let counts, let sequence):
            return ("read", [JSONField("conversation", .string(conversation)), JSONField("messages", .strings(messages)),
                             JSONField("unread", .number(counts.unread)), JSONField("badge", .number(counts.badge)),
                             JSONField("seq", sequence.map { .int($0) } ?? .null)])
        case .left(let conversation, let user):
            return ("left", [JSONField("conversation", .string(conversation)), JSONField("user", .string(user))])
        case .receipt(let conversation, let message, let reader, let at):
            return ("receipt", [JSONField("conversation", .optional(conversation)), JSONField("message", .optional(message)),
                                JSONField("reader", .optional(reader)), JSONField("at", at.map { .int($0) } ?? .null)])
        case .push(let arrival):
            return ("push", pushFields(arrival))
        case .pushCleared(let conversation, let message):
            return ("push.cleared", [JSONField("conversation", .string(conversation)), JSONField("message", .string(message))])
        case .pushRegistered(let device, let provider):
            return ("push.registered", [JSONField("device", .optional(device)), JSONField("provider", .string(provider))])
        case .pushRegistrationFailed(let code, let message):
            return ("push.registration.failed", [JSONField("code", .string(code)), JSONField("message", .string(message))])
        case .sendFailed(let clientMessageId, let code, let message):
            return ("send.failed", [JSONField("clientMessageId", .string(clientMessageId)), JSONField("code", .string(code)),
                                    JSONField("message", .string(message))])
        case .bell(let action, let notification, let unread, let badgeText, let pulse):
            return ("bell", [JSONField("action", .string(action)), JSONField("notification", .optional(notification)),
                             JSONField("unread", .number(unread)), JSONField("badgeText", .string(badgeText)), JSONField("pulse", .bool(pulse))])
        case .presence(let user, let status, let lastSeen):
            return ("presence", [JSONField("user", .string(user)), JSONField("status", .string(status.rawValue)),
                                 JSONField("lastSeen", lastSeen.map { .int($0) } ?? .null)])
        case .reaction(let conversation, let message, let user, let emoji, let sequence):
            return ("reaction", [JSONField("conversation", .string(conversation)), JSONField("message", .string(message)),
                                 JSONField("user", .string(user)), JSONField("emoji", .string(emoji)),
                                 JSONField("seq", sequence.map { .int($0) } ?? .null)])
        case .typing(let conversation, let users):
            return ("typing", [JSONField("conversation", .string(conversation)), JSONField("users", .strings(users))])
        case .toastShown(let toast):
            return ("toast.shown", StateEncoder.toastFields(toast))
        case .toastUpdated(let toast):
            return ("toast.updated", StateEncoder.toastFields(toast))
        case .toastDismissed(let id, let reason):
            return ("toast.dismissed", [JSONField("id", .string(id)), JSONField("reason", .string(reason.rawValue))])
        case .toastAction(let id, let action):
            return ("toast.action", [JSONField("id", .string(id)), JSONField("action", .string(action))])
        case .haptic(let name, let toast):
            return ("haptic", [JSONField("name", .string(name)), JSONField("toast", .string(toast))])
        case .route(let url, let scene, let conversation, let error):
            if let error {
                return ("route", [JSONField("url", .string(url)), JSONField("scene", .string(scene)), JSONField("error", .string(error))])
            }
            return ("route", [JSONField("url", .string(url)), JSONField("scene", .string(scene)), JSONField("conversation", .optional(conversation))])
        }
    }

    private static func pushFields(_ arrival: PushArrival) -> [JSONField] {
        let push = arrival.info
        let int64: (Int64?) -> JSONValue = { $0.map { .int($0) } ?? .null }
        switch arrival {
        case .stream(_, let badge):
            return [JSONField("conversation", .string(push.conversation)), JSONField("message", .string(push.message)),
                    JSONField("sender", .string(push.sender)), JSONField("title", .string(push.title)), JSONField("preview", .string(push.preview)),
                    JSONField("url", .string(push.url)), JSONField("badge", badge.map { .number($0) } ?? .null),
                    JSONField("mentioned", .bool(push.mentioned ?? false)), JSONField("quiet", .bool(push.quiet ?? false))]
        case .webPushOpaque(_, let reference, let badge):
            return [JSONField("ref", .string(reference)), JSONField("title", .string(push.title)), JSONField("preview", .string(push.preview)),
                    JSONField("url", .string(push.url)), JSONField("badge", int64(badge)), JSONField("via", "webpush")]
        case .webPushMessage(_, let badge):
            return [JSONField("conversation", .string(push.conversation)), JSONField("message", .string(push.message)),
                    JSONField("sender", .string(push.sender)), JSONField("title", .string(push.title)), JSONField("preview", .string(push.preview)),
                    JSONField("url", .string(push.url)), JSONField("badge", int64(badge)), JSONField("via", "webpush")]
        case .webPushBell(_, let badge):
            return [JSONField("kind", "bell"), JSONField("notification", .string(push.message)), JSONField("title", .string(push.title)),
                    JSONField("preview", .string(push.preview)), JSONField("url", .string(push.url)), JSONField("badge", int64(badge)),
                    JSONField("via", "webpush")]
        }
    }

    /// N2: `mentions` (the ids the text mentions) and `"mentioned":true` when they name `me`; none when it mentions nobody.
    static func mentionFields(of message: MessageInfo, me: String) -> [JSONField] {
        guard let mentions = message.mentions, !mentions.isEmpty else { return [] }
        var fields = [JSONField("mentions", .array(mentions.map { .string($0) }))]
        if mentions.contains(me) { fields.append(JSONField("mentioned", .bool(true))) }
        return fields
    }

    /// M1, M2: `edited` / `unsent` marks of a history message.
    static func revisionFields(of message: MessageInfo) -> [JSONField] {
        var fields: [JSONField] = []
        if message.edited == true { fields.append(JSONField("edited", .bool(true))) }
        if message.unsent == true { fields.append(JSONField("unsent", .bool(true))) }
        return fields
    }
}
