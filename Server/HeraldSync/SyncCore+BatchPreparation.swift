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

/// What a batch input needs from before its transaction, worked out once however often the batch runs.
enum PreparedInput {
    case nothing
    /// A text input's request, decoded.
    case request(Result<RequestFrame, RequestDecodeFailure>)
    /// A connect, admitted by the store (``SyncStore/admit(_:)``); nil when the store could not say.
    case arrival(Admission?)
}

extension SyncCore {
    /// Decodes the batch's requests and admits its connects, all of them in one call to the store, outside the batch's
    /// transaction (so a batch of arrivals writes nothing of its own).
    func prepare(_ inputs: [SyncInput<Device>]) -> [PreparedInput] {
        var arrivals: [Arrival] = []
        for case .connect(_, let user, let name, let deviceName, let issuedAt) in inputs {
            arrivals.append(Arrival(user: UserRecord(id: user, name: name), device: deviceName, issuedAt: issuedAt))
        }
        var admissions: [Admission]? = nil
        if !arrivals.isEmpty {
            do {
                admissions = try store.admit(arrivals)
            } catch {
                logger.debug("arriving devices not admitted", metadata: ["devices": "\(arrivals.count)", "error": "\(error)"])
            }
        }
        var next = 0
        return inputs.map { input in
            switch input {
            case .text(_, let bytes):
                return .request(RequestFrame.decode(bytes, limits: configuration.limits))
            case .connect:
                defer { next += 1 }
                // One admission per arrival, in order; a store that answered fewer admits none of the rest.
                return .arrival(admissions.flatMap { next < $0.count ? $0[next] : nil })
            default:
                return .nothing
            }
        }
    }

    /// The transaction a batch of `inputs` needs, given what ``prepare(_:)`` made of them.
    ///
    /// A snapshot keeps R1a: a device that syncs in it is live from its state as of the snapshot; whatever another node
    /// commits after that reaches this node as a wake-up, which the sync thread takes after this batch, when the device
    /// is live, so it gets those events (or reads the gap) exactly once.
    func transactionNeeded(for inputs: [SyncInput<Device>], prepared: [PreparedInput]) -> BatchTransaction {
        if inputs.allSatisfy(\.isDeliveryOnly) { return .none }
        // E2: last-seen times left unstored by an earlier batch are written with this one.
        guard ephemeral.lastSeenToStore.isEmpty else { return .writing }
        for (input, prepared) in zip(inputs, prepared) {
            switch input {
            case .connect, .binary, .streamRuns, .streamReconnected:
                continue  // a connect was admitted ahead
            case .text:
                if case .request(.success(let frame)) = prepared, frame.request.writesToStore { return .writing }
            case .disconnect:
                return .writing  // E2: the user may have gone offline, and their last-seen time is stored
            case .backend(let call):
                if call.operation.writesToStore { return .writing }
            case .cluster(let signal):
                if signal.writesToStore { return .writing }
            }
        }
        return .snapshot
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
