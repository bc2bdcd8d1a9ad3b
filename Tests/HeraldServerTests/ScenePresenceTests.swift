import HeraldProtocol
import HeraldRules
@testable import HeraldSync
import Testing

@Suite("SyncCore: scene counts that let a send skip the per-recipient checks (S1, P1, P3)")
struct ScenePresenceTests {
    private func thread(_ c: String, foreground: Bool = true) -> SceneReport {
        SceneReport(scene: .thread(c), foreground: foreground)
    }

    @Test("S1: a conversation counts as viewed exactly while a foreground device is in its thread")
    func viewers() {
        var presence = ScenePresence()
        let list = SceneReport(scene: .list, foreground: true)
        presence.change(from: nil, to: list)
        presence.change(from: nil, to: list)
        #expect(!presence.isViewed("c1"))
        presence.change(from: list, to: thread("c1"))
        presence.change(from: list, to: thread("c1"))
        #expect(presence.isViewed("c1") && !presence.isViewed("c2"))
        presence.change(from: thread("c1"), to: thread("c2"))
        #expect(presence.isViewed("c1") && presence.isViewed("c2"))
        // A thread in the background is not viewing it (S1 needs the foreground).
        presence.change(from: thread("c1"), to: thread("c1", foreground: false))
        #expect(!presence.isViewed("c1"))
        presence.change(from: thread("c2"), to: nil)
        #expect(!presence.isViewed("c2"))
        #expect(presence.viewers.isEmpty)
    }

    @Test("P3: background devices are counted through scene changes, reconnects and disconnects")
    func backgroundDevices() {
        var presence = ScenePresence()
        let background = SceneReport(scene: .background, foreground: false)
        let list = SceneReport(scene: .list, foreground: true)
        presence.change(from: nil, to: list)
        #expect(presence.backgroundDevices == 0)
        presence.change(from: list, to: background)
        presence.change(from: nil, to: thread("c1", foreground: false))
        #expect(presence.backgroundDevices == 2)
        presence.change(from: background, to: nil)
        presence.change(from: thread("c1", foreground: false), to: list)
        #expect(presence.backgroundDevices == 0)
    }

    @Test("S1/P1 through SyncCore: a viewer who disconnects no longer suppresses the push")
    func viewerLeaves() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        let c = f.dm(1, with: "bob")
        f.online(2, "bob")
        #expect(f.request(2, #"{"type":"scene","id":9,"scene":"thread","conversation":"\#(c)","foreground":true}"#).ok)
        #expect(f.core.presence.isViewed(c))
        f.process([.disconnect(2)])
        #expect(!f.core.presence.isViewed(c))
        #expect(f.core.presence.viewers.isEmpty)
    }
}
