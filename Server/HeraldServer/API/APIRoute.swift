import HeraldStoreProtocol

/// The endpoints of `/api/v1`, matched from a method and path, sans-IO.
enum APIRoute: Equatable {
    case health
    case openAPI
    case createUser
    case user(id: String)
    case mintToken(user: String)
    case createNotification(user: String)
    case unread(user: String)
    case createConversation
    case postMessage(conversation: String)
    case signOut(user: String)
    case removeMember(conversation: String)
    /// PATCH /conversations/{id}: rename a group on behalf of a participant (G1).
    case renameGroup(conversation: String)
    /// POST /conversations/{id}/members: add a member on behalf of a participant (G2).
    case addMember(conversation: String)
    case pushTargets(user: String)
    case registerPushTarget(user: String)
    case removePushTarget(user: String, device: String)
    /// PATCH /messages/{id}: edit on behalf of its sender (M1).
    case editMessage(id: String)
    /// POST /messages/{id}/unsend: unsend on behalf of its sender (M2).
    case unsendMessage(id: String)
    /// POST /users/{id}/mutes: mute a conversation for the user (N1).
    case mute(user: String)
    /// DELETE /users/{id}/mutes/{conversation}: end the user's mute (N1).
    case unmute(user: String, conversation: String)

    static let prefix = "/api/v1/"

    /// The scope a key needs for this endpoint: `read` for the GET endpoints, `full` for every write and for minting
    /// tokens (a token acts as any user, so it is a write however it is reached).
    var requiredScope: APIKeyScope {
        switch self {
        case .health, .openAPI, .user, .unread, .pushTargets: .read
        case .createUser, .mintToken, .createNotification, .createConversation, .postMessage, .signOut, .removeMember, .registerPushTarget,
            .removePushTarget:
            .full
        case .editMessage, .unsendMessage, .mute, .unmute: .full
        case .renameGroup, .addMember: .full
        }
    }

    /// Why a request matched no endpoint.
    enum Miss: Error, Equatable {
        /// No such path (404).
        case notFound
        /// The path exists but not for this method (405 with `Allow`).
        case methodNotAllowed(allow: String)
        /// A path segment is not valid percent-encoded UTF-8 (400).
        case badPath
    }

    /// Matches `method` and the (still percent-encoded) `path`. HEAD is served wherever GET is.
    static func match(method: String, path: String) -> Result<APIRoute, Miss> {
        guard path.hasPrefix(prefix) else { return .failure(.notFound) }
        var segments: [String] = []
        for raw in path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = percentDecoded(raw), !segment.isEmpty else { return .failure(raw.isEmpty ? .notFound : .badPath) }
            segments.append(segment)
        }
        let isGet = method == "GET" || method == "HEAD"
        func get(_ route: APIRoute) -> Result<APIRoute, Miss> { isGet ? .success(route) : .failure(.methodNotAllowed(allow: "GET, HEAD")) }
        func post(_ route: APIRoute) -> Result<APIRoute, Miss> { method == "POST" ? .success(route) : .failure(.methodNotAllowed(allow: "POST")) }
        switch segments.count {
        case 1:
            switch segments[0] {
            case "health": return get(.health)
            case "openapi.json": return get(.openAPI)
            case "users": return post(.createUser)
            case "conversations": return post(.createConversation)
            default: return .failure(.notFound)
            }
        case 2 where segments[0] == "users":
            return get(.user(id: segments[1]))
        case 3 where segments[0] == "users":
            switch segments[2] {
            case "tokens": return post(.mintToken(user: segments[1]))
            case "notifications": return post(.createNotification(user: segments[1]))
            case "unread": return get(.unread(user: segments[1]))
            case "signout": return post(.signOut(user: segments[1]))
            case "mutes": return post(.mute(user: segments[1]))
            case "push-targets":
                if isGet { return .success(.pushTargets(user: segments[1])) }
                return method == "POST" ? .success(.registerPushTarget(user: segments[1])) : .failure(.methodNotAllowed(allow: "GET, HEAD, POST"))
            default: return .failure(.notFound)
            }
        case 4 where segments[0] == "users" && segments[2] == "mutes":
            return method == "DELETE"
                ? .success(.unmute(user: segments[1], conversation: segments[3])) : .failure(.methodNotAllowed(allow: "DELETE"))
        case 4 where segments[0] == "users" && segments[2] == "push-targets":
            return method == "DELETE"
                ? .success(.removePushTarget(user: segments[1], device: segments[3])) : .failure(.methodNotAllowed(allow: "DELETE"))
        case 3 where segments[0] == "conversations" && segments[2] == "messages":
            return post(.postMessage(conversation: segments[1]))
        case 3 where segments[0] == "conversations" && segments[2] == "leave":
            return post(.removeMember(conversation: segments[1]))
        case 3 where segments[0] == "conversations" && segments[2] == "members":
            return post(.addMember(conversation: segments[1]))
        case 2 where segments[0] == "conversations":
            return method == "PATCH" ? .success(.renameGroup(conversation: segments[1])) : .failure(.methodNotAllowed(allow: "PATCH"))
        case 2 where segments[0] == "messages":
            return method == "PATCH" ? .success(.editMessage(id: segments[1])) : .failure(.methodNotAllowed(allow: "PATCH"))
        case 3 where segments[0] == "messages" && segments[2] == "unsend":
            return post(.unsendMessage(id: segments[1]))
        default:
            return .failure(.notFound)
        }
    }

    /// RFC 3986 §2.1 percent-decoding of one path segment (`+` stays `+`); nil for a malformed escape or bad UTF-8.
    static func percentDecoded(_ segment: Substring) -> String? {
        let bytes = Array(segment.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2]) else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
