import FuzzSupport
@testable import HeraldAPIBodies
import HeraldProtocol
import HeraldSync

/// The backend API's request bodies: random bytes into ``APIRequestBodies`` (and so ``JSONValue`` and
/// ``JSONFields``), as `POST /users`, `/users/{id}/tokens`, `/conversations`, `/conversations/{id}/messages` and
/// `/users/{id}/notifications` receive them.
///
/// Input layout: byte 0 picks the endpoint (mod 5), the rest is the body.
/// Properties: never traps; a refusal is a 400 `bad_json` or `bad_request` with a message; anything accepted
/// satisfies the same rules herald.v1 requests are held to: user ids pass ``Identifiers/isUserId(_:)``, the client
/// message id ``Identifiers/isId(_:)``, names ``Identifiers/isDisplayName(_:)``, image URLs
/// ``ContentRules/isWebURL(_:)`` and links ``ContentRules/isLink(_:)``, with the lengths openapi.json states (in
/// Unicode scalars), and the operation carries the path's conversation / user unchanged.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPIBodies(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var reader = FuzzReader(fuzzInput(data, size))
    let endpoint = reader.byte() % 7
    let body = reader.rest()
    do throws(APIError) {
        switch endpoint {
        case 0: check(try APIRequestBodies.createUser(body))
        case 1:
            let (ttl, device) = try APIRequestBodies.tokenRequest(body)
            fuzzRequire((1...APIFieldRules.maxTokenTTL).contains(ttl), "token TTL \(ttl) accepted")
            if let device { fuzzRequire(Identifiers.isDeviceName(device), "accepted device \(device.debugDescription)") }
        case 6:
            guard case .removeMember(let conversation, let user) = try APIRequestBodies.removeMember(body, conversation: "c1") else {
                fuzzRequire(false, "a leave body became another operation")
                return 0
            }
            fuzzRequire(conversation == "c1", "leave changed its conversation")
            userId(user, "user")
        case 5:
            guard case .signOut(let user, let device) = try APIRequestBodies.signOut(body, user: "alice") else {
                fuzzRequire(false, "sign-out body became another operation")
                return 0
            }
            fuzzRequire(user == "alice", "sign-out changed its user")
            if let device { fuzzRequire(Identifiers.isDeviceName(device), "accepted device \(device.debugDescription)") }
        case 2: check(try APIRequestBodies.createConversation(body))
        case 3: check(try APIRequestBodies.postMessage(body, conversation: "c1"))
        default: check(try APIRequestBodies.createNotification(body, user: "alice"))
        }
    } catch {
        fuzzRequire(error.status == 400 && ["bad_json", "bad_request"].contains(error.code), "refused with \(error.status) \(error.code)")
        fuzzRequire(!error.message.isEmpty, "refused without a message")
    }
    return 0
}

private func scalars(_ text: String, _ range: ClosedRange<Int>) -> Bool { range.contains(text.unicodeScalars.count) }

private func userId(_ id: String, _ field: String) {
    fuzzRequire(Identifiers.isUserId(id), "accepted \(field) \(id.debugDescription) \(Array(id.utf8))")
}

private func check(_ operation: BackendOperation) {
    switch operation {
    case .createUser(let id, let name):
        userId(id, "id")
        fuzzRequire(Identifiers.isDisplayName(name) && scalars(name, 1...APIFieldRules.maxNameLength), "accepted name \(name.debugDescription)")
    case .createDirect(let a, let b):
        userId(a, "member")
        userId(b, "member")
    case .createGroup(let title, let creator, let members):
        fuzzRequire(scalars(title, 1...APIFieldRules.maxTitleLength), "accepted title of \(title.unicodeScalars.count) scalars")
        userId(creator, "creator")
        fuzzRequire((1...APIFieldRules.maxGroupMembers).contains(members.count), "accepted \(members.count) members")
        for member in members { userId(member, "member") }
    case .postMessage(let conversation, let sender, let clientMessageId, let kind, let text, let imageURL):
        fuzzRequire(conversation == "c1", "conversation \(conversation.debugDescription) is not the path's")
        userId(sender, "sender")
        fuzzRequire(Identifiers.isId(clientMessageId), "accepted clientMessageId \(clientMessageId.debugDescription)")
        fuzzRequire(text != nil || imageURL != nil, "accepted a message without text or image")
        if let text { fuzzRequire(scalars(text, 1...APIFieldRules.maxTextLength), "accepted text of \(text.unicodeScalars.count) scalars") }
        if let imageURL {
            fuzzRequire(ContentRules.isWebURL(imageURL) && scalars(imageURL, 1...APIFieldRules.maxURLLength), "accepted imageURL \(imageURL.debugDescription)")
        }
        fuzzRequire(kind == (imageURL == nil ? .text : .image), "kind \(kind) for imageURL \(String(describing: imageURL))")
    case .notify(let user, _, let text, let url, let actor):
        fuzzRequire(user == "alice", "user \(user.debugDescription) is not the path's")
        fuzzRequire(scalars(text, 1...APIFieldRules.maxNotificationTextLength), "accepted notification text of \(text.unicodeScalars.count) scalars")
        if let url { fuzzRequire(ContentRules.isLink(url) && scalars(url, 1...APIFieldRules.maxURLLength), "accepted url \(url.debugDescription)") }
        if let actor { userId(actor, "actor") }
    default:
        // The parsers fuzzed here make only the operations above; any other one (the API has grown more) is a bug.
        fuzzRequire(false, "a body parser returned \(operation)")
    }
}
