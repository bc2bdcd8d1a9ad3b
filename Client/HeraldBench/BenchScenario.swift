import Foundation

/// The steps every /sync scenario shares: a fleet of connected devices, the conversations it talks in, and a timed
/// message load whose result line names the scenario. Each command says only what is its own (who talks to whom).
enum BenchScenario {
    /// Connects one device for each entry of `deviceUsers` (a user id; a user may have several devices), to
    /// each `--server` in turn, from `--source-addresses`.
    static func connectFleet(_ common: CommonOptions, deviceUsers: [String], prefix: String) throws -> Fleet {
        let fleet = try makeFleet(common, deviceUsers: deviceUsers, prefix: prefix)
        try fleet.connectAll(deadline: BenchRun.deadline(common.setupTimeoutSeconds), progress: !common.quiet)
        return fleet
    }

    /// A fleet for `deviceUsers`, not yet connected, once the open-file limit and the source addresses are known to
    /// hold that many connections. `firstDevice` is the crowd-wide index of `deviceUsers[0]` when this process holds
    /// one share of a larger crowd (`crowd --processes`); `crowdSize` is the whole crowd's, whose connections share
    /// the source addresses' ephemeral ports.
    static func makeFleet(
        _ common: CommonOptions, deviceUsers: [String], prefix: String, firstDevice: Int = 0, crowdSize: Int? = nil
    ) throws -> Fleet {
        let sources = try SourceAddresses(count: common.sourceAddresses)
        try sources.check(connections: crowdSize ?? deviceUsers.count)
        try BenchRun.raiseOpenFileLimit(connections: deviceUsers.count)
        let ports = try common.ports()
        let loop = try BenchLoop(port: ports[0], otherPorts: Array(ports.dropFirst()), sourceAddresses: sources, firstTag: firstDevice)
        return Fleet(loop: loop, tokens: try common.tokenSource(), deviceUsers: deviceUsers, devicePrefix: "\(prefix)d")
    }

    /// Creates one conversation per request (made by the device `device` with the given request id) and returns
    /// their ids in order; fails unless every one was created.
    static func createConversations(
        _ fleet: Fleet, _ common: CommonOptions, what: String, requests: [(device: Int, request: (Int) -> String)]
    ) throws -> [String] {
        var ids = [String](repeating: "", count: requests.count)
        for (index, request) in requests.enumerated() {
            fleet.call(request.device, request.request) { response in
                ids[index] = ((response["conversation"] as? [String: Any])?["id"] as? String) ?? ""
            }
        }
        try fleet.waitForCalls(deadline: BenchRun.deadline(common.setupTimeoutSeconds))
        guard !ids.contains("") else { throw BenchError("\(what) creation failed") }
        return ids
    }

    /// Runs `load` for `--duration-seconds` (at most `--count` messages), adds `fields` to its result, closes the fleet, lets
    /// `afterwards` amend the result (it runs once the fleet is closed) and prints the result line as `scenario`; exits.
    static func run(
        _ load: MessageLoad, on fleet: Fleet, _ common: CommonOptions, scenario: String, fields extra: [String: Any],
        afterwards: (inout [String: Any]) -> Void = { _ in }
    ) -> Never {
        load.limit = common.count ?? Int.max
        var sampler = ServerSampler(pid: common.serverPid)
        var fields = load.run(duration: common.durationSeconds, drain: common.drainSeconds, sampler: &sampler, progress: !common.quiet)
        fields["scenario"] = scenario
        fields["nodes"] = fleet.loop.ports.count
        fields.merge(extra) { _, new in new }
        fleet.closeAll()
        afterwards(&fields)
        BenchRun.finish(fields)
    }
}
