@testable import HeraldServer
import Testing

/// M1, M2: the edit and unsend windows are server settings (so tests and operators need not wait 15 minutes).
@Suite("Options: edit and unsend windows")
struct MessageRevisionOptionsTests {
    @Test("M1, M2: 15 and 2 minutes by default; HERALD_EDIT_WINDOW_SECONDS and HERALD_UNSEND_WINDOW_SECONDS set them in seconds; out of range is refused")
    func windows() throws {
        let defaults = HeraldServerOptions()
        #expect(defaults.editWindowSeconds == 900 && defaults.unsendWindowSeconds == 120)
        let options = try HeraldServerOptions(environment: ["HERALD_EDIT_WINDOW_SECONDS": "60", "HERALD_UNSEND_WINDOW_SECONDS": "0"])
        #expect(options.editWindowSeconds == 60 && options.unsendWindowSeconds == 0)
        try options.validate()
        #expect(throws: OptionsError.self) { try HeraldServerOptions(environment: ["HERALD_EDIT_WINDOW_SECONDS": "soon"]) }
        #expect(throws: OptionsError.self) { try HeraldServerOptions(environment: ["HERALD_UNSEND_WINDOW_SECONDS": "-1"]) }
        var huge = HeraldServerOptions()
        huge.editWindowSeconds = Int.max
        #expect(throws: OptionsError.self) { try huge.validate() }
    }
}
