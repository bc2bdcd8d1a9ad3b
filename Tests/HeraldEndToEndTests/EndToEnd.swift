import Testing

/// The end-to-end suite: the real `herald-server` and several real `herald --script` processes as different
/// users and devices. Scenarios are named after the rule (docs/RULES.md) or seed flow they prove.
///
/// The suites run one after another: each starts its own server and clients, and on a 2-core machine running
/// them side by side would only make deadlines flaky.
@Suite("End to end", .serialized)
struct EndToEnd {}
