import HeraldStore
import Testing

/// Both backends format and parse public ids with this one type, so one test covers the ids of every store.
@Suite("Record ids")
struct RecordIDTests {
    @Test("Strict ids: prefix plus a canonical positive decimal")
    func recordIDs() {
        #expect(RecordID.parse(RecordID.message, "m1") == 1)
        #expect(RecordID.parse(RecordID.message, "m9223372036854775807") == Int64.max)
        for bad in ["m", "m0", "m01", "m-1", "m+1", "c1", "m1x", " m1", "m9223372036854775808", "M1"] {
            #expect(RecordID.parse(RecordID.message, bad) == nil, "\(bad)")
        }
        #expect(RecordID.format(RecordID.notification, 42) == "n42")
        // Every key formats as the prefix and the key's decimal, which parses back (the store's keys are positive).
        for key: Int64 in [1, 9, 10, 99, 100, 12_345, 1 << 40, Int64.max] {
            #expect(RecordID.format(RecordID.message, key) == "m\(key)")
            #expect(RecordID.parse(RecordID.message, RecordID.format(RecordID.message, key)) == key)
        }
        #expect(RecordID.format(RecordID.conversation, 0) == "c0")
        #expect(RecordID.format(RecordID.conversation, -7) == "c-7")
        #expect(RecordID.format(RecordID.conversation, Int64.min) == "c-9223372036854775808")
    }
}
