// Not a symlink: the two server types the symlinked API files name but whose real definitions would pull in the
// rest of the server (Sync/SyncBackend.swift imports HeraldStore, i.e. SQLite and PostgreSQL; API/HTTP/HTTPResponse.swift
// imports HeraldWebSocket and the API's response types). APIRequestBodies.swift, JSONValue+RequestBody.swift and APIError.swift
// are compiled exactly as in the server; if a case is added to the real BackendOperation and the bodies start using
// it, this package stops compiling, which is the cue to copy the case here.
import HeraldProtocol

/// The cases of Server/HeraldServer/Sync/SyncBackend.swift's `BackendOperation`, as APIRequestBodies builds them.
enum BackendOperation: Sendable, Equatable {
    case createUser(id: String, name: String)
    case user(id: String)
    case createDirect(String, String)
    case createGroup(title: String, creator: String, members: [String])
    case postMessage(conversation: String, sender: String, clientMessageId: String, kind: MessageKind, text: String?, imageURL: String?)
    case notify(user: String, kind: NotificationKind, text: String, url: String?, actor: String?)
    case unread(user: String)
    case signOut(user: String, device: String?)
    case removeMember(conversation: String, user: String)
}

/// Only what APIError.swift's `response` needs to compile; the harness never builds a response.
struct HTTPResponse {
    static func error(_ status: Int, code: String, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse()
    }
}
