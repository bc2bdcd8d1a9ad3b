@testable import HeraldServer
import Testing

/// M1, M2: the edit and unsend windows are server settings (so tests and operators need not wait 15 minutes).
@Suite("Options: edit and unsend windows")
struct MessageRevisionOptionsTests {
    @Test("M1, M2: 15 and 2 minutes by default; HERALD_EDIT_WINDOW and HERALD_UNSEND_WINDOW set them in seconds; out of range is refused")
    func windows() throws {
        let defaults = HeraldServerOptions()
        #expect(defaults.editWindowSeconds == 900 && defaults.unsendWindowSeconds == 120)
        let options = try HeraldServerOptions(environment: ["HERALD_EDIT_WINDOW": "60", "HERALD_UNSEND_WINDOW": "0"])
        #expect(options.editWindowSeconds == 60 && options.unsendWindowSeconds == 0)
        try options.validate()
        #expect(throws: OptionsError.self) { try HeraldServerOptions(environment: ["HERALD_EDIT_WINDOW": "soon"]) }
        #expect(throws: OptionsError.self) { try HeraldServerOptions(environment: ["HERALD_UNSEND_WINDOW": "-1"]) }
        var huge = HeraldServerOptions()
        huge.editWindowSeconds = Int.max
        #expect(throws: OptionsError.self) { try huge.validate() }
    }
}
