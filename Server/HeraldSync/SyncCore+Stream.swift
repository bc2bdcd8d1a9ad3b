import HeraldBytes
import HeraldProtocol
import HeraldStoreProtocol
import Logging

extension SyncCore {
    /// Delivers one event, appended to each of `users`' streams as `seqs[i]`, to each live device of those users
    /// exactly once and in order (R1a, R3): ONE delivery for the whole fan-out, a (device, seq) pair per receiver.
    ///
    /// Each device's cursor is the last seq it got. On one node the next event is always cursor + 1, and all
    /// those devices share one encoding. With several nodes on one database, another node may have committed
    /// events in between: such a device first reads the gap from the store, so it never skips one, and a later
    /// notification of those events finds its cursor past them and sends nothing twice.
    ///
    /// `users` being the participants of `conversation`, a group's members are found through ``recipients``.
    func deliverStreamEvent(
        users: [String], seqs: [Int64], body: SharedBytes, conversation: String? = nil, now: Int64, into deliveries: inout [SyncDelivery<Device>]
    ) {
        var receivers: [Device] = []
        var receiverSeqs: [Int64] = []
        receivers.reserveCapacity(users.count)
        receiverSeqs.reserveCapacity(users.count)
        func deliver(_ seq: Int64, to mine: [UserDevice<Device>]) {
            for entry in mine {
                let state = entry.state
                guard let cursor = state.cursor, cursor < seq else { continue }
                if mustHold(state, cursor: cursor, seq: seq) {
                    hold(entry.device, state, seq: seq, body: body, now: now)
                } else if cursor == seq - 1 {
                    receivers.append(entry.device)
                    receiverSeqs.append(seq)
                    state.cursor = seq
                } else {
                    catchUp(entry, after: cursor, through: seq, now: now, into: &deliveries)
                }
            }
        }
        if let conversation, users.count >= RecipientCache<Device>.minimumUsers {
            // A group: its members' devices from the cache, their cursors read and moved without reference counting
            // (the core holds every state the entry names; nothing here connects or disconnects a device).
            let found = recipients.receivers(of: users, in: conversation) { devicesByUser[$0] }
            found.withUnsafeBufferPointer { found in
                for receiver in found {
                    let seq = seqs[receiver.member]
                    // The new cursor when the event follows it (the common case), else the old one (below `seq`).
                    let cursor = receiver.state._withUnsafeGuaranteedRef { state -> Int64? in
                        guard let cursor = state.cursor, cursor < seq else { return nil }
                        guard cursor == seq - 1 && state.held == nil else { return cursor }
                        state.cursor = seq
                        return seq
                    }
                    guard let cursor else { continue }
                    if cursor == seq {
                        receivers.append(receiver.device)
                        receiverSeqs.append(seq)
                        continue
                    }
                    let state = receiver.state.takeUnretainedValue()
                    if mustHold(state, cursor: cursor, seq: seq) {
                        hold(receiver.device, state, seq: seq, body: body, now: now)
                    } else {
                        catchUp(UserDevice(device: receiver.device, state: state), after: cursor, through: seq, now: now, into: &deliveries)
                    }
                }
            }
        } else {
            for (user, seq) in zip(users, seqs) {
                guard let mine = devicesByUser[user] else { continue }
                deliver(seq, to: mine)
            }
        }
        // The frame is `{"seq":N,` + the body every user of this event shares (no per-user copy of the body).
        if !receivers.isEmpty { deliveries.append(SyncDelivery(body: body, devices: receivers, seqs: receiverSeqs)) }
    }

    /// Delivers the stream events another node committed to the live devices of their users here, each exactly once
    /// and in order (R1a, R3): one delivery per event body, shared by every device that gets it, each with its own seq.
    /// A device whose cursor is behind a run's start (it missed an earlier transaction's events) reads the gap and the
    /// run from the store instead; one already past the run gets nothing. A device holding this node's later events
    /// for it (``hold(_:_:seq:body:now:)``) gets the run, then what it held, in frames of its own after the shared ones.
    func deliverRuns(_ batch: StreamRuns, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        var receivers: [[Device]] = Array(repeating: [], count: batch.bodies.count)
        var receiverSeqs: [[Int64]] = Array(repeating: [], count: batch.bodies.count)
        // Devices that held frames: everything of theirs in this batch goes here, in order, after the shared frames.
        var ownFrames: [SyncDelivery<Device>] = []
        var ownDevices: Set<Device> = []
        var ownBodies: [Int: SharedBytes] = [:]
        func body(_ index: Int) -> SharedBytes {
            if let shared = ownBodies[index] { return shared }
            let shared = Self.sharedBody(batch.bodies[index])
            ownBodies[index] = shared
            return shared
        }
        for run in batch.runs {
            guard let mine = devicesByUser[run.user], run.count > 0 else { continue }
            let last = run.lastSeq
            for entry in mine {
                guard let cursor = entry.state.cursor, cursor < last else { continue }
                if entry.state.held != nil || (!ownDevices.isEmpty && ownDevices.contains(entry.device)) {
                    ownDevices.insert(entry.device)
                    if cursor < run.firstSeq - 1 {
                        catchUp(entry, after: cursor, through: last, now: now, into: &ownFrames)
                    } else {
                        for seq in (cursor + 1)...last {
                            ownFrames.append(SyncDelivery(body: body(run.firstBody + Int(seq - run.firstSeq)), devices: [entry.device], seqs: [seq]))
                        }
                        entry.state.cursor = last
                        releaseHeld(entry.device, entry.state, now: now, into: &ownFrames)
                    }
                    continue
                }
                if cursor < run.firstSeq - 1 {
                    catchUp(entry, after: cursor, through: last, now: now, into: &deliveries)
                    continue
                }
                for seq in (cursor + 1)...last {
                    let body = run.firstBody + Int(seq - run.firstSeq)
                    receivers[body].append(entry.device)
                    receiverSeqs[body].append(seq)
                }
                entry.state.cursor = last
            }
        }
        // Bodies in stored order: along each user's stream that is seq order.
        for (index, payload) in batch.bodies.enumerated() where !receivers[index].isEmpty && !payload.isEmpty {
            let body = ownBodies[index] ?? Self.sharedBody(payload)
            deliveries.append(SyncDelivery(body: body, devices: receivers[index], seqs: receiverSeqs[index]))
        }
        deliveries += ownFrames
    }

    /// A stored event body (a JSON object without `seq`) as the shared tail of its frames: without its leading `{`.
    private static func sharedBody(_ payload: [UInt8]) -> SharedBytes {
        payload.withUnsafeBytes { SharedBytes(copying: UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }
    }

    /// Brings every live device of `user` up to `seq` (or everything stored, for `.max`) from the store.
    func catchUp(user: String, through seq: Int64, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        for entry in devicesByUser[user] ?? [] {
            guard let cursor = entry.state.cursor, cursor < seq else { continue }
            catchUp(entry, after: cursor, through: seq, now: now, into: &deliveries)
        }
    }

    /// Sends the device its stream events after `cursor` up to `seq` and moves its cursor, then what it held that
    /// now follows. A failed read leaves the cursor where it is: the next event or notification for the user fills
    /// the gap (or the hold's time limit reads it again).
    func catchUp(_ entry: UserDevice<Device>, after cursor: Int64, through seq: Int64, now: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        let (device, user) = (entry.device, entry.state.user)
        counters.streamGapReads += 1
        var position = cursor
        do {
            while position < seq {
                let page = try store.events(user: user, after: position, limit: max(configuration.replayPageSize, 1))
                guard !page.isEmpty else { break }
                for event in page where event.seq <= seq {
                    deliveries.append(SyncDelivery(payload: EventFrame.withSequence(event.payload, seq: event.seq), devices: [device]))
                    position = event.seq
                }
                if page.count < configuration.replayPageSize || position >= seq { break }
            }
        } catch {
            logger.debug("stream catch-up failed", metadata: ["user": "\(user)", "error": "\(error)"])
        }
        entry.state.cursor = position
        if entry.state.held != nil { releaseHeld(device, entry.state, now: now, into: &deliveries) }
    }
}
