import HeraldNet
import HeraldProtocol
import HeraldStore
import Logging

extension SyncCore {
    /// Delivers event `seq` of `user`'s stream to each live device of the user exactly once and in order (R1a, R3).
    ///
    /// Each device's cursor is the last seq it got. On one node the next event is always cursor + 1, and all
    /// those devices share one encoding. With several nodes on one database, another node may have committed
    /// events in between: such a device first reads the gap from the store, so it never skips one, and a later
    /// notification of those events finds its cursor past them and sends nothing twice.
    func deliverStreamEvent(user: String, seq: Int64, body: SharedBytes, into deliveries: inout [SyncDelivery<Device>]) {
        guard let mine = devicesByUser[user] else { return }
        var next: [Device] = []
        for device in mine {
            guard let state = devices[device], let cursor = state.cursor, cursor < seq else { continue }
            if cursor == seq - 1 {
                next.append(device)
                state.cursor = seq
            } else {
                catchUp(device, user: user, after: cursor, through: seq, into: &deliveries)
            }
        }
        // The frame is `{"seq":N,` + the body every user of this event shares (no per-user copy of the body).
        if !next.isEmpty { deliveries.append(SyncDelivery(seq: seq, body: body, devices: next)) }
    }

    /// Brings every live device of `user` up to `seq` (or everything stored, for `.max`) from the store.
    func catchUp(user: String, through seq: Int64, into deliveries: inout [SyncDelivery<Device>]) {
        for device in devicesByUser[user] ?? [] {
            guard let cursor = devices[device]?.cursor, cursor < seq else { continue }
            catchUp(device, user: user, after: cursor, through: seq, into: &deliveries)
        }
    }

    /// Sends the device its stream events after `cursor` up to `seq` and moves its cursor. A failed read leaves
    /// the cursor where it is: the next event or notification for the user fills the gap.
    private func catchUp(_ device: Device, user: String, after cursor: Int64, through seq: Int64, into deliveries: inout [SyncDelivery<Device>]) {
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
        devices[device]?.cursor = position
    }
}
