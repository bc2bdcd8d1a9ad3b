import HeraldProtocol
import HeraldStoreProtocol
import Logging

/// How a batch meets the store. Most batches of a crowd that connects are devices arriving and asking for their state:
/// they write nothing, and on a store shared by several nodes a writing transaction first waits for the nodes' write
/// lock and then holds it through every read of the batch, so one node's connects held up every other node's.
enum BatchTransaction: Equatable {
    /// Other nodes' commits, only delivered: no transaction at all.
    case none
    /// Reads only: one consistent snapshot, outside the write lock.
    case snapshot
    /// A writing transaction (group commit).
    case writing
}

extension SyncCore {
    /// The transaction `inputs` need, given their decoded requests (`requests[i]` for a text input). A batch that would
    /// read only but for users it connects who may not be stored yet has them created first
    /// (``createConnectingUsers(_:)``), outside its transaction.
    ///
    /// A snapshot keeps R1a: a device that syncs in it is live from its state as of the snapshot; whatever another node
    /// commits after that reaches this node as a wake-up, which the sync thread takes after this batch, when the device
    /// is live, so it gets those events (or reads the gap) exactly once.
    func prepareTransaction(for inputs: [SyncInput<Device>], requests: [Result<RequestFrame, RequestDecodeFailure>?]) -> BatchTransaction {
        if inputs.allSatisfy(\.isDeliveryOnly) { return .none }
        // E2: last-seen times left unstored by an earlier batch are written with this one.
        guard ephemeral.lastSeenToStore.isEmpty else { return .writing }
        var connects = false
        for (input, request) in zip(inputs, requests) {
            switch input {
            case .connect:
                connects = true
            case .text:
                if case .success(let frame) = request, frame.request.writesToStore { return .writing }
            case .binary, .streamRuns, .streamReconnected:
                continue
            case .disconnect:
                return .writing  // E2: the user may have gone offline, and their last-seen time is stored
            case .backend(let call):
                if call.operation.writesToStore { return .writing }
            case .cluster(let signal):
                if signal.writesToStore { return .writing }
            }
        }
        // A connect of a user the store does not hold creates them, inside the batch, unless that was done ahead.
        return !connects || createConnectingUsers(inputs) ? .snapshot : .writing
    }

    /// Creates the users of the batch's connects that the store does not hold yet, in one step outside the batch's
    /// transaction; false when the store could not (the connects then create them inside it, as before).
    func createConnectingUsers(_ inputs: [SyncInput<Device>]) -> Bool {
        var users: [UserRecord] = []
        var seen: Set<String> = []
        for case .connect(_, let user, let name, _, _) in inputs where seen.insert(user).inserted {
            users.append(UserRecord(id: user, name: name))
        }
        do {
            try store.createMissingUsers(users)
            return true
        } catch {
            logger.debug("connecting users not created ahead of their batch", metadata: ["users": "\(users.count)", "error": "\(error)"])
            return false
        }
    }
}

extension ClusterSignal {
    /// Whether handling it may write: a push decided here is queued in the store, a published message claimed.
    var writesToStore: Bool {
        switch self {
        case .push, .bellPush, .published: true
        case .pushCleared, .signedOut, .ephemeral: false
        }
    }
}
