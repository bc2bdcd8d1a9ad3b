import HeraldProtocol
import HeraldRules

/// Builds the `state` line (client-script.md) from the core, every field in the documented order.
enum StateEncoder {
    static func state(of core: ClientCore) -> JSONValue {
        let presenter = ScenePresenters.presenter(for: core.scene)
        var fields: [JSONField] = [
            JSONField("type", "state"), JSONField("user", .string(core.user)), JSONField("connected", .bool(core.connected)),
            JSONField("scene", .string(core.scene.name)), JSONField("conversation", .optional(core.scene.conversation)),
            JSONField("tab", .optional(core.scene.tabName)), JSONField("foreground", .bool(core.scene.isForeground)),
            JSONField("anchor", .optional(presenter.anchor)),
        ]
        if let viewport = core.viewport, core.scene.conversation == viewport.conversation {
            // M1, M2: which visible messages were edited or unsent.
            let visible = Set(viewport.visibleIDs)
            let shown = (core.threads[viewport.conversation]?.messages ?? []).filter { visible.contains($0.id) }
            fields.append(JSONField("viewport", .object([
                "visible": .strings(viewport.visibleIDs), "atBottom": .bool(viewport.isAtBottom), "newBelow": .number(viewport.newBelow),
                "edited": .strings(shown.filter { $0.edited == true }.map(\.id)), "unsent": .strings(shown.filter { $0.unsent == true }.map(\.id)),
            ])))
        } else {
            fields.append(JSONField("viewport", .null))
        }
        fields.append(JSONField("conversations", .array(core.directory.ordered.map { conversation($0, core: core) })))
        var unreadMap: [String: Int] = [:]
        for info in core.directory.ordered { unreadMap[info.id] = core.unread.unread(in: info.id) }
        fields += [
            JSONField("unread", .counts(unreadMap)), JSONField("badge", .number(core.unread.badge)),
            JSONField("badgeText", .string(core.unread.badgeText)),
            JSONField("toast", core.scene.isForeground ? (core.toasts.visible.map { .object(toastFields($0)) } ?? .null) : .null),
            JSONField("toastQueue", .array(core.toasts.queuedToasts.map { .object(toastFields($0)) })),
            JSONField("bell", .object([
                "unread": .number(core.bell.unread), "badgeText": .string(core.bell.badgeText),
                "items": .array(core.bell.items.map { bellItem($0, info: core.notificationInfo[$0.id]) }),
            ])),
            JSONField("pushes", .array(core.pushes.map(push))),
            JSONField("pendingDeepLink", .optional(core.pendingDeepLink?.url)),
            JSONField("quiet", .bool(core.alerts.quiet)),
        ]
        return .object(fields)
    }

    static func conversation(_ info: ConversationInfo, core: ClientCore) -> JSONValue {
        let preview = info.lastMessage?.listPreview
        return .object([
            "id": .string(info.id), "title": .string(core.directory.title(of: info.id, me: core.user)),
            "kind": .string(info.kind.rawValue), "unread": .number(core.unread.unread(in: info.id)),
            "lastPreview": .optional(preview), "lastMessage": .optional(info.lastMessage?.id),
            "muted": .bool(core.alerts.isMuted(info.id)), "markedUnread": .bool(core.unread.markedUnread.contains(info.id)),
            "typing": .strings(core.ephemeral.typing.users(in: info.id)),
        ])
    }

    /// The fields of a toast object (state `toast`, `toastQueue`, `toast.shown`/`toast.updated` events).
    static func toastFields(_ toast: Toast) -> [JSONField] {
        var fields = [
            JSONField("id", .string(toast.id)), JSONField("kind", .string(toast.kind.name)), JSONField("title", .string(toast.title)),
            JSONField("text", .string(toast.text)), JSONField("accessibilityLabel", .string(toast.accessibilityLabel)),
            JSONField("conversation", .optional(toast.conversation)), JSONField("count", .number(toast.count)),
            JSONField("priority", .string(toast.priority.name)), JSONField("url", .optional(toast.url)),
        ]
        if let action = toast.action { fields.append(JSONField("action", .string(action.title))) }
        if toast.isMention { fields.append(JSONField("mentioned", true)) }  // N2
        return fields
    }

    static func bellItem(_ item: BellItem, info: NotificationInfo?) -> JSONValue {
        .object([
            "id": .string(item.id), "kind": .string(item.kind.rawValue), "read": .bool(item.read), "text": .string(item.text),
            "actor": .optional(info?.actor), "url": .optional(info?.url),
        ])
    }

    static func push(_ push: PushInfo) -> JSONValue {
        .object([
            "conversation": .string(push.conversation), "message": .string(push.message), "sender": .string(push.sender),
            "title": .string(push.title), "preview": .string(push.preview), "url": .string(push.url),
        ])
    }
}
