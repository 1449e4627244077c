import CSQLite
import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// Batch loads bind their keys to `IN (…)` lists of up to 16,384 keys a statement, in widths that are
/// powers of two (a shorter list repeats its last key), or read the range dense keys span, skipping
/// the rows of other keys: every key's rows come back once, in as few statements as the limit allows.
@Suite struct SQLiteKeyListTests {
    @Test(arguments: [1, 63, 64, 65, 1_000, 16_384, 16_385, 40_000], [2, 3])
    func everyKeyIsReadOnceInFewStatements(_ count: Int, every step: Int) throws {
        let url = scratchDirectory.appendingPathComponent("keylists-\(UUID().uuidString).sqlite")
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
        // Every other key (dense: more than half the range they span) or every third, some past the
        // table's end (no rows), in a shuffled order.
        var keys = (0..<count).map { Int64($0 * step) }
        var generator = SeededGenerator(seed: UInt64(count))
        keys.shuffle(using: &generator)
        let before = counter.count
        var seen: [Int64] = []
        try SQLiteStore.forEachRow(ofKeyLists: keys, connection, sql: { "SELECT k, v FROM t WHERE k \($0)" }) { select in
            #expect(select.text(1) == "v\(select.int64(0))")
            seen.append(select.int64(0))
        }
        #expect(seen.sorted() == keys.filter { $0 < 50_000 }.sorted())
        // Dense keys from 64 on: one range statement (the rows of the keys between them skipped).
        let dense = step == 2 && count >= SQLiteStore.denseKeyMinimum
        #expect(counter.count - before == (dense ? 1 : (count + 16_383) / 16_384))
    }

    /// A connection keeps one prepared statement per text and list width: another statement of the same
    /// width is another statement (the text is part of the key), and a repeat reuses its own.
    @Test func statementsOfOneWidthKeepTheirOwnText() throws {
        let url = scratchDirectory.appendingPathComponent("keylists-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let connection = try SQLiteConnection(path: url.path, create: true, configuration: SQLiteConfiguration())
        try connection.execute("CREATE TABLE a (k INTEGER PRIMARY KEY, v TEXT); CREATE TABLE b (k INTEGER PRIMARY KEY, v TEXT)")
        try connection.execute("INSERT INTO a VALUES (1, 'a1'), (2, 'a2'); INSERT INTO b VALUES (1, 'b1'), (2, 'b2')")
        func values(_ table: String, _ keys: [Int64]) throws -> [String] {
            var values: [String] = []
            try SQLiteStore.forEachRow(ofKeyLists: keys, connection, sql: { "SELECT k, v FROM \(table) WHERE k \($0) ORDER BY k" }) { values.append($0.text(1)) }
            return values
        }
        let first = try connection.statement(shape: "SELECT k, v FROM a WHERE k  ORDER BY k", keyListWidth: 64) { "SELECT k, v FROM a WHERE k IN (\($0)) ORDER BY k" }
        #expect(try values("a", [1, 2]) == ["a1", "a2"])
        #expect(try values("b", [2, 1]) == ["b1", "b2"])
        #expect(try values("a", [2]) == ["a2"])
        let again = try connection.statement(shape: "SELECT k, v FROM a WHERE k  ORDER BY k", keyListWidth: 64) { _ in
            Issue.record("a cached statement was prepared again")
            return ""
        }
        #expect(first === again)
    }
}
