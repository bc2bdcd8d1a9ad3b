import Foundation
import HeraldStorePostgres
import HeraldTestSupport
import Testing

/// `--store` given a PostgreSQL URL that cannot be used: the node refuses to start with one clear line and a
/// non-zero status, and a database of a newer schema is left exactly as it was.
@Suite("Multi-node: a --store URL that is wrong, unreachable or newer is refused at start", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct MultiNodeStoreURLTests {
    @Test("An unreachable server, a malformed URL, a missing database: exit status 1 and one line saying why")
    func unusableURL() throws {
        let cluster = try PostgresCluster.shared()
        for (url, reason) in [
            ("postgres://herald@127.0.0.1:1/x", "Connection refused"),
            ("postgres://herald@127.0.0.1:notaport/x", "invalid integer value"),
            (cluster.url(database: "no_such_database"), "does not exist"),
        ] {
            let (status, output) = try EngineCLITests.run(["serve", "--port", "0", "--store", url])
            #expect(status == 1, "\(url)")
            let lines = output.split(whereSeparator: \.isNewline)
            #expect(lines.count == 1, "one line: \(output)")
            #expect(output.contains(reason) && output.contains("PostgreSQL"), "\(output)")
        }
    }

    @Test("A database whose schema is newer than this build is refused, and not altered")
    func newerSchema() throws {
        let url = try PostgresCluster.newDatabase()
        try PostgresStore(url: url).close()
        _ = try PostgresCluster.run("UPDATE herald_schema SET version = 99", database: url)
        let tables = try PostgresCluster.run("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: url)
        let (status, output) = try EngineCLITests.run(["serve", "--port", "0", "--store", url])
        #expect(status == 1)
        #expect(output.contains("schema version 99 is newer than this build"), "\(output)")
        #expect(try PostgresCluster.run("SELECT version FROM herald_schema", database: url) == [["99"]])
        #expect(try PostgresCluster.run("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'", database: url) == tables)
    }
}
