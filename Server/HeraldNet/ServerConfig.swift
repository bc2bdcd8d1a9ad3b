import Glibc
import HeraldTLS

/// Settings for a `TCPServer`. Every limit has a production default; tests lower the timings.
public struct ServerConfig: Sendable {
    /// Literal address to bind ("127.0.0.1", "0.0.0.0", "::"); "localhost" means 127.0.0.1.
    public var host: String
    /// Port to bind; 0 asks the kernel for a free one (read it back from `TCPServer.boundPort`).
    public var port: UInt16
    /// Loop threads, used when the server creates its own `LoopGroup`. Defaults to the core count.
    public var threads: Int
    /// `listen` backlog per listener.
    public var backlog: Int32
    /// Granularity of each loop's timer sweep (deadlines fire up to this late). Default 100 ms.
    public var tickMilliseconds: Int
    /// A connection whose unsent output would exceed this is closed (slow consumer) instead of buffering more.
    public var maxQueuedBytesPerConnection: Int
    /// SO_SNDBUF for accepted sockets (the kernel doubles it); nil keeps the kernel's autotuning. Bounds the kernel
    /// memory a stalled reader can pin on top of `maxQueuedBytesPerConnection` (on loopback autotuning starts near 2.5 MiB).
    public var socketSendBufferBytes: Int? = nil
    /// Most bytes written to one connection per loop pass, so one fast reader cannot starve the rest.
    public var maxBytesPerWritePass: Int
    /// How long shutdown waits for handlers' goodbyes to flush before closing what is left. Default 2 s.
    public var shutdownGraceMilliseconds: Int
    /// Serve TLS with this certificate: handlers still read and write plaintext. Each accepted connection
    /// uses the context current at accept, so `reload()` changes the certificate for new connections only. nil: plain TCP.
    public var tls: ReloadableTLSContext?

    /// Creates a configuration; every argument has a default.
    public init(
        host: String = "127.0.0.1",
        port: UInt16 = 0,
        threads: Int = LoopGroup.defaultThreadCount,
        backlog: Int32 = 1024,
        tickMilliseconds: Int = 100,
        maxQueuedBytesPerConnection: Int = 4 << 20,
        maxBytesPerWritePass: Int = 256 << 10,
        shutdownGraceMilliseconds: Int = 2000,
        tls: ReloadableTLSContext? = nil
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.backlog = backlog
        self.tickMilliseconds = tickMilliseconds
        self.maxQueuedBytesPerConnection = maxQueuedBytesPerConnection
        self.maxBytesPerWritePass = maxBytesPerWritePass
        self.shutdownGraceMilliseconds = shutdownGraceMilliseconds
        self.tls = tls
    }
}
