extension SQLiteStore {
    // MARK: - Sign-outs

    public func signOut(user: String, device: String?, issuedBefore: Int64) throws {
        try connection.execute(
            """
            INSERT INTO sign_outs (user_id, device, issued_before) VALUES (?, ?, ?)
            ON CONFLICT (user_id, device) DO UPDATE SET issued_before = max(issued_before, excluded.issued_before)
            """,
            .text(user), .text(device ?? ""), .int(issuedBefore))
    }

    public func isSignedOut(user: String, device: String?, issuedAt: Int64) throws -> Bool {
        try connection.scalar(
            "SELECT 1 FROM sign_outs WHERE user_id = ? AND device IN ('', ?) AND ? < issued_before LIMIT 1",
            .text(user), .text(device ?? ""), .int(issuedAt)) != nil
    }

    public func signedOutUntil(user: String, device: String?) throws -> Int64? {
        guard let device else {
            return try connection.scalar("SELECT max(issued_before) FROM sign_outs WHERE user_id = ?", .text(user))
        }
        return try connection.scalar(
            "SELECT max(issued_before) FROM sign_outs WHERE user_id = ? AND device IN ('', ?)", .text(user), .text(device))
    }
}
