import HeraldStore

extension PostgresStore: EphemeralSignalStore {
    /// The LISTEN/NOTIFY channel of typing and presence (E1, E2): the payload is the whole signal, and PostgreSQL keeps
    /// no NOTIFY once it is delivered, so nothing of it is stored.
    public static let ephemeralChannel = "herald_ephemeral"

    /// PostgreSQL refuses a NOTIFY payload of 8,000 bytes or more.
    static let ephemeralPayloadLimit = 7_900

    /// One statement for every signal of a batch: the payloads joined by newlines into as few notifications as fit.
    public func publish(_ signals: [EphemeralSignal]) throws {
        guard !signals.isEmpty else { return }
        _ = try connection.execute(
            "SELECT pg_notify('\(Self.ephemeralChannel)', payload) FROM unnest($1::text[]) AS payload",
            .textArray(Self.ephemeralPayloads(signals)))
    }

    /// The signals' payloads (which hold no newline) packed into notifications under the size limit, in order.
    static func ephemeralPayloads(_ signals: [EphemeralSignal]) -> [String] {
        var payloads: [String] = []
        var current = ""
        for signal in signals {
            let line = signal.payload
            if !current.isEmpty, current.utf8.count + 1 + line.utf8.count > ephemeralPayloadLimit {
                payloads.append(current)
                current = ""
            }
            current += current.isEmpty ? line : "\n" + line
        }
        if !current.isEmpty { payloads.append(current) }
        return payloads
    }
}
