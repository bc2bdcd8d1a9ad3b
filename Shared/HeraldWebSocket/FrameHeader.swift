/// The decoded header of one WebSocket frame (RFC 6455 §5.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// | Masking-key (continued)       |          Payload Data         |
/// +-------------------------------- - - - - - - - - - - - - - - - +
/// :                     Payload Data continued ...                :
/// + - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - +
/// |                     Payload Data continued ...                |
/// +---------------------------------------------------------------+
/// ```
public struct FrameHeader: Sendable, Hashable {
    /// FIN: this is the final fragment of a message.
    public var fin: Bool
    /// The three RSV bits, in the low bits (RSV1 = 0b100).
    public var reservedBits: UInt8
    /// The frame's opcode.
    public var opcode: WebSocketOpcode
    /// The masking key, present iff the MASK bit was set.
    public var maskKey: MaskKey?
    /// The payload length in bytes.
    public var payloadLength: Int

    /// Creates a header.
    public init(fin: Bool, reservedBits: UInt8 = 0, opcode: WebSocketOpcode, maskKey: MaskKey?, payloadLength: Int) {
        self.fin = fin
        self.reservedBits = reservedBits
        self.opcode = opcode
        self.maskKey = maskKey
        self.payloadLength = payloadLength
    }
}
