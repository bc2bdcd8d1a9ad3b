import HeraldBytes
import HeraldProtocol

/// With several nodes, this node's own commit can reach one of its devices before another node's earlier events do:
/// the other node committed seq N of the user's stream first, this node then appended N + 1 (its heads followed the
/// other node's wake-up row at the start of its transaction), and the LISTEN connection is still on its way with N.
///
/// Reading N from the store for that device (one round trip on the sync thread per device, tens of thousands a
/// minute in two-node chat) is what the store is for only when N will not come by itself. It will: PostgreSQL hands
/// notifications out in commit order and this node skips none but its own, so N's run is already on its way. The
/// device's frames are held instead, in order (its stream events, and the answers and replies behind them, so a
/// sender never hears "stored" before its own message arrives, R3), and go out the moment N's run is delivered
/// (``deliverRuns(_:now:into:)``). A hold that lasts ``heldFramesLimitMilliseconds`` (a notification lost with a LISTEN
/// connection that had not yet noticed, a device that synced from a snapshot taken before that run) reads the gap
/// from the store after all, so a device never waits longer than that for an event it is owed.
extension SyncCore {
    /// How long a device's frames wait for another node's earlier events before the gap is read from the store.
    static var heldFramesLimitMilliseconds: Int64 { 200 }

    /// Whether `state`'s frames must wait: it holds some already, or stream event `seq` would skip events after
    /// its cursor that another node committed (several nodes only; alone, a gap is read at once as before).
    @inline(__always)
    func mustHold(_ state: DeviceState, cursor: Int64, seq: Int64) -> Bool {
        state.held != nil || (cursor < seq - 1 && cluster != nil)
    }

    /// Holds stream event `seq` for `device`.
    func hold(_ device: Device, _ state: DeviceState, seq: Int64, body: SharedBytes, now: Int64) {
        if state.held == nil {
            state.held = HeldFrames(since: now)
            holdingDevices.insert(device)
            heldFramesDeadline = min(heldFramesDeadline, now + Self.heldFramesLimitMilliseconds)
        }
        state.held?.frames.append(.event(seq: seq, body: body))
        counters.heldStreamEvents += 1
    }

    /// Holds a frame that is no stream event (an answer, a reply, a device event) when `device` holds others, so it
    /// keeps its place behind them. Whether it did.
    func holdIfWaiting(_ device: Device, payload: [UInt8], answersRequest: Bool) -> Bool {
        guard !holdingDevices.isEmpty, let state = devices[device], state.held != nil else { return false }
        state.held?.frames.append(.frame(payload: payload, answersRequest: answersRequest))
        return true
    }

    /// Sends what `state` holds that now follows its cursor, in order: events already delivered (read from the store
    /// meanwhile) are dropped, frames behind them go along, and holding stops unless an event still waits for a gap.
    func releaseHeld(_ device: Device, _ state: DeviceState, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        guard var held = state.held, var position = state.cursor else { return }
        var released = 0
        release: for frame in held.frames {
            switch frame {
            case .event(let seq, let body):
                if seq > position + 1 { break release }
                if seq == position + 1 {
                    deliveries.append(SyncDelivery(body: body, devices: [device], seqs: [seq]))
                    position = seq
                }
            case .frame(let payload, let answersRequest):
                deliveries.append(SyncDelivery(payload: payload, devices: [device], answersRequest: answersRequest))
            }
            released += 1
        }
        state.cursor = position
        if released == held.frames.count {
            state.held = nil
            holdingDevices.remove(device)
            return
        }
        guard released > 0 else { return }
        // What is left waits for a later gap; its own time limit starts now.
        held.frames.removeFirst(released)
        held.since = now
        state.held = held
        heldFramesDeadline = min(heldFramesDeadline, now + Self.heldFramesLimitMilliseconds)
    }

    /// Sends everything `device` holds now, reading its gap from the store first: the server is about to close it.
    func flushHeld(_ device: Device, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        guard !holdingDevices.isEmpty, let state = devices[device], let held = state.held, let cursor = state.cursor else { return }
        guard let gapEnd = held.firstEventSeq.map({ $0 - 1 }), gapEnd > cursor else {
            return releaseHeld(device, state, now: now, into: &deliveries)
        }
        catchUp(UserDevice(device: device, state: state), after: cursor, through: gapEnd, now: now, into: &deliveries)
    }

    /// Reads from the store the gaps of devices whose frames waited ``heldFramesLimitMilliseconds``, and sends them
    /// with what they held.
    func releaseOverdueHolds(now: Int64) -> [SyncDelivery<Device>] {
        guard now >= heldFramesDeadline else { return [] }
        var deliveries: [SyncDelivery<Device>] = []
        var next = Int64.max
        for device in holdingDevices {
            guard let state = devices[device], let held = state.held, state.cursor != nil else {
                holdingDevices.remove(device)
                continue
            }
            guard held.since + Self.heldFramesLimitMilliseconds <= now else {
                next = min(next, held.since + Self.heldFramesLimitMilliseconds)
                continue
            }
            counters.heldFramesTimedOut += 1
            flushHeld(device, now: now, into: &deliveries)
            if state.held != nil {
                // The read failed: try again after another limit.
                state.held?.since = now
                next = min(next, now + Self.heldFramesLimitMilliseconds)
            }
        }
        heldFramesDeadline = next
        return deliveries
    }
}

/// A device's frames waiting for another node's earlier events, oldest first (see ``SyncCore/hold(_:_:seq:body:now:)``).
struct HeldFrames {
    enum Frame {
        /// A live stream event: `{"seq":seq,` + `body`.
        case event(seq: Int64, body: SharedBytes)
        /// Any other frame for the device (an answer to one of its requests, a reply, an event without a seq).
        case frame(payload: [UInt8], answersRequest: Bool)
    }

    /// When the oldest of `frames` started waiting (ms since the epoch).
    var since: Int64
    var frames: [Frame] = []

    /// The seq of the first stream event held (the end of the gap it waits for is one before it).
    var firstEventSeq: Int64? {
        for frame in frames { if case .event(let seq, _) = frame { return seq } }
        return nil
    }
}
