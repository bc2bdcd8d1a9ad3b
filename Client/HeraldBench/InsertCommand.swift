import ArgumentParser
import Foundation

/// `insert`: acknowledged sends per second. C users each send into a DM with a connected partner, with many
/// sends in flight; each send is committed (R4) before its response and delivered to both participants.
struct InsertCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "insert", abstract: "Acknowledged sends/s with --inflight sends outstanding.")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("c"), .long], help: "Sending users (each has a connected partner).") var connections = 16
    @Option(help: "Sends in flight in total.") var inflight = 256
    @Option(help: "Text size in bytes.") var size = 100

    func run() throws {
        guard connections >= 1, inflight >= 1, size >= 40 else { throw ValidationError("bad --connections/--inflight/--size") }
        BenchRun.raiseOpenFileLimit()
        do {
            let prefix = common.userPrefix()
            let names = (0..<connections * 2).map { "\(prefix)u\($0)" }
            let loop = try BenchLoop(port: try common.port())
            let fleet = Fleet(loop: loop, tokens: try common.tokenSource(), deviceUsers: names, devicePrefix: "\(prefix)d")
            let deadline = BenchRun.deadline(common.setupTimeout)
            try fleet.connectAll(deadline: deadline, progress: !common.quiet)
            var dms = [String](repeating: "", count: connections)
            for pair in 0..<connections {
                fleet.call(2 * pair, { SyncRequest.dm(id: $0, user: names[2 * pair + 1]) }) { response in
                    dms[pair] = ((response["conversation"] as? [String: Any])?["id"] as? String) ?? ""
                }
            }
            try fleet.waitForCalls(deadline: deadline)
            guard !dms.contains("") else { throw BenchError("dm creation failed") }
            let load = MessageLoad(
                fleet: fleet, conversations: dms.map { .init(id: $0, receivers: 2) },
                senders: (0..<connections).map { .init(device: 2 * $0, conversation: $0) }, pace: .window(inflight), size: size, prefix: prefix)
            load.limit = common.count ?? Int.max
            var sampler = ServerSampler(pid: common.serverPid)
            var fields = load.run(duration: common.duration, drain: common.drain, sampler: &sampler, progress: !common.quiet)
            fields["scenario"] = "insert"
            fields["inflight"] = inflight
            fields["size"] = size
            fleet.closeAll()
            BenchRun.finish(fields)
        } catch {
            BenchRun.fail("insert", error)
        }
    }
}
