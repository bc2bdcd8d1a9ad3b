import HeraldProtocol
import HeraldSync

/// The rules of request fields, one place, mirrored exactly by `openapi.json` (lengths count Unicode scalars,
/// as JSON Schema's maxLength does).
enum APIFieldRules {
    static let maxNameLength = 100
    static let maxTitleLength = 200
    static let maxTextLength = 4096
    static let maxNotificationTextLength = 1000
    static let maxURLLength = 2048
    static let maxClientMessageIdLength = 128
    /// The protocol's own limit, so a group made through the API is one a client could make.
    static let maxGroupMembers = ProtocolLimits.default.maxGroupMembers
    static let defaultTokenTTL = 30 * 24 * 3600
    static let maxTokenTTL = 365 * 24 * 3600

    static func userId(_ text: String, field: String) throws(APIError) -> String {
        guard Identifiers.isUserId(text) else { throw .badRequest("\(field) must be \(Identifiers.userIdRule)") }
        return text
    }
}

/// Typed reads of one JSON object's fields; every failure is a 400 `bad_request` naming the field.
struct JSONFields {
    let object: [String: JSONValue]

    init(_ body: [UInt8]) throws(APIError) {
        object = try JSONValue.object(from: body)
    }

    /// A string of `minLength...maxLength` Unicode scalars; nil when absent and not `required`.
    func string(_ name: String, required: Bool = true, minLength: Int = 1, maxLength: Int) throws(APIError) -> String? {
        switch object[name] {
        case nil:
            if required { throw .badRequest("\(name) is required") }
            return nil
        case .string(let value)?:
            let length = value.unicodeScalars.count
            guard length >= minLength, length <= maxLength else {
                throw .badRequest("\(name) must be \(minLength)-\(maxLength) characters")
            }
            return value
        default:
            throw .badRequest("\(name) must be a string")
        }
    }

    /// A string the store keeps as text (a message, a title, a notification): ``string(_:required:minLength:maxLength:)``
    /// that is also ``ContentRules/isStorableText(_:)``, as herald.v1 requires.
    func text(_ name: String, required: Bool = true, maxLength: Int) throws(APIError) -> String? {
        guard let value = try string(name, required: required, maxLength: maxLength) else { return nil }
        guard ContentRules.isStorableText(value) else { throw .badRequest("\(name) must be \(ContentRules.storableTextRule)") }
        return value
    }

    func requiredText(_ name: String, maxLength: Int) throws(APIError) -> String {
        guard let value = try text(name, maxLength: maxLength) else { throw .badRequest("\(name) is required") }
        return value
    }

    func requiredString(_ name: String, maxLength: Int) throws(APIError) -> String {
        guard let value = try string(name, maxLength: maxLength) else { throw .badRequest("\(name) is required") }
        return value
    }

    func userId(_ name: String, required: Bool = true) throws(APIError) -> String? {
        guard let value = try string(name, required: required, maxLength: 128) else { return nil }
        return try APIFieldRules.userId(value, field: name)
    }

    /// A device name (``Identifiers/isDeviceName(_:)``); nil when absent.
    func deviceName(_ name: String) throws(APIError) -> String? {
        guard let value = try string(name, required: false, maxLength: 64) else { return nil }
        guard Identifiers.isDeviceName(value) else { throw .badRequest("\(name) must be \(Identifiers.deviceNameRule)") }
        return value
    }

    /// An integer (a JSON number without fraction) in `range`; nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        switch object[name] {
        case nil:
            return nil
        case let number? where number.numberValue != nil:
            let value = number.numberValue ?? 0
            guard value.rounded() == value, value >= Double(range.lowerBound), value <= Double(range.upperBound) else {
                throw .badRequest("\(name) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return Int(value)
        default:
            throw .badRequest("\(name) must be an integer")
        }
    }

    /// An array of user ids with `minItems...maxItems` elements.
    func userIds(_ name: String, minItems: Int, maxItems: Int) throws(APIError) -> [String] {
        guard case .array(let items)? = object[name] else {
            throw .badRequest(object[name] == nil ? "\(name) is required" : "\(name) must be an array of user ids")
        }
        guard items.count >= minItems, items.count <= maxItems else { throw .badRequest("\(name) must have \(minItems)-\(maxItems) items") }
        var ids: [String] = []
        for item in items {
            guard case .string(let id) = item else { throw .badRequest("\(name) must be an array of user ids") }
            ids.append(try APIFieldRules.userId(id, field: name))
        }
        return ids
    }
}

/// Request bodies of the endpoints that take one, turned into sync operations.
enum APIRequestBodies {
    /// POST /users `{id, name}`.
    static func createUser(_ body: [UInt8]) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let id = try fields.userId("id") ?? ""
        let name = try fields.requiredString("name", maxLength: APIFieldRules.maxNameLength)
        guard Identifiers.isDisplayName(name) else { throw .badRequest("name must be \(Identifiers.displayNameRule)") }
        return .createUser(id: id, name: name)
    }

    /// POST /users/{id}/tokens `{ttlSeconds?, device?}` (an empty body means the defaults): the lifetime, and the
    /// device the token is for (then it connects under that name and signing that device out refuses it).
    static func tokenRequest(_ body: [UInt8]) throws(APIError) -> (ttlSeconds: Int, device: String?) {
        if body.isEmpty { return (APIFieldRules.defaultTokenTTL, nil) }
        let fields = try JSONFields(body)
        let ttl = try fields.integer("ttlSeconds", in: 1...APIFieldRules.maxTokenTTL) ?? APIFieldRules.defaultTokenTTL
        return (ttl, try fields.deviceName("device"))
    }

    /// POST /users/{id}/mutes `{conversation, minutes?}`: a mute for 1 minute to a year, or until unmuted (N1). Minutes, not an
    /// end time: the server's clock decides when it ends, so a valid request is never refused for being in the past.
    static func mute(_ body: [UInt8], user: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let conversation = try fields.requiredString("conversation", maxLength: 64)
        return .mute(user: user, conversation: conversation, minutes: try fields.integer("minutes", in: 1...525_600))
    }

    /// POST /conversations/{id}/leave `{user}`: the backend takes a member out of a group.
    static func removeMember(_ body: [UInt8], conversation: String) throws(APIError) -> BackendOperation {
        .removeMember(conversation: conversation, user: try JSONFields(body).userId("user") ?? "")
    }

    /// POST /users/{id}/push-targets `{device, provider, token?, topic?, sandbox?, endpoint?, p256dh?, auth?}`: only the
    /// shape here; what makes a target valid is the sync core's one rule, the same as for `push.register`.
    static func registerPushTarget(_ body: [UInt8], user: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        guard let device = try fields.deviceName("device") else { throw .badRequest("device is required") }
        let provider = try fields.requiredString("provider", maxLength: 16)
        var sandbox: Bool?
        switch fields.object["sandbox"] {
        case nil: sandbox = nil
        case .bool(let value)?: sandbox = value
        default: throw .badRequest("sandbox must be a boolean")
        }
        let registration = PushRegistration(
            provider: provider, token: try fields.string("token", required: false, maxLength: 4096),
            topic: try fields.string("topic", required: false, maxLength: 255), sandbox: sandbox,
            endpoint: try fields.string("endpoint", required: false, maxLength: APIFieldRules.maxURLLength),
            p256dh: try fields.string("p256dh", required: false, maxLength: 128), auth: try fields.string("auth", required: false, maxLength: 64))
        return .registerPushTarget(user: user, device: device, registration)
    }

    /// POST /users/{id}/signout `{device?}` (an empty body signs every device out).
    static func signOut(_ body: [UInt8], user: String) throws(APIError) -> BackendOperation {
        if body.isEmpty { return .signOut(user: user, device: nil) }
        return .signOut(user: user, device: try JSONFields(body).deviceName("device"))
    }

    /// POST /conversations `{kind:"direct", members:[a,b]}` or `{kind:"group", title, creator, members}`.
    static func createConversation(_ body: [UInt8]) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        switch fields.object["kind"] {
        case .string("direct")?:
            let members = try fields.userIds("members", minItems: 2, maxItems: 2)
            return .createDirect(members[0], members[1])
        case .string("group")?:
            let title = try fields.requiredText("title", maxLength: APIFieldRules.maxTitleLength)
            guard Identifiers.isLabel(title) else { throw .badRequest("title must be \(Identifiers.labelRule)") }
            let creator = try fields.userId("creator") ?? ""
            let members = try fields.userIds("members", minItems: 1, maxItems: APIFieldRules.maxGroupMembers)
            return .createGroup(title: title, creator: creator, members: members)
        case nil:
            throw .badRequest("kind is required")
        default:
            throw .badRequest("kind must be \"direct\" or \"group\"")
        }
    }

    /// POST /conversations/{id}/messages `{sender, clientMessageId, text?, imageURL?}` (text or imageURL or both).
    static func postMessage(_ body: [UInt8], conversation: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        let sender = try fields.userId("sender") ?? ""
        let clientMessageId = try fields.requiredString("clientMessageId", maxLength: APIFieldRules.maxClientMessageIdLength)
        guard Identifiers.isId(clientMessageId) else { throw .badRequest("clientMessageId must be \(Identifiers.idRule)") }
        let text = try fields.text("text", required: false, maxLength: APIFieldRules.maxTextLength)
        let imageURL = try fields.string("imageURL", required: false, maxLength: APIFieldRules.maxURLLength)
        guard text != nil || imageURL != nil else { throw .badRequest("text or imageURL is required") }
        if let imageURL, !ContentRules.isWebURL(imageURL) { throw .badRequest("imageURL must be \(ContentRules.urlRule)") }
        return .postMessage(
            conversation: conversation, sender: sender, clientMessageId: clientMessageId, kind: imageURL == nil ? .text : .image, text: text,
            imageURL: imageURL)
    }

    /// POST /users/{id}/notifications `{kind, text, url?, actor?}`.
    static func createNotification(_ body: [UInt8], user: String) throws(APIError) -> BackendOperation {
        let fields = try JSONFields(body)
        guard case .string(let rawKind)? = fields.object["kind"], let kind = NotificationKind(rawValue: rawKind) else {
            let kinds = NotificationKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw .badRequest(fields.object["kind"] == nil ? "kind is required" : "kind must be one of \(kinds)")
        }
        let text = try fields.requiredText("text", maxLength: APIFieldRules.maxNotificationTextLength)
        let url = try fields.string("url", required: false, maxLength: APIFieldRules.maxURLLength)
        if let url, !ContentRules.isLink(url) { throw .badRequest("url must be \(ContentRules.linkRule)") }
        let actor = try fields.userId("actor", required: false)
        return .notify(user: user, kind: kind, text: text, url: url, actor: actor)
    }
}
