import Foundation
import HeraldProtocol
@testable import HeraldSync
import HeraldStore

/// A SyncCore over a fresh SQLite file, driven with JSON text and a manual clock (ms).
final class SyncCoreFixture {
    let directory: URL
    let store: SQLiteStore
    let core: SyncCore<Int>
    var now: Int64 = 1_763_800_000_000
    /// Every frame each device received, in order, but typing and presence (E1, E2).
    private(set) var received: [Int: [ServerFrame]] = [:]
    /// The typing and presence events each device received, in order: kept apart so the stream's tests see only the
    /// stream (a sync now brings the presence of the device's contacts).
    private(set) var ephemeral: [Int: [EventFrame]] = [:]
    private var nextId = 1

    init(
        graceMilliseconds: Int64 = 2_000, retentionMilliseconds: Int64 = 7 * 24 * 3_600_000, users: [(String, String)] = SyncCoreFixture.cast,
        push: PushSettings = PushSettings(), userBatchMicroseconds: Int = SyncConfiguration().userBatchMicroseconds
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sync-core-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        store = try SQLiteStore(path: directory.appendingPathComponent("herald.db").path)
        for (id, name) in users { try store.upsertUser(id: id, name: name) }
        var configuration = SyncConfiguration(pushGraceMilliseconds: graceMilliseconds, retentionMilliseconds: retentionMilliseconds)
        configuration.push = push
        configuration.userBatchMicroseconds = userBatchMicroseconds
        core = SyncCore<Int>(store: store, configuration: configuration)
    }

    deinit {
        store.close()
        try? FileManager.default.removeItem(at: directory)
    }

    static let cast = [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol"), ("dave", "Dave")]

    /// Feeds a batch and records what each device gets: the batch's deliveries, then those of timers due now, as
    /// the server's sync thread does.
    @discardableResult
    func process(_ inputs: [SyncInput<Int>]) -> [SyncDelivery<Int>] {
        let out = core.process(inputs, now: now) + core.fireDueTimers(now: now)
        record(out)
        return out
    }

    func record(_ deliveries: [SyncDelivery<Int>]) {
        for delivery in deliveries {
            for (index, device) in delivery.devices.enumerated() {
                guard case .success(let frame) = ServerFrame.decode(delivery.payload(at: index)) else {
                    received[-1, default: []].append(.response(.failure(id: nil, ErrorInfo(.internal, "undecodable"))))
                    continue
                }
                if case .event(let event) = frame, event.event == .typing || event.event == .presence {
                    ephemeral[device, default: []].append(event)
                    continue
                }
                received[device, default: []].append(frame)
            }
        }
    }

    /// Moves the clock and fires due timers.
    func advance(milliseconds: Int64) {
        now += milliseconds
        record(core.fireDueTimers(now: now))
    }

    /// Connects a device and syncs it (snapshot unless `after` is given); returns the sync response.
    @discardableResult
    func online(_ device: Int, _ user: String, deviceName: String? = nil, after: Int64? = nil) -> ResponseFrame {
        process([.connect(device, user: user, name: user.capitalized, deviceName: deviceName)])
        return request(device, after.map { #"{"type":"sync","after":\#($0)}"# } ?? #"{"type":"sync"}"#)
    }

    /// Sends one request (JSON without id; an id is added) and returns its response.
    @discardableResult
    func request(_ device: Int, _ json: String) -> ResponseFrame {
        let id = nextId
        nextId += 1
        var text = json
        text.removeFirst()
        process([.text(device, Array("{\"id\":\(id),\(text)".utf8))])
        return response(device, id: id) ?? .failure(id: id, ErrorInfo(.internal, "no response"))
    }

    func response(_ device: Int, id: Int) -> ResponseFrame? {
        for case .response(let response) in received[device] ?? [] where response.id == id { return response }
        return nil
    }

    /// Events the device received (and forgets them when `drain`).
    func events(_ device: Int, drain: Bool = true) -> [EventFrame] {
        let frames = received[device] ?? []
        if drain { received[device] = [] }
        return frames.compactMap { if case .event(let event) = $0 { event } else { nil } }
    }

    /// The typing and presence events the device received (and forgets them when `drain`).
    func ephemeralEvents(_ device: Int, drain: Bool = true) -> [EventFrame] {
        defer { if drain { ephemeral[device] = [] } }
        return ephemeral[device] ?? []
    }

    func clear() {
        received = [:]
        ephemeral = [:]
    }

    /// The frames (responses and events) of a device.
    func frames(_ device: Int) -> [ServerFrame] { received[device] ?? [] }

    /// A dm between two users, created by `device` (of `user`).
    func dm(_ device: Int, with other: String) -> String {
        request(device, #"{"type":"dm","user":"\#(other)"}"#).conversation?.id ?? "?"
    }

    private var clientCounter = 0
    /// Sends a text message; returns the stored message.
    @discardableResult
    func say(_ device: Int, in conversation: String, _ text: String, clientId: String? = nil) -> MessageInfo? {
        clientCounter += 1
        let cid = clientId ?? "cid-\(device)-\(clientCounter)"
        return request(device, #"{"type":"send","conversation":"\#(conversation)","clientMessageId":"\#(cid)","text":"\#(text)"}"#).message
    }
}
