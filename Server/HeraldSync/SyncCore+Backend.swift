import HeraldProtocol
import HeraldStoreProtocol

extension SyncCore {
    /// Runs one backend call as its own savepoint of the batch (or, after a failed batch, its own transaction) and
    /// queues its answer behind the commit.
    func perform(_ call: BackendCall, now: Int64, standalone: Bool, step: inout SyncStep<Device>) {
        let mark = step.effects.count
        var result: Result<BackendValue, BackendFailure>
        do {
            let run = { () throws -> BackendValue in try self.execute(call.operation, now: now, step: &step) }
            if standalone && !call.operation.writesToStore {
                result = .success(try store.snapshot(run))
            } else {
                result = .success(try store.transaction(run))
            }
        } catch {
            // The savepoint rolled back this call's writes; drop its buffered effects with them.
            step.effects.removeSubrange(mark...)
            result = .failure(Self.backendFailure(for: error))
            counters.recordFailure(error)
        }
        step.effects.append(.backendReply(call, result))
    }

    private func execute(_ operation: BackendOperation, now: Int64, step: inout SyncStep<Device>) throws -> BackendValue {
        switch operation {
        case .createUser(let id, let name):
            if let existing = try store.user(id: id) {
                guard existing.name == name else { throw BackendFailure(.conflict, "user '\(id)' exists with another name") }
                return .user(existing, created: false)
            }
            try store.upsertUser(id: id, name: name)
            names[id] = name
            return .user(UserRecord(id: id, name: name), created: true)

        case .user(let id):
            return .user(try requireUser(id), created: false)

        case .tokenSubject(let id, let device):
            return .tokenSubject(try requireUser(id), signedOutUntil: try store.signedOutUntil(user: id, device: device))

        case .createDirect(let a, let b):
            _ = try requireUser(a)
            _ = try requireUser(b)
            let (conversation, created) = try store.findOrCreateDirect(between: a, and: b, now: now)
            if created { try announce(conversation, now: now, step: &step) }
            return .conversation(try conversationInfo(conversation, for: a), created: created)

        case .createGroup(let title, let creator, let members):
            for user in [creator] + members { _ = try requireUser(user) }
            let conversation = try store.createGroup(title: title, creator: creator, members: members, now: now)
            try announce(conversation, now: now, step: &step)
            return .conversation(try conversationInfo(conversation, for: creator), created: true)

        case .postMessage(let conversation, let sender, let clientMessageId, let kind, let text, let imageURL):
            guard try store.conversation(id: conversation) != nil else { throw BackendFailure(.notFound, "no conversation '\(conversation)'") }
            _ = try requireUser(sender)
            guard try store.isParticipant(user: sender, conversation: conversation) else {
                throw BackendFailure(.forbidden, "'\(sender)' is not a participant of \(conversation)")
            }
            var response = ResponseFrame(id: nil)
            try send(
                conversation: conversation, clientMessageId: clientMessageId, kind: kind, text: text, imageURL: imageURL, user: sender,
                now: now, into: &response, step: &step)
            guard let message = response.message else { throw BackendFailure(.internal, "the message was not stored") }
            return .message(message, duplicate: response.duplicate ?? false)

        case .notify(let user, let kind, let text, let url, let actor):
            _ = try requireUser(user)
            // A bell entry names its actor as "who did this": it must be someone real (404, as for unknown members).
            if let actor, try store.user(id: actor) == nil { throw BackendFailure(.notFound, "no user '\(actor.prefix(64))' (actor)") }
            let info = try notify(user, kind: kind, actor: actor, text: text, url: url, now: now, step: &step)
            return .notification(info, bellUnread: try store.unreadNotificationCount(user: user))

        case .removeMember(let conversation, let user):
            guard try store.conversation(id: conversation) != nil else { throw BackendFailure(.notFound, "no conversation '\(conversation)'") }
            _ = try requireUser(user)
            try leave(user, conversation: conversation, byBackend: true, now: now, step: &step)
            return .removed(conversation: conversation, user: user)

        case .signOut(let user, let device):
            _ = try requireUser(user)
            try signOut(user, device: device, now: now, step: &step)
            return .signedOut(user: user, device: device)

        case .unread(let user):
            _ = try requireUser(user)
            // U7: the seq before the counts, so the counts are at least as fresh as the seq they are stamped with (on
            // PostgreSQL another node's read may commit between the two reads).
            let latest = try store.latestSeq(user: user)
            let counts = try store.unreadCounts(user: user)
            return .unread(
                perConversation: counts, badge: counts.values.reduce(0, +), bellUnread: try store.unreadNotificationCount(user: user),
                latest: latest)

        case .apiKey(let id):
            return .apiKey(try store.apiKey(id: id))

        case .registerPushTarget(let user, let device, let registration):
            _ = try requireUser(user)
            return .pushTarget(try registerPushTarget(user: user, device: device, registration: registration, now: now))

        case .removePushTarget(let user, let device):
            _ = try requireUser(user)
            guard try store.removePushTarget(user: user, device: device) else {
                throw BackendFailure(.notFound, "'\(user)' has no push target for device '\(device)'")
            }
            return .pushTargetRemoved(user: user, device: device)

        case .pushTargets(let user):
            _ = try requireUser(user)
            return .pushTargets(try store.pushTargets(users: [user]))

        case .renameGroup(let conversation, let user, let title):
            _ = try requireUser(user)
            return .conversation(try renameGroup(conversation, title: title, user: user, now: now, step: &step), created: false)

        case .addMember(let conversation, let user, let member):
            _ = try requireUser(user)
            return .conversation(try addMember(member, to: conversation, user: user, now: now, step: &step), created: false)

        case .editMessage(let message, let user, let text):
            _ = try requireUser(user)
            return .message(try editMessage(message, text: text, user: user, now: now, step: &step), duplicate: false)

        case .unsendMessage(let message, let user):
            _ = try requireUser(user)
            var response = ResponseFrame(id: nil)
            try unsendMessage(message, user: user, now: now, into: &response, step: &step)
            guard let info = response.message else { throw BackendFailure(.internal, "the message was not unsent") }
            return .message(info, duplicate: false)

        case .mute(let user, let conversation, let minutes):
            _ = try requireUser(user)
            var response = ResponseFrame(id: nil)
            let until = minutes.map { now + Int64($0) * 60_000 }
            try mute(conversation, until: until, user: user, now: now, into: &response, step: &step)
            return .muteState(user: user, conversation: conversation, muted: true, mutedUntil: until)

        case .unmute(let user, let conversation):
            _ = try requireUser(user)
            var response = ResponseFrame(id: nil)
            try unmute(conversation, user: user, now: now, into: &response, step: &step)
            return .muteState(user: user, conversation: conversation, muted: false, mutedUntil: nil)
        }
    }

    private func requireUser(_ id: String) throws -> UserRecord {
        guard let user = try store.user(id: id) else { throw BackendFailure(.notFound, "no user '\(id.prefix(64))'") }
        return user
    }

    /// Store failures never leak SQL details; refusals keep their message.
    static func backendFailure(for error: any Error) -> BackendFailure {
        if let failure = error as? BackendFailure { return failure }
        let info = errorInfo(for: error)
        switch info.code {
        case .badRequest, .badJSON, .tooLarge: return BackendFailure(.badRequest, info.message)
        case .notFound, .unknownUser: return BackendFailure(.notFound, info.message)
        case .notParticipant: return BackendFailure(.forbidden, info.message)
        case .conflict: return BackendFailure(.conflict, info.message)
        case .unavailable: return BackendFailure(.unavailable, info.message)
        case .forbidden: return BackendFailure(.forbidden, info.message)
        case .tooLate: return BackendFailure(.tooLate, info.message)
        case .tooManyEdits: return BackendFailure(.tooManyEdits, info.message)
        case .quotaExceeded: return BackendFailure(.quotaExceeded, info.message)
        default: return BackendFailure(.internal, info.message)
        }
    }
}

extension BackendOperation {
    /// Whether the operation may write (then a failed batch redoes it in a write transaction).
    var writesToStore: Bool {
        switch self {
        case .user, .tokenSubject, .unread, .apiKey, .pushTargets: false
        case .createUser, .createDirect, .createGroup, .postMessage, .notify, .signOut, .removeMember, .registerPushTarget, .removePushTarget: true
        case .editMessage, .unsendMessage, .mute, .unmute: true
        case .renameGroup, .addMember: true
        }
    }
}
