import HeraldServer
import Testing

/// The options of the security-logging work: the warning rate and summary interval are validated at start, and
/// every new flag has its HERALD_* variable.
@Suite("Engine: security logging and /metrics token options")
struct SecurityLoggingOptionsTests {
    @Test("A warning rate below 1 per second and a summary interval outside 1 ms...1 h are refused at start")
    func warningLimitsAreValidated() {
        #expect(EngineOptionsValidationTests.refuses { $0.warningsPerSecond = 0 })
        #expect(EngineOptionsValidationTests.refuses { $0.warningSummaryIntervalMs = 0 })
        #expect(EngineOptionsValidationTests.refuses { $0.warningSummaryIntervalMs = 3_600_001 })
        #expect(!EngineOptionsValidationTests.refuses {
            $0.warningsPerSecond = 1
            $0.warningSummaryIntervalMs = 1
        })
        #expect(EngineOptionsValidationTests.refuses { $0.metricsToken = "" }, "an empty token would let anyone in")
    }

    @Test("HERALD_WARNINGS_PER_SECOND, HERALD_WARNING_SUMMARY_INTERVAL_MS and HERALD_METRICS_TOKEN_FILE are read; bad numbers name the variable")
    func environmentVariables() throws {
        let options = try HeraldServerOptions(environment: [
            "HERALD_WARNINGS_PER_SECOND": "3", "HERALD_WARNING_SUMMARY_INTERVAL_MS": "500", "HERALD_METRICS_TOKEN_FILE": "/etc/herald/metrics-token",
        ])
        #expect(options.warningsPerSecond == 3)
        #expect(options.warningSummaryIntervalMs == 500)
        #expect(options.metricsTokenFile == "/etc/herald/metrics-token")
        #expect(options.metricsToken == nil, "the file is read by settleMetricsToken, not while parsing")
        #expect(HeraldServerOptions().warningsPerSecond == 10 && HeraldServerOptions().warningSummaryIntervalMs == 10_000)
        #expect(throws: OptionsError.self) { try HeraldServerOptions(environment: ["HERALD_WARNINGS_PER_SECOND": "many"]) }
    }
}
