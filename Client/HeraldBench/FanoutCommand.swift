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
    @Option(help: "Text size in bytes.") var textBytes = 100
    @Option(help: "Total messages per second; default: as fast as --inflight allows.") var rate: Double?
    @Option(help: "Messages in flight (sent, not yet acknowledged and delivered everywhere) without --rate.") var inflight = 32
    @Option(help: ArgumentHelp(
        "What --inflight counts: messages (each until acknowledged and delivered everywhere) or deliveries (outstanding deliveries ÷ devices per message, as wsbench counts its raw fan-out's window).",
        valueName: "messages|deliveries")) var inflightCounts: MessageLoad.WindowRule = .messages

    func run() throws {
        let largest = ProtocolLimits.default.maxGroupMembers + 1
        guard (2...largest).contains(members) else {
            throw ValidationError("--members must be 2...\(largest) (a group names at most \(largest - 1) others)")
        }
        guard devices >= 1, (1...members).contains(senders), textBytes >= 40, inflight >= 1 else { throw ValidationError("bad --devices/--senders/--text-bytes/--inflight") }
        do {
            let prefix = common.userPrefix()
            let users = (0..<members).map { "\(prefix)u\($0)" }
            let deviceUsers = (0..<members * devices).map { users[$0 % members] }
            let fleet = try BenchScenario.connectFleet(common, deviceUsers: deviceUsers, prefix: prefix)
            let group = try BenchScenario.createConversations(fleet, common, what: "group", requests: [
                (0, { SyncRequest.group(id: $0, title: "bench \(prefix)", members: Array(users.dropFirst())) })
            ])
            let load = MessageLoad(
                fleet: fleet, plan: .init(conversations: [.init(id: group[0], receivers: deviceUsers.count)],
                senders: (0..<senders).map { .init(device: $0, conversation: 0) }, pace: rate.map { .rate($0) } ?? .window(inflight, inflightCounts),
                textBytes: textBytes, prefix: prefix))
            BenchScenario.run(load, on: fleet, common, scenario: "fanout", fields: [
                "members": members, "devices_per_member": devices, "size": textBytes, "pace": rate.map { "rate \($0)/s" } ?? "inflight \(inflight)" + (inflightCounts == .messages ? "" : " (\(inflightCounts.rawValue))"),
            ])
        } catch {
            BenchRun.fail("fanout", error)
        }
    }
}

extension MessageLoad.WindowRule: ExpressibleByArgument {}
