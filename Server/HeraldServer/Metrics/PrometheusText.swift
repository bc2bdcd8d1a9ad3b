/// Builds the Prometheus text exposition format (version 0.0.4): `# HELP`, `# TYPE`, then `name{labels} value`
/// lines. Label values here are fixed identifiers chosen by the server, never user input, so no escaping is needed.
struct PrometheusText {
    private(set) var text = ""

    /// Starts a metric family.
    mutating func family(_ name: String, _ type: String, _ help: String) {
        text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
    }

    /// One sample.
    mutating func sample(_ name: String, _ labels: [(String, String)] = [], _ value: Int) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    /// A family with a single sample.
    mutating func single(_ name: String, _ type: String, _ help: String, _ value: Int) {
        family(name, type, help)
        sample(name, [], value)
    }

    /// A histogram in seconds from a ``LatencyHistogram`` in microseconds.
    mutating func histogram(_ name: String, _ help: String, _ histogram: LatencyHistogram) {
        family(name, "histogram", help)
        let (cumulative, count, sum) = histogram.snapshot()
        for (bound, value) in zip(histogram.boundsMicroseconds, cumulative) {
            sample(name + "_bucket", [("le", Self.seconds(bound))], value)
        }
        sample(name + "_bucket", [("le", "+Inf")], count)
        text += "\(name)_sum \(Self.seconds(sum))\n"
        sample(name + "_count", [], count)
    }

    /// Microseconds as a decimal number of seconds without floating-point noise ("0.0025").
    static func seconds(_ microseconds: Int) -> String {
        let whole = microseconds / 1_000_000
        var fraction = String(microseconds % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return fraction.isEmpty ? "\(whole)" : "\(whole).\(fraction)"
    }
}
