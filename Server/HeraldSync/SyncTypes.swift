import HeraldBytes
import HeraldProtocol
import HeraldRules
import HeraldStoreProtocol

/// Settings of the sync service's logic.
public struct SyncConfiguration: Sendable {
    /// P4: how long a push waits before it is delivered (0 = at once).
    public var pushGraceMilliseconds: Int64
    /// R3: how much of each user's stream is kept at least (7 days).
    public var retentionMilliseconds: Int64
    /// How often old events and pushes are pruned.
    public var maintenanceIntervalMilliseconds: Int64
    /// Field limits for decoding requests.
    public var limits: ProtocolLimits
    /// Events read from the store per query while replaying a resume.
    public var replayPageSize: Int
    /// Flow control for resumes (R3): one `sync` replays at most this many events; the rest is left for the next
    /// `sync` (the response says `more`). A device closed as a slow consumer always has a backlog larger than its
    /// send queue, so an unbounded replay would close it again.
    public var resumePageEvents = 1_000
    /// The same bound in bytes of replayed event JSON (at least one event is always sent). Keep it well under the
    /// per-connection queue bound: ``SyncService`` sets it to a quarter of `--max-queued-bytes`.
    public var resumePageBytes = 1 << 20
    /// About how many bytes of messages one `history` answer carries (always at least one message); the rest is
    /// `hasMore`, so a page of 200 long messages cannot make one answer megabytes large.
    public var historyAnswerBytes = 256 << 10
    /// How many participants of a group a list answer (snapshot, `conversations`) names; more are counted
    /// (`participantCount`) and paged with `members`.
    public var listedParticipants = 64
    /// Per-user budgets of the requests that write (``RequestRateClass``); a class not named is unlimited.
    public var requestRates: [RequestRateClass: RequestRate] = [:]
    /// Microseconds of the sync thread one user's inputs may take in one batch before the rest of them wait for the next
    /// batch (``UserTurns``), measured with ``SyncCore/workClock``; 0: no limit.
    public var userBatchMicroseconds = 2_000
    /// Several nodes on one store: how often this node refreshes its heartbeat.
    public var clusterHeartbeatMilliseconds: Int64 = 1_000
    /// Several nodes on one store: the devices of a node silent for longer are ignored by push decisions.
    public var clusterPresenceTimeoutMilliseconds: Int64 = 5_000
    /// Devices without a connection: which providers this server has credentials for (a target of another is refused
    /// at registration, not found broken at the first message), what a push may reveal, and how long it may wait.
    public var push = PushSettings()
    /// M1, M2: how long after sending a message can be edited or unsent, and how often edited.
    public var messageRevisions = MessageRevisionRules.Limits()
    /// How much message content each user may store per UTC day.
    public var storageQuota = StorageQuota()

    public init(
        pushGraceMilliseconds: Int64 = 2_000, retentionMilliseconds: Int64 = 7 * 24 * 3_600_000,
        maintenanceIntervalMilliseconds: Int64 = 3_600_000, limits: ProtocolLimits = .default, replayPageSize: Int = 1_000
    ) {
        self.pushGraceMilliseconds = pushGraceMilliseconds
        self.retentionMilliseconds = retentionMilliseconds
        self.maintenanceIntervalMilliseconds = maintenanceIntervalMilliseconds
        self.limits = limits
        self.replayPageSize = replayPageSize
    }
}

/// What reaches the sync thread from the sessions, in arrival order.
public enum SyncInput<Device: Hashable> {
    /// An authenticated device connected (not yet live: it must send `sync`). `issuedAt` is its token's issue time
    /// (seconds), checked against sign-outs; nil for a device that came without a token (tests).
    case connect(Device, user: String, name: String, deviceName: String?, issuedAt: Int64? = nil)
    /// One complete text message of the device.
    case text(Device, [UInt8])
    /// A binary message, which herald.v1 does not use.
    case binary(Device)
    /// The device's connection closed.
    case disconnect(Device)
    /// An operation of the app's backend (HTTP API), run in the batch like a client request.
    case backend(BackendCall)
    /// Another node committed these stream events (a PostgreSQL wake-up): the users' live devices here get them.
    case streamRuns(StreamRuns)
    /// Stream notifications may have been missed (the LISTEN connection was re-established): every live device
    /// catches up from the store.
    case streamReconnected
    /// Another node addressed one of this node's devices (a push to deliver, a push withdrawn).
    case cluster(ClusterSignal)

    /// Whether handling it touches no store: other nodes' commits are only delivered (their events read after the
    /// batch), so a batch of nothing else needs no transaction and never takes the nodes' write lock.
    var isDeliveryOnly: Bool {
        switch self {
        case .streamRuns, .streamReconnected: true
        case .connect, .text, .binary, .disconnect, .backend, .cluster: false
        }
    }
}

/// One JSON text message to write to some devices, in one of two forms that share their bytes across receivers, so
/// the caller encodes once and fans out without per-receiver copies.
public struct SyncDelivery<Device: Hashable> {
    /// Who gets it, in no particular order.
    public let devices: [Device]
    /// For a live stream event: `seqs[i]` is the stream position `devices[i]` gets it as (its user's seq). Empty for
    /// every other delivery.
    public let seqs: [Int64]
    /// A live stream event's JSON without its leading `{`, the SAME buffer for every receiver (the frame is
    /// `{"seq":N,` + `body`, and only that head differs); nil for responses, replayed and device-only events.
    public let body: SharedBytes?
    /// Whether this is the response to a request of its one device (see ``SyncEffect/answer(_:_:)``).
    public let answersRequest: Bool
    private let text: [UInt8]

    /// The same complete text for every one of `devices`; `answersRequest` for the response to a device's request.
    public init(payload: [UInt8], devices: [Device], answersRequest: Bool = false) {
        self.text = payload
        self.body = nil
        self.devices = devices
        self.seqs = []
        self.answersRequest = answersRequest
    }

    /// A live stream event `{"seq":seqs[i],` + `body` for each `devices[i]` (one fan-out: every user the event was
    /// appended for, with their own seq).
    public init(body: SharedBytes, devices: [Device], seqs: [Int64]) {
        precondition(devices.count == seqs.count, "one seq per device")
        self.text = []
        self.body = body
        self.devices = devices
        self.seqs = seqs
        self.answersRequest = false
    }

    /// The JSON text `devices[index]` gets. For a stream event it is built here from the shared body; the sender
    /// does not use this for those (it writes the head and the shared body).
    public func payload(at index: Int) -> [UInt8] {
        guard let body else { return text }
        return EventFrame.sequencePrefix(seqs[index]) + body.bytes
    }
}

/// A connected device of a user, with its state, kept per user so fan-out walks a user's devices without looking
/// each one up.
struct UserDevice<Device: Hashable> {
    let device: Device
    let state: DeviceState
}

/// What the sync thread knows about one connected device.
///
/// A class: fan-out looks at every device of every recipient (cursor, scene), and a lookup of a struct with two
/// strings copied (and retained) all of it each time.
final class DeviceState {
    let user: String
    /// The device's name in the push outbox.
    let name: String
    /// Whether the connection named its device (a token's device or `?device=`); an unnamed connection's name is made
    /// up for this connection only, so nothing lasting (a push target) can hang on it.
    let isNamed: Bool
    /// Where the device is (P1-P3); a device that never reported is in the foreground list.
    var scene = SceneReport(scene: .list, foreground: true)
    /// nil until `sync`; then the stream position its sync reflected: it gets every event after it live (R1a).
    var cursor: Int64?
    /// Several nodes: frames waiting for another node's earlier events to reach this device first (nil: none; see
    /// ``SyncCore/hold(_:_:seq:body:now:)``).
    var held: HeldFrames?

    init(user: String, name: String, isNamed: Bool = true) {
        self.user = user
        self.name = name
        self.isNamed = isNamed
    }
}

/// A device connection the sync core wants closed, with the close code and reason to send.
public struct SyncClose<Device: Hashable>: Equatable {
    public let device: Device
    public let code: UInt16
    public let reason: String
}

/// A push waiting for its grace period (P4): one message's push for each of its recipients that were not viewing
/// the conversation when it was sent (one entry per message, not per recipient).
struct PendingPush {
    var deadline: Int64
    var users: [String]
    var push: PushInfo
    /// N2: the recipients the message mentions (alerted even where they muted the conversation).
    var mentions: [String] = []
    /// One of `users` who is not a recipient (S7: the sender). A group's message keeps the participant list the store
    /// shares instead of a copy without the sender: a copy of 1,000 ids per message, and comparing copies element by
    /// element to find runs of pushes to the same people, cost more than skipping one id.
    var except: String? = nil
    /// How many times its decision failed on the store and was put off (``SyncCore/pushRetryMilliseconds``).
    var failedAttempts = 0

    /// Who the push is for.
    var recipients: LazyFilterSequence<[String]> {
        let except = self.except
        return users.lazy.filter { $0 != except }
    }

    /// Whether `other` goes to the same people (a run of pushes shares one look at them); lists from the same store
    /// read compare by their storage.
    func hasSameRecipients(as other: PendingPush) -> Bool {
        except == other.except && users == other.users
    }
}

/// Something a request caused, applied in order once the batch's transaction committed (R4).
enum SyncEffect<Device: Hashable> {
    /// The response to one request of the device: exactly one per request, however it ended. Its delivery lets the
    /// device's connection read another request (the bound on requests in flight).
    case answer(Device, [UInt8])
    /// A replayed event for one device.
    case reply(Device, [UInt8])
    /// One event appended to each of `users`' streams, as `seqs[i]` for `users[i]`, for their live devices. `body` is
    /// the event's JSON without its leading `{`, one buffer shared by every user. `conversation`: the conversation
    /// whose participants `users` are, if they are.
    case streamEvent(users: [String], seqs: [Int64], body: SharedBytes, conversation: String?)
    /// A device-only event (push, push.cleared).
    case deviceEvent([Device], [UInt8])
    /// The device's stream is live after `cursor`.
    case live(Device, cursor: Int64)
    /// A push to deliver after its grace period.
    case schedulePush(PendingPush)
    /// Pushes were queued for devices without a connection (wake the delivery workers).
    case pushQueued
    /// The answer to a backend call, released after the commit like a client's response.
    case backendReply(BackendCall, Result<BackendValue, BackendFailure>)
    /// The user's live devices read their stream from the store up to `seq` (events another node committed).
    case catchUp(user: String, through: Int64)
    /// Stream events another node committed, with their bodies, for the live devices of their users here.
    case remoteRuns(StreamRuns)
    /// The device's connection is to be closed with `code` (after what was queued for it): it was signed out.
    case close(Device, code: UInt16, reason: String)
}

/// The effects of one batch, buffered until its commit.
struct SyncStep<Device: Hashable> {
    var effects: [SyncEffect<Device>] = []
    /// Devices whose `sync` is in this step (so their next requests in the same batch are allowed).
    var syncing: Set<Device> = []
    /// Users signed out in this step (here or, heard from another node, there): a connect later in the same batch was
    /// admitted before the sign-out and is checked again.
    var signedOut: Set<String> = []
}

extension ClientRequest {
    /// Whether the request may write to the store (then it needs a write transaction).
    var writesToStore: Bool {
        switch self {
        case .sync, .conversations, .history, .search, .scene, .bell, .members, .users, .pushResolve: false
        case .dm, .group, .send, .ack, .bellRead, .bellReadAll, .follow, .react, .signOut, .leave, .pushRegister, .pushUnregister: true
        case .mute, .unmute, .quiet, .markUnread: true
        case .editMessage, .unsendMessage: true
        case .renameGroup, .addMember, .removeMember: true
        case .typingStart, .typingStop: false
        }
    }
}
