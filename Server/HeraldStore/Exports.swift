// Everyone who opens a SQLite store also uses the protocol, records and errors it implements: they come with it.
@_exported import HeraldStoreProtocol
