import ArgumentParser
import Foundation

/// `chat`: U users in U/2 direct conversations, each user sending r messages per second into theirs.
struct ChatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "chat", abstract: "U users in U/2 DMs, each sending --per-user messages/s.")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("u"), .long], help: "Users (even); one device each.") var users = 1000
    @Option(help: "Messages per second per user.") var perUser: Double = 1
    @Option(help: "Text size in bytes.") var size = 100

    func run() throws {
        guard users >= 2, users % 2 == 0, perUser > 0, size >= 40 else { throw ValidationError("--users must be even and >= 2; --per-user > 0") }
        BenchRun.raiseOpenFileLimit()
        do {
            let prefix = common.userPrefix()
            let names = (0..<users).map { "\(prefix)u\($0)" }
            let loop = try BenchLoop(port: try common.port())
            let fleet = Fleet(loop: loop, tokens: try common.tokenSource(), deviceUsers: names, devicePrefix: "\(prefix)d")
            let deadline = BenchRun.deadline(common.setupTimeout)
            try fleet.connectAll(deadline: deadline, progress: !common.quiet)
            var dms = [String](repeating: "", count: users / 2)
            for pair in 0..<users / 2 {
                fleet.call(2 * pair, { SyncRequest.dm(id: $0, user: names[2 * pair + 1]) }) { response in
                    dms[pair] = ((response["conversation"] as? [String: Any])?["id"] as? String) ?? ""
                }
            }
            try fleet.waitForCalls(deadline: deadline)
            guard !dms.contains("") else { throw BenchError("dm creation failed") }
            let load = MessageLoad(
                fleet: fleet, conversations: dms.map { .init(id: $0, receivers: 2) },
                senders: (0..<users).map { .init(device: $0, conversation: $0 / 2) }, pace: .rate(Double(users) * perUser),
                size: size, prefix: prefix)
            load.limit = common.count ?? Int.max
            var sampler = ServerSampler(pid: common.serverPid)
            var fields = load.run(duration: common.duration, drain: common.drain, sampler: &sampler, progress: !common.quiet)
            fields["scenario"] = "chat"
            fields["users"] = users
            fields["per_user_rate"] = perUser
            fields["size"] = size
            fleet.closeAll()
            BenchRun.finish(fields)
        } catch {
            BenchRun.fail("chat", error)
        }
    }
}
