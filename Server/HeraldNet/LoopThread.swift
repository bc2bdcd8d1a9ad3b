import CLinux
import Glibc

/// Carries a thread's body through pthread's `void *` argument.
private final class ThreadBody {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}

/// Starts a joinable pthread running `body`. `name` shows up in `top -H` and debuggers (15 chars max).
func spawnThread(named name: String, _ body: @escaping @Sendable () -> Void) throws(NetError) -> pthread_t {
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var thread = pthread_t()
    let status = pthread_create(
        &thread, nil,
        { argument in
            guard let argument else { return nil }
            Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue().run()
            return nil
        }, context)
    guard status == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        throw NetError(errno: status, call: "pthread_create")
    }
    _ = clinux_set_thread_name(thread, String(name.prefix(15)))
    return thread
}
