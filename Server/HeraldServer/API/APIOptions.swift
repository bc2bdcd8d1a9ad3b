/// Settings of the backend HTTP API.
public struct APIOptions: Sendable {
    /// Largest request body in bytes (413 above).
    public var maxBodySize: Int
    /// Requests per second each API key may sustain; 0 disables rate limiting.
    public var rateLimitPerSecond: Double
    /// Requests a key may make at once before the rate applies.
    public var rateLimitBurst: Int

    public init(maxBodySize: Int = 64 * 1024, rateLimitPerSecond: Double = 100, rateLimitBurst: Int = 200) {
        self.maxBodySize = maxBodySize
        self.rateLimitPerSecond = rateLimitPerSecond
        self.rateLimitBurst = rateLimitBurst
    }
}
