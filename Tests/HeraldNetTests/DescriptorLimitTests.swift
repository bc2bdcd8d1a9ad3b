import Glibc
import HeraldNet
import Testing

extension ServerTests {
    @Test("E6 trap: accept at EMFILE pauses the listener for a tick instead of spinning, then resumes")
    func acceptAtDescriptorLimitDoesNotSpin() throws {
        let (server, events, port) = try startEchoServer(threads: 1, tickMilliseconds: 10)
        defer { #expect(stop(server)) }
        var original = rlimit()
        try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &original) == 0)
        // The kernel hands out the lowest free number below the soft limit, so put the limit just past
        // the third free number: room for exactly client 1, the server's side of it, and client 2.
        var free = 0
        var limit: Int32 = 0
        while free < 3 {
            if fcntl(limit, F_GETFD) == -1 { free += 1 }
            limit += 1
        }
        var lowered = original
        lowered.rlim_cur = rlim_t(limit)
        try #require(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered) == 0)
        defer { _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &original) }

        var first: TestClient? = try TestClient(port: port)
        #expect(events.waitUntil { $0.opened.count == 1 })
        let second = try TestClient(port: port)  // handshake completes in the kernel; accept4 gets EMFILE

        let cpuBefore = processCPUMilliseconds()
        #expect(!events.waitUntil(timeoutMilliseconds: 300) { $0.opened.count == 2 })
        let cpuSpent = processCPUMilliseconds() - cpuBefore
        // A listener left armed at EMFILE would burn a whole core for the 300 ms.
        #expect(cpuSpent < 150, "process used \(cpuSpent) ms of CPU in 300 ms while at the limit")

        first = nil  // frees two descriptors once the server closes its side
        _ = first
        #expect(events.waitUntil { $0.opened.count == 2 })
        try second.send("back")
        #expect(try second.receive(exactly: 4) == Array("back".utf8))
    }
}

/// User + system CPU time of this process so far.
private func processCPUMilliseconds() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    let user = usage.ru_utime.tv_sec * 1000 + usage.ru_utime.tv_usec / 1000
    let system = usage.ru_stime.tv_sec * 1000 + usage.ru_stime.tv_usec / 1000
    return user + system
}
