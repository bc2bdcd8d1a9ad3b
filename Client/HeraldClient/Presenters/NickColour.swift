/// The colour a person's name is drawn in: one per user id, the same on every run, every device and every terminal,
/// so a reader learns who is who by colour (as weechat and irssi colour nicks).
public enum NickColour {
    /// The palette index of `user`: FNV-1a (64-bit) of the id's UTF-8 bytes, modulo the palette's size. Swift's own
    /// `hashValue` is seeded per process, so it would give a person another colour on every start.
    public static func index(of user: String, paletteSize: Int = TerminalStyle.nickPalette.count) -> Int {
        guard paletteSize > 0 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in user.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return Int(hash % UInt64(paletteSize))
    }

    /// The style mark of `user`'s name.
    public static func mark(of user: String) -> TerminalStyle.Mark { .nick(index(of: user)) }
}
