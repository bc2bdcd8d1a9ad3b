import HeraldRules
import PropertyBased
import Testing

@Suite("P1, P3, P4: which devices of a recipient get a push")
struct PushRulesTests {
    private func device(_ id: Int, foreground: Bool, viewing: String? = nil, live: Bool = true) -> PushCandidate<Int> {
        PushCandidate(device: id, isForeground: foreground, viewing: viewing, isLive: live)
    }

    @Test("P1: a device viewing c suppresses the push for every device of the user, even one that cannot take pushes")
    func p1Viewing() {
        #expect(PushRules.decide(in: "c1", devices: [device(1, foreground: false), device(2, foreground: true, viewing: "c1")]) == .none)
        #expect(PushRules.decide(in: "c1", devices: [device(1, foreground: false), device(2, foreground: true, viewing: "c1", live: false)]) == .none)
    }

    @Test("P3: only live background devices get it; viewing another conversation does not suppress")
    func p3Background() {
        let devices = [device(1, foreground: false), device(2, foreground: true, viewing: "c2"), device(3, foreground: false, live: false),
                       device(4, foreground: false)]
        #expect(PushRules.decide(in: "c1", devices: devices) == .unlessRead([1, 4]))
        #expect(PushRules.decide(in: "c1", devices: [device(1, foreground: true)]) == .none)
        #expect(PushRules.decide(in: "c1", devices: [PushCandidate<Int>]()) == .none)
    }

    @Test("Property: the targets are exactly the live background devices, unless one views c")
    func property() async {
        let gen = zip(Gen.bool, Gen.bool, Gen.bool, Gen.bool).array(of: 0...6)
        await propertyCheck(count: 300, input: gen) { flags in
            let devices = flags.enumerated().map { index, flag in
                device(index, foreground: flag.0 || flag.1, viewing: flag.0 && flag.1 ? (flag.2 ? "c1" : "c2") : nil, live: flag.3)
            }
            let viewed = devices.contains { $0.viewing == "c1" }
            let expected = devices.filter { $0.isLive && !$0.isForeground }.map(\.device)
            let decision = PushRules.decide(in: "c1", devices: devices)
            #expect(decision == (viewed || expected.isEmpty ? .none : .unlessRead(expected)))
        }
    }

    @Test("P1/P3 for a locked phone: a registered device without a connection is a background candidate; a connected one is left out (one alert per device)")
    func unconnectedRegistered() {
        let registered = [(name: "phone", device: 10), (name: "laptop", device: 11)]
        let locked = PushRules.unconnected(registered, connectedNames: ["laptop"])
        #expect(locked == [PushCandidate(device: 10, isForeground: false, viewing: nil)])
        #expect(PushRules.decide(in: "c1", devices: [device(11, foreground: true)] + locked) == .unlessRead([10]))
        #expect(PushRules.decide(in: "c1", devices: [device(11, foreground: true, viewing: "c1")] + locked) == .none, "P1 still holds")
        #expect(PushRules.unconnected(registered, connectedNames: ["phone", "laptop"]).isEmpty)
    }
}
