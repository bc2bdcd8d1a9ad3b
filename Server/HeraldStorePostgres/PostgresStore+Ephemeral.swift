import HeraldStore

extension PostgresStore: EphemeralSignalStore {
    /// The LISTEN/NOTIFY channel of typing and presence (E1, E2): the payload is the whole signal, and PostgreSQL keeps
    /// no NOTIFY once it is delivered, so nothing of it is stored.
    public static let ephemeralChannel = "herald_ephemeral"

    public func publish(_ signal: EphemeralSignal) throws {
        _ = try connection.execute("SELECT pg_notify('\(Self.ephemeralChannel)', $1)", .text(signal.payload))
    }
}
