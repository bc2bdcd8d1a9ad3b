import ArgumentParser
import HeraldServer

extension ServeCommand {
    /// The /api/v1 settings: defaults, then HERALD_API_* variables, then flags.
    func makeAPIOptions(environment: [String: String]) throws -> APIOptions {
        var options = APIOptions()
        if let text = environment["HERALD_API_RATE_LIMIT"] {
            guard let rate = Double(text), rate >= 0, rate.isFinite else { throw ValidationError("HERALD_API_RATE_LIMIT must be a number >= 0, not \(text)") }
            options.rateLimitPerSecond = rate
        }
        if let text = environment["HERALD_API_MAX_BODY"] {
            guard let size = Int(text), size > 0 else { throw ValidationError("HERALD_API_MAX_BODY must be a positive integer, not \(text)") }
            options.maxBodySize = size
        }
        if let apiRateLimit {
            guard apiRateLimit >= 0, apiRateLimit.isFinite else { throw ValidationError("--api-rate-limit must be a number >= 0") }
            options.rateLimitPerSecond = apiRateLimit
        }
        if let apiMaxBody {
            guard apiMaxBody > 0 else { throw ValidationError("--api-max-body must be positive") }
            options.maxBodySize = apiMaxBody
        }
        // Capped before the conversion: a finite but huge rate (1e300) would trap in Int(_:).
        options.rateLimitBurst = max(1, Int(min((2 * options.rateLimitPerSecond).rounded(.up), Double(Int32.max))))
        return options
    }
}
