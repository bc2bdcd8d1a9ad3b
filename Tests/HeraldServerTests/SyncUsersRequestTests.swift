import Foundation
import HeraldProtocol
@testable import HeraldSync
import HeraldStore
import Testing

/// The `users` request on /sync: who a user can start a conversation with, paged and filtered (PROTOCOL.md).
@Suite("SyncCore: the users request")
struct SyncUsersRequestTests {
    @Test("users answers every other user, by id, with names, in its own field")
    func listsEveryoneElse() throws {
        let f = try SyncCoreFixture()
        f.online(1, "bob")
        let response = f.request(1, #"{"type":"users"}"#)
        #expect(response.ok)
        #expect(response.users == [ParticipantInfo(id: "alice", name: "Alice"), ParticipantInfo(id: "carol", name: "Carol"), ParticipantInfo(id: "dave", name: "Dave")])
        #expect(response.hasMore == false)
        #expect(response.participants == nil, "users has its own field; participants stays the members answer")
    }

    @Test("Pages follow cursor = the last id until hasMore is false; the default page is 50")
    func pagesWithCursor() throws {
        let many = SyncCoreFixture.cast + (0..<60).map { (String(format: "u%02d", $0), "User \($0)") }
        let f = try SyncCoreFixture(users: many)
        f.online(1, "alice")
        let first = f.request(1, #"{"type":"users"}"#)
        #expect(first.users?.count == 50)
        #expect(first.hasMore == true)
        var everyone: [String] = []
        var cursor: String?
        var pages = 0
        repeat {
            let cursorField = cursor.map { #","cursor":"\#($0)""# } ?? ""
            let page = f.request(1, #"{"type":"users","limit":7\#(cursorField)}"#)
            let ids = try #require(page.users).map(\.id)
            everyone += ids
            cursor = page.hasMore == true ? ids.last : nil
            pages += 1
        } while cursor != nil && pages < 100
        let expected = many.map(\.0).filter { $0 != "alice" }.sorted()
        #expect(everyone == expected)
        #expect(pages == (expected.count + 6) / 7)
    }

    @Test("text filters by a prefix of the id or the name, ignoring ASCII case")
    func prefixFilter() throws {
        let f = try SyncCoreFixture(users: SyncCoreFixture.cast + [("zed", "Carlos")])
        f.online(1, "alice")
        #expect(f.request(1, #"{"type":"users","text":"CAR"}"#).users?.map(\.id) == ["carol", "zed"])
        #expect(f.request(1, #"{"type":"users","text":"al"}"#).users == [], "never the caller")
        #expect(f.request(1, #"{"type":"users","text":""}"#).users?.count == 4, "empty text is no filter")
    }

    @Test("Bad paging values are bad_request with a message naming the field and its range; the connection stays usable")
    func badValues() throws {
        let f = try SyncCoreFixture()
        f.online(1, "alice")
        for limit in ["0", "201", "-1"] {
            let response = f.request(1, #"{"type":"users","limit":\#(limit)}"#)
            #expect(response.error?.code == .badRequest, "limit \(limit)")
            #expect(response.error?.message == "field 'limit' must be 1...200 (default 50)", "limit \(limit)")
        }
        #expect(f.request(1, #"{"type":"users","limit":"ten"}"#).error?.code == .badRequest)
        let badCursor = f.request(1, #"{"type":"users","cursor":"a b"}"#)
        #expect(badCursor.error?.code == .badRequest)
        #expect(badCursor.error?.message.contains("cursor") == true)
        let long = String(repeating: "x", count: ProtocolLimits.default.maxIdBytes + 1)
        #expect(f.request(1, #"{"type":"users","text":"\#(long)"}"#).error?.code == .tooLarge)
        #expect(f.request(1, #"{"type":"users","limit":200}"#).ok)
    }
}
