/// A data frame that is a whole message by itself (FIN set, no extension bits) and lies entirely in the input.
///
/// Nearly every message a chat client sends is one: the transport can hand it to its consumer straight from the read,
/// without the machine's reassembly buffer, its action list and the copy into ``WebSocketStateMachine/received``.
public struct WholeMessageFrame: Sendable, Equatable {
    /// `.text` or `.binary`.
    public let opcode: WebSocketOpcode
    /// Where the payload lies in the input, still masked if ``maskKey`` is set.
    public let payload: Range<Int>
    /// The frame's masking key (always present for a server, never for a client).
    public let maskKey: MaskKey?

    /// Where the frame ends in the input: the next frame starts here.
    public var end: Int { payload.upperBound }

    /// Copies the payload out of `input` unmasked into `destination`, which holds exactly `payload.count` bytes.
    ///
    /// - Returns: whether the copy is known to be all ASCII (see ``Masking/copy(_:from:to:count:)``), so a text
    ///   payload needs no UTF-8 check; false when it was not looked at (an unmasked frame) or has a byte above 0x7F.
    @discardableResult
    public func unmask(from input: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Bool {
        guard !payload.isEmpty, let target = destination.baseAddress, let source = input.baseAddress else { return true }
        guard let maskKey else {
            target.copyMemory(from: source + payload.lowerBound, byteCount: payload.count)
            return false
        }
        return Masking.copy(maskKey, from: source + payload.lowerBound, to: target, count: payload.count)
    }
}

extension WebSocketStateMachine {
    /// The data frame at `offset` of `bytes` when it is a whole message the caller may take by itself: the machine is
    /// open and between messages, the frame is final, has no RSV bit, is masked as our role requires (§5.1), announces
    /// its length in 7 or 16 bits, within the limits and at most `maxPayload`, and all of its payload is in `bytes`.
    /// Nil otherwise: the caller then feeds `bytes[offset...]` to ``receive(_:now:)``, which takes that frame and
    /// everything else (partial frames, fragments, control frames, extensions, errors) with all the checks.
    ///
    /// Nothing changes here; `mutating` only so that a machine kept in a class (a session's) is read in place: as a
    /// plain method, every call copied the whole machine (its buffers' references counted) to call it on the copy.
    /// The caller unmasks the payload (``WholeMessageFrame/unmask(from:into:)``), checks a text
    /// payload is UTF-8 (if it is not, it feeds the frame to ``receive(_:now:)`` instead, which fails the connection
    /// with 1007 as §8.1 asks) and calls ``noteRead(at:)`` for the read: a whole message changes no other state.
    public mutating func wholeMessage(in bytes: UnsafeRawBufferPointer, at offset: Int, maxPayload: Int) -> WholeMessageFrame? {
        guard state == .open, isBetweenMessages, offset >= 0, bytes.count - offset >= 2 else { return nil }
        let first = bytes[offset]
        let second = bytes[offset + 1]
        // FIN, RSV1-3 clear, and opcode text (0x1) or binary (0x2).
        guard first == 0x81 || first == 0x82 else { return nil }
        let masked = second & 0x80 != 0
        guard masked == (role == .server) else { return nil }
        let length7 = Int(second & 0x7F)
        guard length7 != 127 else { return nil }
        var position = offset + 2
        var length = length7
        if length7 == 126 {
            guard bytes.count - position >= 2 else { return nil }
            length = Int(bytes[position]) << 8 | Int(bytes[position + 1])
            position += 2
        }
        guard length <= maxPayload, length <= limits.maxFrameSize, length <= limits.maxMessageSize else { return nil }
        var maskKey: MaskKey?
        if masked {
            guard bytes.count - position >= 4 else { return nil }
            maskKey = MaskKey((bytes[position], bytes[position + 1], bytes[position + 2], bytes[position + 3]))
            position += 4
        }
        guard bytes.count - position >= length else { return nil }
        return WholeMessageFrame(opcode: first == 0x81 ? .text : .binary, payload: position..<(position + length), maskKey: maskKey)
    }
}
