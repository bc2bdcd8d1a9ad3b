extension WebSocketStateMachine {
    /// The buffers a machine uses only while it handles one input (actions, delivered messages, bytes to write, the
    /// reassembly of a message and of a control frame, compression scratch). Between inputs they hold nothing a later
    /// read continues, so the connections of one thread can share one set: an idle connection then holds no buffer,
    /// and a busy one still allocates none per message (``borrowBuffers(from:)``, ``returnBuffers(to:)``).
    public struct InputBuffers {
        var actions: [WebSocketAction] = []
        var received: [UInt8] = []
        var outgoing: [UInt8] = []
        var message: [UInt8] = []
        var control: [UInt8] = []
        var compression: [UInt8] = []

        public init() {}
    }

    /// Whether no frame is partly read and no fragmented message is unfinished: nothing buffered is waiting for
    /// more bytes.
    public var isBetweenMessages: Bool { parser.isAtFrameBoundary && messageOpcode == nil }

    /// Bytes of memory the machine holds between inputs: the capacity of its buffers while a frame is partly read or a
    /// fragmented message is unfinished (they keep the partial input), 0 between messages (it has given them back, see
    /// ``returnBuffers(to:)``). What a peer that starts messages and never finishes them costs the transport.
    public var retainedBytes: Int {
        guard !isBetweenMessages else { return 0 }
        return messageBuffer.capacity + received.capacity + outgoing.capacity + controlBuffer.capacity + compressionScratch.capacity
            + actions.capacity * MemoryLayout<WebSocketAction>.stride
    }

    /// Takes `spare`'s buffers for the next input in place of this machine's, where this machine has none of its own
    /// (it gave them back after its last input), leaving empty ones in `spare`. Nothing is copied or allocated; a
    /// `spare` already lent out leaves the machine to allocate what it needs, as it would without one.
    public mutating func borrowBuffers(from spare: inout InputBuffers) {
        Self.borrow(&actions, from: &spare.actions)
        Self.borrow(&received, from: &spare.received)
        Self.borrow(&outgoing, from: &spare.outgoing)
        Self.borrow(&messageBuffer, from: &spare.message)
        Self.borrow(&controlBuffer, from: &spare.control)
        Self.borrow(&compressionScratch, from: &spare.compression)
    }

    /// Gives the buffers to `spare`, emptied, once the last input's actions are carried out (``actions`` and the
    /// ranges into ``received`` and ``outgoing`` are then gone). A machine in the middle of a frame or a fragmented
    /// message keeps them: they hold its partial input until the rest arrives. Where `spare` has its own buffer
    /// already (a second machine's, returned first), this machine's is let go.
    public mutating func returnBuffers(to spare: inout InputBuffers) {
        guard isBetweenMessages else { return }
        Self.give(&actions, to: &spare.actions)
        Self.give(&received, to: &spare.received)
        Self.give(&outgoing, to: &spare.outgoing)
        Self.give(&messageBuffer, to: &spare.message)
        Self.give(&controlBuffer, to: &spare.control)
        Self.give(&compressionScratch, to: &spare.compression)
    }

    private static func borrow<Element>(_ own: inout [Element], from spare: inout [Element]) {
        if own.capacity == 0 && spare.capacity > 0 { swap(&own, &spare) }
    }

    private static func give<Element>(_ own: inout [Element], to spare: inout [Element]) {
        guard own.capacity > 0 else { return }
        // A large message's buffer is not kept for everyone (as ``beginInput`` does for one machine).
        if spare.capacity == 0 && own.capacity <= 64 << 10 {
            // Most of the six are empty after an input; emptying one anyway cost a generic replaceSubrange each read.
            if !own.isEmpty { own.removeAll(keepingCapacity: true) }
            swap(&own, &spare)
        } else {
            own = []
        }
    }
}
