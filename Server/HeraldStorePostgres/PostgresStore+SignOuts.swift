import HeraldStore

extension PostgresStore {
    // MARK: - Sign-outs

    public func signOut(user: String, device: String?, issuedBefore: Int64) throws {
        try transaction {
            try connection.execute(
            """
            INSERT INTO sign_outs (user_id, device, issued_before) VALUES ($1, $2, $3)
            ON CONFLICT (user_id, device) DO UPDATE SET issued_before = GREATEST(sign_outs.issued_before, excluded.issued_before)
            """,
                .text(user), .text(device ?? ""), .int(issuedBefore))
            // Every node closes the user's live devices it holds; carried by the wake-up, delivered at commit.
            try signal("signout \(user) \(device ?? "")")
        }
    }

    public func isSignedOut(user: String, device: String?, issuedAt: Int64) throws -> Bool {
        try connection.queryFirst(
            "SELECT 1 FROM sign_outs WHERE user_id = $1 AND device IN ('', $2) AND $3 < issued_before LIMIT 1",
            .text(user), .text(device ?? ""), .int(issuedAt)) { _ in true } ?? false
    }

    public func signedOutUntil(user: String, device: String?) throws -> Int64? {
        guard let device else {
            return try connection.queryFirst("SELECT max(issued_before) FROM sign_outs WHERE user_id = $1", .text(user)) { $0.optionalInt(0) } ?? nil
        }
        return try connection.queryFirst(
            "SELECT max(issued_before) FROM sign_outs WHERE user_id = $1 AND device IN ('', $2)",
            .text(user), .text(device)) { $0.optionalInt(0) } ?? nil
    }
}
