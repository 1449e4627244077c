import CSQLite
import Foundation
import Testing
@testable import ModelgenRuntime

/// Batch loads bind their keys to `IN (…)` lists of up to 16,384 keys a statement, in widths that are
/// powers of two (a shorter list repeats its last key): every key's rows come back once, in as few
/// statements as the limit allows.
@Suite struct SQLiteKeyListTests {
    @Test(arguments: [1, 63, 64, 65, 1_000, 16_384, 16_385, 40_000])
    func everyKeyIsReadOnceInFewStatements(_ count: Int) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("keylists-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let counter = StatementCounter()
        var configuration = SQLiteConfiguration()
        configuration.statementCounter = counter
        let connection = try SQLiteConnection(path: url.path, create: true, configuration: configuration)
        try connection.execute("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)")
        try connection.execute("BEGIN")
        let insert = try connection.statement("INSERT INTO t (k, v) VALUES (?, ?)")
        for k in 0..<50_000 {
            insert.bind([.integer(Int64(k)), .text("v\(k)")])
            _ = try insert.step()
            insert.reset()
        }
        try connection.execute("COMMIT")
        // Every other key, some past the table's end (no rows), in a shuffled order.
        var keys = (0..<count).map { Int64($0 * 2) }
        var generator = SeededGenerator(seed: UInt64(count))
        keys.shuffle(using: &generator)
        let before = counter.count
        var seen: [Int64] = []
        try SQLiteStore.forEachRow(ofKeyLists: keys, connection, sql: { "SELECT k, v FROM t WHERE k IN (\($0))" }) { select in
            #expect(select.text(1) == "v\(select.int64(0))")
            seen.append(select.int64(0))
        }
        #expect(seen.sorted() == keys.filter { $0 < 50_000 }.sorted())
        #expect(counter.count - before == (count + 16_383) / 16_384)
    }
}
