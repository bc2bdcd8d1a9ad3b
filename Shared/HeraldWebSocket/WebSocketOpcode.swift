/// A frame's 4-bit opcode (RFC 6455 §5.2, §11.8).
///
/// Modelled as a raw-value struct rather than an enum so that a reserved opcode read off the wire is a value the
/// parser can reject with a typed error, never a failed initialiser at the wrong layer.
public struct WebSocketOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode's wire value, 0x0-0xF.
    public let rawValue: UInt8

    /// Creates an opcode from its wire value; only the low 4 bits are kept.
    @inlinable
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x0F }

    // The named opcodes are constants the compiler folds: as stored `static let`s, every comparison with one from
    // another module (a session's `opcode == .text` per message) went through a lazy global's accessor.

    /// 0x0: continues a fragmented message (§5.4).
    @inlinable public static var continuation: WebSocketOpcode { WebSocketOpcode(rawValue: 0x0) }
    /// 0x1: first frame of a text message; the payload is UTF-8 (§5.6).
    @inlinable public static var text: WebSocketOpcode { WebSocketOpcode(rawValue: 0x1) }
    /// 0x2: first frame of a binary message (§5.6).
    @inlinable public static var binary: WebSocketOpcode { WebSocketOpcode(rawValue: 0x2) }
    /// 0x8: close (§5.5.1).
    @inlinable public static var close: WebSocketOpcode { WebSocketOpcode(rawValue: 0x8) }
    /// 0x9: ping (§5.5.2).
    @inlinable public static var ping: WebSocketOpcode { WebSocketOpcode(rawValue: 0x9) }
    /// 0xA: pong (§5.5.3).
    @inlinable public static var pong: WebSocketOpcode { WebSocketOpcode(rawValue: 0xA) }

    /// Control frames have the high bit of the opcode set (§5.5).
    public var isControl: Bool { rawValue & 0x8 != 0 }

    /// Whether RFC 6455 defines this opcode; 0x3-0x7 and 0xB-0xF are reserved (§5.2).
    public var isDefined: Bool {
        switch rawValue {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: true
        default: false
        }
    }

    public var description: String {
        switch rawValue {
        case 0x0: "continuation"
        case 0x1: "text"
        case 0x2: "binary"
        case 0x8: "close"
        case 0x9: "ping"
        case 0xA: "pong"
        default: "reserved(0x\(String(rawValue, radix: 16)))"
        }
    }
}
