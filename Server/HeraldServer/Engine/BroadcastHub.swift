import HeraldBytes
import HeraldNet
import HeraldWebSocket
import Synchronization

/// The benchmark broadcast endpoint (`--bench-endpoints`, semantics of `shared/bench`): a text message goes to every
/// *other* client on a broadcast path; a text message starting with `hello` is not broadcast, its sender gets `ready`.
///
/// Members are kept per loop, each list touched only on its own loop thread, so joining, leaving and delivering
/// take no lock. A message is encoded once into a ``SharedBytes``; the sender's loop delivers it inline and every
/// other loop gets one task per message (one encoding, zero copies per receiver).
final class BroadcastHub: Sendable {
    /// One loop's members, each held by one reference the list takes on join and gives back on leave. Named unmanaged
    /// so a broadcast touches no member's reference count: perf of a fan-out to 1,000 had the retain and release of
    /// each member, iterated from a plain array, at 11% of the loop's CPU (each a cache miss on a cold object). A member
    /// leaves (and may go) only when its connection has closed, and the loop closes connections after the batch it is
    /// handling, never inside a broadcast. Confined to that loop's thread.
    final class Members: @unchecked Sendable {
        // @unchecked: only ever read or written on the loop thread whose index this list has.
        var sessions: [Unmanaged<WebSocketSession>] = []

        deinit {
            for session in sessions { session.release() }
        }
    }

    private let members: [Members]
    private let loops = Mutex<[EventLoop]>([])

    init(loopCount: Int) {
        members = (0..<loopCount).map { _ in Members() }
    }

    func attach(loops: [EventLoop]) { self.loops.withLock { $0 = loops } }

    /// Adds `session` to its loop's list; returns its position there. Loop thread only.
    func join(_ session: WebSocketSession) -> Int? {
        let index = session.connection.loop.index
        guard index < members.count else { return nil }
        members[index].sessions.append(Unmanaged.passRetained(session))
        return members[index].sessions.count - 1
    }

    /// Removes `session` from its loop's list (swap-remove). Loop thread only.
    func leave(_ session: WebSocketSession) {
        let index = session.connection.loop.index
        guard index < members.count else { return }
        let list = members[index]
        let member = Unmanaged.passUnretained(session).toOpaque()
        if let position = list.sessions.firstIndex(where: { $0.toOpaque() == member }) {
            list.sessions.swapAt(position, list.sessions.count - 1)
            list.sessions.removeLast().release()
        }
    }

    /// Sends `text` to every member but `sender`. Called on the sender's loop thread.
    func broadcast(_ text: UnsafeRawBufferPointer, from sender: WebSocketSession) {
        var encoded: [UInt8] = []
        encoded.reserveCapacity(FrameEncoder.headerSize(payloadLength: text.count, masked: false) + text.count)
        FrameEncoder.encodeServerFrame(opcode: .text, payload: text, into: &encoded)
        let frame = SharedBytes(encoded)
        let senderLoop = sender.connection.loop
        for loop in loops.withLock({ $0 }) where loop.index < members.count {
            let list = members[loop.index]
            // Pinned once per loop: the receivers' queues count it without atomic operations (``LoopPinnedFrame``).
            if loop === senderLoop {
                let pinned = LoopPinnedFrame(frame)
                let skipped = Unmanaged.passUnretained(sender).toOpaque()
                for session in list.sessions where session.toOpaque() != skipped {
                    session._withUnsafeGuaranteedRef { $0.send(pinned) }
                }
            } else {
                loop.execute {
                    let pinned = LoopPinnedFrame(frame)
                    for session in list.sessions { session._withUnsafeGuaranteedRef { $0.send(pinned) } }
                }
            }
        }
    }
}

/// The sessions on broadcast paths (one delegate for all of them; the route joins each session to the hub).
final class BroadcastDelegate: WebSocketSessionDelegate, Sendable {
    var route: String { "broadcast" }

    private let hub: BroadcastHub
    private static let ready = Array("ready".utf8)
    private static let hello = Array("hello".utf8)

    init(hub: BroadcastHub) {
        self.hub = hub
    }

    func sessionDidReceiveText(_ session: WebSocketSession, _ text: UnsafeRawBufferPointer) {
        if text.starts(with: Self.hello) {
            session.sendText(Self.ready)
        } else {
            hub.broadcast(text, from: session)
        }
    }

    func sessionDidReceiveBinary(_ session: WebSocketSession, _ bytes: UnsafeRawBufferPointer) {}

    func sessionDidClose(_ session: WebSocketSession) { hub.leave(session) }
}
