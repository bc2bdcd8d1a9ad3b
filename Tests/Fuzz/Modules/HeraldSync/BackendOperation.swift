// Not a symlink: the real Server/HeraldSync depends on the store (SQLite) and the whole sync core, which fuzzing the
// API body parser must not build and instrument. APIRequestBodies.swift imports HeraldSync only for this type, so
// this module stands in for it with the same cases. If a case is added to the real BackendOperation
// (Server/HeraldSync/SyncBackend.swift) and the bodies start using it, this package stops compiling, which is the
// cue to copy the case here.
import HeraldProtocol

/// The cases of the server's `BackendOperation`, as APIRequestBodies builds them.
public enum BackendOperation: Sendable, Equatable {
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
