import Foundation
import HeraldRules

/// The flat wire shape of every request; the `type` field says which fields matter.
struct WireRequest: Codable {
    var type: String
    var id: Int
    var after: Int64?
    var user: String?
    var title: String?
    var members: [String]?
    var conversation: String?
    var before: String?
    var limit: Int?
    var clientMessageId: String?
    var kind: MessageKind?
    var text: String?
    var imageURL: String?
    var messages: [String]?
    var scene: SceneName?
    var tab: String?
    var foreground: Bool?
    var atBottom: Bool?
    var notification: String?
    var message: String?
    var emoji: String?
    var device: String?
    var cursor: String?
    var provider: String?
    var token: String?
    var topic: String?
    var sandbox: Bool?
    var endpoint: String?
    var p256dh: String?
    var auth: String?
    var until: Int64?
    var minutes: Int?
    var on: Bool?

    init(type: String, id: Int) {
        self.type = type
        self.id = id
    }
}

extension RequestFrame {
    /// Decodes one text frame of a client. Never throws or traps: every failure is a value with a code.
    public static func decode(_ bytes: [UInt8], limits: ProtocolLimits = .default) -> Result<RequestFrame, RequestDecodeFailure> {
        // The fast path takes only requests it reads exactly as JSONDecoder would; everything else (including every
        // malformed request, for the error message) goes through JSONDecoder.
        if let wire = WireRequestScanner.scan(bytes) { return validated(wire, limits: limits) }
        return decodeWithFoundation(bytes, limits: limits)
    }

    /// ``decode(_:limits:)`` through Foundation's JSONDecoder only (the reference the fast path is tested against).
    static func decodeWithFoundation(_ bytes: [UInt8], limits: ProtocolLimits = .default) -> Result<RequestFrame, RequestDecodeFailure> {
        let data = Data(bytes)
        let decoder = JSONDecoder()
        // The id is probed leniently only when the request does not decode, so the error can still name it.
        func failure(_ error: ErrorInfo) -> RequestDecodeFailure { RequestIdProbe.failure(data, decoder: decoder, error) }
        let wire: WireRequest
        do {
            wire = try decoder.decode(WireRequest.self, from: data)
        } catch let error as DecodingError {
            return .failure(failure(describe(error)))
        } catch {
            return .failure(failure(ErrorInfo(.badJSON, "not a JSON request object")))
        }
        return validated(wire, limits: limits)
    }

    private static func validated(_ wire: WireRequest, limits: ProtocolLimits) -> Result<RequestFrame, RequestDecodeFailure> {
        do {
            return .success(RequestFrame(id: wire.id, request: try validate(wire, limits: limits)))
        } catch let error as ErrorInfo {
            return .failure(RequestDecodeFailure(id: wire.id, error: error))
        } catch {
            return .failure(RequestDecodeFailure(id: wire.id, error: ErrorInfo(.badRequest, "\(error)")))
        }
    }

    /// Encodes the request as the client sends it.
    public func encode() -> [UInt8] {
        var wire = WireRequest(type: request.typeName, id: id)
        switch request {
        case .sync(let after): wire.after = after
        case .conversations, .bell, .bellReadAll: break
        case .dm(let user): wire.user = user
        case .group(let title, let members):
            wire.title = title
            wire.members = members
        case .history(let conversation, let before, let limit):
            wire.conversation = conversation
            wire.before = before
            wire.limit = limit
        case .search(let conversation, let text, let before, let limit):
            wire.conversation = conversation
            wire.text = text
            wire.before = before
            wire.limit = limit
        case .send(let conversation, let clientMessageId, let kind, let text, let imageURL):
            wire.conversation = conversation
            wire.clientMessageId = clientMessageId
            wire.kind = kind
            wire.text = text
            wire.imageURL = imageURL
        case .ack(let messages): wire.messages = messages
        case .scene(let report):
            wire.scene = SceneName(rawValue: report.scene.name)
            wire.conversation = report.scene.conversation
            wire.tab = report.scene.tabName
            wire.foreground = report.foreground
            wire.atBottom = report.atBottom
        case .bellRead(let notification): wire.notification = notification
        case .follow(let user): wire.user = user
        case .react(let message, let emoji):
            wire.message = message
            wire.emoji = emoji
        case .signOut(let device): wire.device = device
        case .leave(let conversation): wire.conversation = conversation
        case .renameGroup(let conversation, let title):
            wire.conversation = conversation
            wire.title = title
        case .addMember(let conversation, let user), .removeMember(let conversation, let user):
            wire.conversation = conversation
            wire.user = user
        case .members(let conversation, let after, let limit):
            wire.conversation = conversation
            wire.cursor = after
            wire.limit = limit
        case .users(let after, let prefix, let limit):
            wire.cursor = after
            wire.text = prefix
            wire.limit = limit
        case .pushRegister(let registration):
            wire.provider = registration.provider
            wire.token = registration.token
            wire.topic = registration.topic
            wire.sandbox = registration.sandbox
            wire.endpoint = registration.endpoint
            wire.p256dh = registration.p256dh
            wire.auth = registration.auth
        case .pushUnregister: break
        case .pushResolve(let reference): wire.token = reference
        case .mute(let conversation, let until, let minutes):
            wire.conversation = conversation
            wire.until = until
            wire.minutes = minutes
        case .unmute(let conversation), .markUnread(let conversation): wire.conversation = conversation
        case .quiet(let on): wire.on = on
        case .editMessage(let message, let text):
            wire.message = message
            wire.text = text
        case .unsendMessage(let message): wire.message = message
        case .typingStart(let conversation), .typingStop(let conversation): wire.conversation = conversation
        }
        return (try? Array(JSONEncoder().encode(wire))) ?? []
    }

    private static func describe(_ error: DecodingError) -> ErrorInfo {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            return ErrorInfo(.badJSON, "not valid JSON")
        case .keyNotFound(let key, _):
            return ErrorInfo(.badRequest, "missing field '\(key.stringValue)'")
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return ErrorInfo(.badRequest, path.isEmpty ? "not a JSON request object" : "field '\(path)' has the wrong type or value")
        @unknown default:
            return ErrorInfo(.badRequest, "undecodable request")
        }
    }

    private static func validate(_ wire: WireRequest, limits: ProtocolLimits) throws -> ClientRequest {
        let check = FieldCheck(limits: limits)
        switch wire.type {
        case "sync":
            if let after = wire.after, after < 0 { throw ErrorInfo(.badRequest, "field 'after' must not be negative") }
            return .sync(after: wire.after)
        case "conversations":
            return .conversations
        case "dm":
            return .dm(user: try check.userId(wire.user, "user"))
        case "group":
            let title = try check.groupTitle(wire.title)
            guard let members = wire.members else { throw ErrorInfo(.badRequest, "missing field 'members'") }
            guard !members.isEmpty else { throw ErrorInfo(.badRequest, "a group needs at least one other member") }
            guard members.count <= limits.maxGroupMembers else {
                throw ErrorInfo(.tooLarge, "a group has at most \(limits.maxGroupMembers) members")
            }
            return .group(title: title, members: try members.map { try check.userId($0, "members") })
        case "history":
            let limit = wire.limit ?? 50
            guard (1...limits.maxHistoryPage).contains(limit) else {
                throw ErrorInfo(.badRequest, "field 'limit' must be 1...\(limits.maxHistoryPage)")
            }
            return .history(
                conversation: try check.id(wire.conversation, "conversation"),
                before: try wire.before.map { try check.id($0, "before") }, limit: limit)
        case "search":
            let limit = wire.limit ?? limits.defaultSearchPage
            guard (1...limits.maxSearchPage).contains(limit) else {
                throw ErrorInfo(.badRequest, "field 'limit' must be 1...\(limits.maxSearchPage)")
            }
            return .search(
                conversation: try check.id(wire.conversation, "conversation"),
                text: try check.text(wire.text, "text", max: limits.maxSearchBytes, allowEmpty: false),
                before: try wire.before.map { try check.id($0, "before") }, limit: limit)
        case "send":
            let conversation = try check.id(wire.conversation, "conversation")
            let clientMessageId = try check.id(wire.clientMessageId, "clientMessageId")
            let kind = wire.kind ?? (wire.imageURL == nil ? .text : .image)
            switch kind {
            case .text:
                let text = try check.text(wire.text, "text", max: limits.maxTextBytes, allowEmpty: false)
                return .send(conversation: conversation, clientMessageId: clientMessageId, kind: .text, text: text, imageURL: nil)
            case .system:
                throw ErrorInfo(.badRequest, "field 'kind' must be text or image: system lines are the server's")
            case .image:
                let url = try check.text(wire.imageURL, "imageURL", max: limits.maxURLBytes, allowEmpty: false)
                guard ContentRules.isWebURL(url) else { throw ErrorInfo(.badRequest, "field 'imageURL' must be \(ContentRules.urlRule)") }
                let caption = try wire.text.map { try check.text($0, "text", max: limits.maxTextBytes, allowEmpty: true) }
                return .send(conversation: conversation, clientMessageId: clientMessageId, kind: .image, text: caption, imageURL: url)
            }
        case "ack":
            guard let messages = wire.messages else { throw ErrorInfo(.badRequest, "missing field 'messages'") }
            guard messages.count <= limits.maxAckIds else { throw ErrorInfo(.tooLarge, "at most \(limits.maxAckIds) ids per ack") }
            return .ack(messages: try messages.map { try check.id($0, "messages") })
        case "scene":
            guard let scene = wire.scene else { throw ErrorInfo(.badRequest, "missing field 'scene'") }
            let reported: Scene
            switch scene {
            case .thread: reported = .thread(try check.id(wire.conversation, "conversation"))
            case .tab: reported = .tab(try check.id(wire.tab, "tab"))
            case .background: reported = .background
            case .list: reported = .list
            case .notifications: reported = .notifications
            }
            return .scene(SceneReport(scene: reported, foreground: wire.foreground ?? (scene != .background), atBottom: wire.atBottom))
        case "bell":
            return .bell
        case "bell.read":
            return .bellRead(notification: try check.id(wire.notification, "notification"))
        case "bell.readAll":
            return .bellReadAll
        case "follow":
            return .follow(user: try check.userId(wire.user, "user"))
        case "react":
            let message = try check.id(wire.message, "message")
            let emoji = try check.text(wire.emoji, "emoji", max: 64, allowEmpty: false)
            guard ContentRules.isReaction(emoji) else { throw ErrorInfo(.badRequest, "field 'emoji' must be \(ContentRules.reactionRule)") }
            return .react(message: message, emoji: emoji)
        case "members":
            let limit = wire.limit ?? limits.maxMembersPage
            guard (1...limits.maxMembersPage).contains(limit) else {
                throw ErrorInfo(.badRequest, "field 'limit' must be 1...\(limits.maxMembersPage)")
            }
            return .members(conversation: try check.id(wire.conversation, "conversation"), after: try wire.cursor.map { try check.userId($0, "cursor") }, limit: limit)
        case "users":
            let limit = wire.limit ?? limits.defaultUsersPage
            guard (1...limits.maxUsersPage).contains(limit) else {
                throw ErrorInfo(.badRequest, "field 'limit' must be 1...\(limits.maxUsersPage) (default \(limits.defaultUsersPage))")
            }
            // `text` is the prefix; empty means no filter, as if it were absent.
            let prefix = try wire.text.map { try check.text($0, "text", max: limits.maxIdBytes, allowEmpty: true) }
            return .users(after: try wire.cursor.map { try check.userId($0, "cursor") }, prefix: prefix?.isEmpty == true ? nil : prefix, limit: limit)
        case "leave":
            return .leave(conversation: try check.id(wire.conversation, "conversation"))
        case "group.rename":
            return .renameGroup(conversation: try check.id(wire.conversation, "conversation"), title: try check.groupTitle(wire.title))
        case "group.add":
            return .addMember(conversation: try check.id(wire.conversation, "conversation"), user: try check.userId(wire.user, "user"))
        case "group.remove":
            return .removeMember(conversation: try check.id(wire.conversation, "conversation"), user: try check.userId(wire.user, "user"))
        case "signOut":
            if let device = wire.device, !Identifiers.isDeviceName(device) {
                throw ErrorInfo(.badRequest, "field 'device' must be \(Identifiers.deviceNameRule)")
            }
            return .signOut(device: wire.device)
        case "push.register":
            // Only the shape here; what makes a target valid (token formats, key sizes, allowed endpoints) is the
            // server's one rule for /sync and the backend API alike.
            guard let provider = wire.provider else { throw ErrorInfo(.badRequest, "missing field 'provider'") }
            for (name, value) in [("provider", provider), ("token", wire.token), ("topic", wire.topic), ("endpoint", wire.endpoint),
                ("p256dh", wire.p256dh), ("auth", wire.auth)] {
                if let value, value.utf8.count > limits.maxURLBytes { throw ErrorInfo(.tooLarge, "field '\(name)' is longer than \(limits.maxURLBytes) bytes") }
            }
            return .pushRegister(PushRegistration(
                provider: provider, token: wire.token, topic: wire.topic, sandbox: wire.sandbox, endpoint: wire.endpoint, p256dh: wire.p256dh,
                auth: wire.auth))
        case "push.unregister":
            return .pushUnregister
        case "push.resolve":
            return .pushResolve(reference: try check.id(wire.token, "token"))
        case "mute":
            // Whether `until` is still ahead is the server's to say (it owns the clock); here only its shape.
            if let until = wire.until, until <= 0 { throw ErrorInfo(.badRequest, "field 'until' must be a time in ms since the epoch") }
            if wire.until != nil, wire.minutes != nil { throw ErrorInfo(.badRequest, "give 'until' or 'minutes', not both") }
            if let minutes = wire.minutes, !(1...525_600).contains(minutes) {
                throw ErrorInfo(.badRequest, "field 'minutes' must be 1-525600 (a year at most)")
            }
            return .mute(conversation: try check.id(wire.conversation, "conversation"), until: wire.until, minutes: wire.minutes)
        case "unmute":
            return .unmute(conversation: try check.id(wire.conversation, "conversation"))
        case "quiet":
            guard let on = wire.on else { throw ErrorInfo(.badRequest, "missing field 'on'") }
            return .quiet(on: on)
        case "markUnread":
            return .markUnread(conversation: try check.id(wire.conversation, "conversation"))
        case "message.edit":
            // The same text rule as a send: what an edit stores, a send could have stored.
            let message = try check.id(wire.message, "message")
            return .editMessage(message: message, text: try check.text(wire.text, "text", max: limits.maxTextBytes, allowEmpty: false))
        case "message.unsend":
            return .unsendMessage(message: try check.id(wire.message, "message"))
        case "typing.start":
            return .typingStart(conversation: try check.id(wire.conversation, "conversation"))
        case "typing.stop":
            return .typingStop(conversation: try check.id(wire.conversation, "conversation"))
        default:
            throw ErrorInfo(.unknownType, "unknown request type '\(wire.type.prefix(64))'")
        }
    }
}

/// Checks one field at a time against the limits, with errors that name the field.
private struct FieldCheck {
    let limits: ProtocolLimits

    func id(_ value: String?, _ name: String) throws -> String {
        guard let value else { throw ErrorInfo(.badRequest, "missing field '\(name)'") }
        guard !value.isEmpty else { throw ErrorInfo(.badRequest, "field '\(name)' is empty") }
        guard value.utf8.count <= limits.maxIdBytes else {
            throw ErrorInfo(.tooLarge, "field '\(name)' is longer than \(limits.maxIdBytes) bytes")
        }
        guard Identifiers.isId(value) else { throw ErrorInfo(.badRequest, "field '\(name)' must be \(Identifiers.idRule)") }
        return value
    }

    /// A user id (``Identifiers/isUserId(_:)``): the same rule as tokens and the backend API.
    /// A group's title (`group`, `group.rename`): a label every member sees without acting, so no controls.
    func groupTitle(_ value: String?) throws -> String {
        let title = try text(value, "title", max: limits.maxTitleBytes, allowEmpty: false)
        guard Identifiers.isLabel(title) else { throw ErrorInfo(.badRequest, "field 'title' must be \(Identifiers.labelRule)") }
        return title
    }

    func userId(_ value: String?, _ name: String) throws -> String {
        let value = try id(value, name)
        guard Identifiers.isUserId(value) else { throw ErrorInfo(.badRequest, "field '\(name)' must be \(Identifiers.userIdRule)") }
        return value
    }

    func text(_ value: String?, _ name: String, max: Int, allowEmpty: Bool) throws -> String {
        guard let value else { throw ErrorInfo(.badRequest, "missing field '\(name)'") }
        guard allowEmpty || !value.isEmpty else { throw ErrorInfo(.badRequest, "field '\(name)' is empty") }
        guard value.utf8.count <= max else { throw ErrorInfo(.tooLarge, "field '\(name)' is longer than \(max) bytes") }
        guard ContentRules.isStorableText(value) else { throw ErrorInfo(.badRequest, "field '\(name)' must be \(ContentRules.storableTextRule)") }
        return value
    }
}
