/// Size limits enforced while parsing, before any payload byte is buffered.
public struct WebSocketLimits: Sendable, Hashable {
    /// The largest frame payload accepted, in bytes; a larger declared length fails with 1009.
    public var maxFrameSize: Int
    /// The largest reassembled message accepted, in bytes; a message whose running total would exceed it fails
    /// with 1009 as soon as the offending frame's header is read.
    public var maxMessageSize: Int

    /// Creates limits; negative values are treated as zero.
    public init(maxFrameSize: Int, maxMessageSize: Int) {
        self.maxFrameSize = max(0, maxFrameSize)
        self.maxMessageSize = max(0, maxMessageSize)
    }

    /// 16 MiB per frame and per message.
    public static let `default` = WebSocketLimits(maxFrameSize: 16 << 20, maxMessageSize: 16 << 20)
}
