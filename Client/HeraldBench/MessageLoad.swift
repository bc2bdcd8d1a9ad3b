import Foundation
import HeraldClock

/// The measured phase of `fanout`, `chat` and `insert`: senders send `send` requests whose text carries a key
/// and a timestamp (``BenchText``), paced at a total rate or kept at a number in flight; every device counts what
/// it receives per message key (``DeliveryLedger``). A message is in flight until it is acknowledged and has
/// reached every device of its conversation.
final class MessageLoad {
    enum Pace {
        /// Messages per second across all senders, round robin (each sender gets rate / senders).
        case rate(Double)
        /// As fast as possible with at most this many messages in flight.
        case window(Int, WindowRule)
    }

    /// When a message stops counting against the window.
    enum WindowRule: String, CaseIterable {
        /// Once it is acknowledged and every device of its conversation has it.
        case messages
        /// The window holds deliveries, not messages: at most `window` × (devices per message) deliveries outstanding,
        /// however they are spread, so early receivers may be several messages ahead of late ones. This is how the
        /// bench kit's wsbench counts in flight (sent − deliveries ÷ receivers), for comparing with its raw fan-out.
        case deliveries
    }

    struct Sender {
        var device: Int
        var conversation: Int
    }

    struct Conversation {
        var id: String
        /// Devices that receive each of its messages (every connected device of every participant).
        var receivers: Int
    }

    /// What a scenario asks of the load: who sends into which conversation, how fast, and what.
    struct Plan {
        var conversations: [Conversation]
        var senders: [Sender]
        var pace: Pace
        /// Bytes of each message's text.
        var textBytes: Int
        /// Prefix of client message ids, unique per run.
        var prefix: String
    }

    private let fleet: Fleet
    private let plan: Plan
    /// The most messages to send (`--count`).
    var limit = Int.max
    /// Each sender reports typing in the conversation just before each message (E1 load: one more request and one
    /// ephemeral event per receiver per message, plus the stop the message implies). Their answers are not waited on.
    var typingBeforeEachSend = false

    private var sentAt: [UInt64] = []
    private var expected: [Int32] = []
    /// 0 waiting for the response, 1 acknowledged, 2 refused.
    private var ackState: [UInt8] = []
    private var finished: [Bool] = []
    private var keyOfRequest: [[Int: Int]]
    private var ledger: DeliveryLedger
    private var deliveryLatency = LatencyHistogram()
    /// With several nodes (`--server` repeated): delivery latency by the node the receiving device is on (connection `tag` is on
    /// node `tag % nodes`), so a cross-node hop shows as the difference between them.
    private var deliveryLatencyByNode: [LatencyHistogram]
    private var ackLatency = LatencyHistogram()
    private var inFlight = 0
    /// Deliveries still expected of the messages sent (their devices, less those of refused messages), and of those
    /// the ones made: the window of ``WindowRule/deliveries``.
    private var deliveriesExpected = 0
    private var deliveriesWithheld = 0
    private var acked = 0
    private var refused = 0
    private var refusals: [String: Int] = [:]
    private var nextSender = 0

    init(fleet: Fleet, plan: Plan) {
        self.fleet = fleet
        self.plan = plan
        keyOfRequest = [[Int: Int]](repeating: [:], count: fleet.connections.count)
        ledger = DeliveryLedger(receivers: fleet.connections.count)
        deliveryLatencyByNode = fleet.loop.ports.count > 1 ? Array(repeating: LatencyHistogram(), count: fleet.loop.ports.count) : []
    }

    /// Runs the load for `duration` seconds, drains for at most `drain`, and returns the result fields.
    func run(duration: Double, drain: Double, sampler: inout ServerSampler, progress: Bool) -> [String: Any] {
        fleet.listen(self)
        defer { fleet.listen(nil) }
        let start = MonotonicClock.nanoseconds()
        var stopAt = start + UInt64(duration * 1e9)
        var nextReport = start + 1_000_000_000
        var lastDeliveries = 0
        var lastAcked = 0
        var deliveriesInWindow = 0
        var ackedInWindow = 0
        var measuredEnd = stopAt
        var measuring = true
        var drainUntil = stopAt + UInt64(drain * 1e9)
        sampler = ServerSampler(pid: sampler.stats?.pid)
        var serverFieldsAtStop: [String: Any] = [:]
        while true {
            let now = MonotonicClock.nanoseconds()
            if now < stopAt && sentAt.count >= limit {
                // --count reached: the load phase ends here and the drain starts.
                stopAt = now
                drainUntil = now + UInt64(drain * 1e9)
            }
            if now < stopAt {
                sendDue(now: now, elapsed: Double(now - start) / 1e9)
                // Out before the loop waits: left for the end of the next pass, a message freed by the last pass's
                // deliveries sat until the wait's timeout whenever nothing else was readable (the usual case once a
                // window's last delivery is in), a millisecond per window in which the server had nothing to do.
                fleet.loop.flushPending()
            } else if measuring {
                measuring = false
                measuredEnd = now
                deliveriesInWindow = ledger.unique
                ackedInWindow = acked
                serverFieldsAtStop = sampler.resultFields()
            }
            if now >= stopAt && (inFlight == 0 || now >= drainUntil) { break }
            fleet.loop.runOnce(timeoutMs: 1)
            if progress && now >= nextReport {
                nextReport += 1_000_000_000
                let cpu = sampler.intervalCPU()
                let phase = now < stopAt ? "load" : "drain"
                Report.progress(String(
                    format: "[%@ %4.1fs] sent=%d acked=%d deliveries/s=%d acks/s=%d in_flight=%d p50=%.2fms p99=%.2fms dup=%d dropped=%d",
                    phase, Double(now - start) / 1e9, sentAt.count, acked, ledger.unique - lastDeliveries, acked - lastAcked, inFlight,
                    deliveryLatency.percentileMs(0.5), deliveryLatency.percentileMs(0.99), ledger.duplicates, fleet.dropped)
                    + sampler.progressSuffix(cpu: cpu))
                lastDeliveries = ledger.unique
                lastAcked = acked
            }
        }
        let seconds = Double(measuredEnd - start) / 1e9
        var lost = 0
        var unacked = 0
        for key in sentAt.indices {
            switch ackState[key] {
            case 0: unacked += 1
            case 1: lost += max(0, Int(expected[key]) - ledger.deliveries(of: key))
            default: break
            }
        }
        var fields: [String: Any] = [
            "connections": fleet.connections.count, "senders": plan.senders.count, "conversations": plan.conversations.count,
            "duration_s": Report.round(seconds, 3), "sent": sentAt.count, "acked": acked, "refused": refused, "unacked": unacked,
            "deliveries": ledger.unique, "deliveries_per_s": Report.round(Double(deliveriesInWindow) / seconds, 0),
            "acks_per_s": Report.round(Double(ackedInWindow) / seconds, 0),
            "latency_ms": Self.percentiles(deliveryLatency), "ack_latency_ms": Self.percentiles(ackLatency),
            "lost": lost, "duplicated": ledger.duplicates, "unknown_deliveries": ledger.unknown, "dropped_connections": fleet.dropped,
        ]
        if !refusals.isEmpty { fields["refusals"] = refusals }
        if !deliveryLatencyByNode.isEmpty { fields["latency_ms_by_node"] = deliveryLatencyByNode.map(Self.percentiles) }
        for (name, value) in serverFieldsAtStop { fields[name] = value }
        return fields
    }

    static func percentiles(_ histogram: LatencyHistogram) -> [String: Double] {
        ["p50": Report.round(histogram.percentileMs(0.5), 3), "p99": Report.round(histogram.percentileMs(0.99), 3),
         "p99.9": Report.round(histogram.percentileMs(0.999), 3), "max": Report.round(Double(histogram.maxMicros) / 1000, 3)]
    }

    private func sendDue(now: UInt64, elapsed: Double) {
        guard !plan.senders.isEmpty else { return }
        switch plan.pace {
        case .rate(let perSecond):
            let due = Int(elapsed * perSecond)
            // A bound on in-flight messages keeps memory finite if the server stalls.
            while sentAt.count < min(due, limit) && inFlight < 1_000_000 {
                if !sendOne(now: now) { break }
            }
        case .window(let window, .messages):
            while inFlight < window && sentAt.count < limit {
                if !sendOne(now: now) { break }
            }
        case .window(let window, .deliveries):
            // Outstanding deliveries against `window` messages' worth of them, at the average devices per message.
            while sentAt.count < limit,
                  sentAt.isEmpty || (deliveriesExpected - deliveriesWithheld - ledger.unique) * sentAt.count < window * deliveriesExpected {
                if !sendOne(now: now) { break }
            }
        }
    }

    /// Sends the next sender's message; false when that sender's connection is gone.
    private func sendOne(now: UInt64) -> Bool {
        guard sentAt.count < limit else { return false }
        let sender = plan.senders[nextSender]
        nextSender = (nextSender + 1) % plan.senders.count
        let connection = fleet.connections[sender.device]
        guard connection.fd >= 0 else { return false }
        let key = sentAt.count
        let conversation = plan.conversations[sender.conversation]
        sentAt.append(now)
        expected.append(Int32(conversation.receivers))
        deliveriesExpected += conversation.receivers
        ackState.append(0)
        finished.append(false)
        inFlight += 1
        if typingBeforeEachSend {
            fleet.send(sender.device, SyncRequest.typingStart(id: connection.nextRequestId, conversation: conversation.id))
            connection.nextRequestId += 1
        }
        let id = connection.nextRequestId
        connection.nextRequestId += 1
        keyOfRequest[sender.device][id] = key
        fleet.send(sender.device, SyncRequest.send(
            id: id, conversation: conversation.id, clientMessageId: "\(plan.prefix)-\(key)", text: BenchText.make(key: key, sentAt: now, size: plan.textBytes)))
        return true
    }

    /// One frame of the measured phase, from the fleet.
    func handle(_ connection: BenchConnection, _ scan: SyncFrameScan, _ now: UInt64) {
        switch scan.kind {
        case .response:
            guard let id = scan.requestId, let key = keyOfRequest[connection.tag].removeValue(forKey: id) else { return }
            if scan.ok {
                ackState[key] = 1
                acked += 1
                ackLatency.record(micros: (now &- sentAt[key]) / 1000)
                finishIfDone(key)
            } else {
                ackState[key] = 2
                refused += 1
                deliveriesWithheld += Int(expected[key]) - ledger.deliveries(of: key)
                refusals["refused", default: 0] += 1
                if !finished[key] {
                    finished[key] = true
                    inFlight -= 1
                }
            }
        case .messageEvent:
            guard let key = scan.key else { return }
            if ledger.record(receiver: connection.tag, key: key, sentKeys: sentAt.count) {
                // The send time in the text is `sentAt[key]` (the key is this load's: the ledger took it), read from
                // here rather than parsed again for every receiver.
                let micros = (now &- sentAt[key]) / 1000
                deliveryLatency.record(micros: micros)
                if !deliveryLatencyByNode.isEmpty { deliveryLatencyByNode[connection.tag % deliveryLatencyByNode.count].record(micros: micros) }
                finishIfDone(key)
            }
        case .conversationEvent, .otherEvent, .unknown:
            break
        }
    }

    private func finishIfDone(_ key: Int) {
        guard !finished[key], ackState[key] == 1, ledger.deliveries(of: key) >= Int(expected[key]) else { return }
        finished[key] = true
        inFlight -= 1
    }
}
