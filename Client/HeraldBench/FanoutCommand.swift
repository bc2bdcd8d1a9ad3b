import ArgumentParser
import Foundation
import HeraldProtocol

/// `fanout`: one group whose every member is connected; S members send ~100-byte messages; each message reaches
/// every connected device of the group (the senders' own devices included, as /sync streams a user's own
/// messages to all their devices).
struct FanoutCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fanout",
        abstract: "One group of N members, each connected; S senders; max rate (--inflight) or --rate.",
        discussion: "A group has at most ProtocolLimits.maxGroupMembers + 1 users (the creator and the members it names).")

    @OptionGroup var common: CommonOptions
    @Option(name: [.customShort("n"), .long], help: "Group members (users), 2...1001.") var members = 100
    @Option(help: "Connected devices per member.") var devices = 1
    @Option(name: [.customShort("s"), .long], help: "Members that send.") var senders = 1
    @Option(help: "Text size in bytes.") var size = 100
    @Option(help: "Total messages per second; default: as fast as --inflight allows.") var rate: Double?
    @Option(help: "Messages in flight (sent, not yet acknowledged and delivered everywhere) without --rate.") var inflight = 32

    func run() throws {
        let largest = ProtocolLimits.default.maxGroupMembers + 1
        guard (2...largest).contains(members) else {
            throw ValidationError("--members must be 2...\(largest) (a group names at most \(largest - 1) others)")
        }
        guard devices >= 1, (1...members).contains(senders), size >= 40, inflight >= 1 else { throw ValidationError("bad --devices/--senders/--size/--inflight") }
        BenchRun.raiseOpenFileLimit()
        do {
            let prefix = common.userPrefix()
            let users = (0..<members).map { "\(prefix)u\($0)" }
            let deviceUsers = (0..<members * devices).map { users[$0 % members] }
            let ports = try common.ports()
            let loop = try BenchLoop(port: ports[0], otherPorts: Array(ports.dropFirst()))
            let fleet = Fleet(loop: loop, tokens: try common.tokenSource(), deviceUsers: deviceUsers, devicePrefix: "\(prefix)d")
            let deadline = BenchRun.deadline(common.setupTimeout)
            try fleet.connectAll(deadline: deadline, progress: !common.quiet)
            var conversation = ""
            fleet.call(0, { SyncRequest.group(id: $0, title: "bench \(prefix)", members: Array(users.dropFirst())) }) { response in
                conversation = ((response["conversation"] as? [String: Any])?["id"] as? String) ?? ""
            }
            try fleet.waitForCalls(deadline: deadline)
            guard !conversation.isEmpty else { throw BenchError("group creation failed") }
            let load = MessageLoad(
                fleet: fleet, conversations: [.init(id: conversation, receivers: deviceUsers.count)],
                senders: (0..<senders).map { .init(device: $0, conversation: 0) }, pace: rate.map { .rate($0) } ?? .window(inflight),
                size: size, prefix: prefix)
            load.limit = common.count ?? Int.max
            var sampler = ServerSampler(pid: common.serverPid)
            var fields = load.run(duration: common.duration, drain: common.drain, sampler: &sampler, progress: !common.quiet)
            fields["scenario"] = "fanout"
            fields["members"] = members
            fields["devices_per_member"] = devices
            fields["size"] = size
            fields["pace"] = rate.map { "rate \($0)/s" } ?? "inflight \(inflight)"
            fleet.closeAll()
            BenchRun.finish(fields)
        } catch {
            BenchRun.fail("fanout", error)
        }
    }
}
