import Foundation
import HeraldStore
import HeraldStorePostgres

/// A store on a fresh database of the shared cluster with users alice, bob and carol, plus its URL.
func storeWithUsers() throws -> (String, PostgresStore) {
    let url = try PostgresCluster.newDatabase()
    let store = try PostgresStore(url: url)
    for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("carol", "Carol")] {
        try store.upsertUser(id: id, name: name)
    }
    return (url, store)
}

/// Inserts `count` text messages from `sender` and returns them in order.
func send(_ count: Int, from sender: String, in conversation: String, store: PostgresStore, startingAt now: Int64 = 1_000) throws -> [MessageRecord] {
    try (0..<count).map { index in
        try store.insertMessage(
            conversation: conversation, sender: sender, clientMessageId: "\(sender)-\(UUID().uuidString)", kind: .text,
            text: "message \(index)", imageURL: nil, now: now + Int64(index)
        ).message
    }
}

/// Runs `bodies` at the same time, each on its own thread (like one node each), and returns their results in order.
func runConcurrently<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> [T] {
    let results = ConcurrentResults<T>(bodies.count)
    let done = DispatchSemaphore(value: 0)
    let start = DispatchSemaphore(value: 0)
    for (index, body) in bodies.enumerated() {
        let thread = Thread {
            start.wait()
            results.values[index] = Result { try body() }
            done.signal()
        }
        thread.start()
    }
    for _ in bodies { start.signal() }
    for _ in bodies { done.wait() }
    return try results.values.map { result in
        guard let result else { throw CancellationError() }
        return try result.get()
    }
}

/// One result slot per thread of ``runConcurrently(_:)``.
private final class ConcurrentResults<T>: @unchecked Sendable {
    // @unchecked: each thread writes only its own slot, and reads happen after every thread finished.
    var values: [Result<T, any Error>?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
}
