import Foundation
import HeraldStorePostgres
import HeraldTestSupport

/// A PostgreSQL store with users alice, bob and carol on a fresh database of the shared cluster, plus its URL
/// (for PostgreSQL-only tests; they run in suites enabled only when the binaries exist).
func postgresStoreWithUsers() throws -> (String, PostgresStore) {
    let url = try PostgresCluster.newDatabase()
    return (url, try withUsers(PostgresStore(url: url)))
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
