import Foundation
import Testing
@testable import ModelgenRuntime

/// The history rows' JSON is written by hand (`ChangeSet.historyJSON()`, for speed on large batches):
/// it must read back with `JSONDecoder` as the change set it was, whatever the names hold, and match
/// what `JSONEncoder` wrote before (rows written by earlier versions read the same way).
@Suite struct HistoryEncodingTests {
    @Test func handWrittenJSONDecodesToTheSameChangeSet() throws {
        var changes = ChangeSet()
        changes.inserted = [ObjectID(entityName: "Book", key: 3), ObjectID(entityName: "Wéird \"name\"\\\n\t\u{1}", key: 1)]
        changes.deleted = (1...500).map { ObjectID(entityName: "Loan", key: Int64($0)) }
        changes.updated = [ObjectID(entityName: "Member", key: 2): ["loans", "name"], ObjectID(entityName: "Book", key: 9): []]
        let decoded = try JSONDecoder().decode(ChangeSet.self, from: changes.historyJSON())
        #expect(decoded == changes)
        // Byte for byte what the encoder writes for a change set of one updated record.
        var single = ChangeSet()
        single.inserted = [ObjectID(entityName: "Book", key: 1), ObjectID(entityName: "Book", key: 0), ObjectID(entityName: "Book", key: -7),
                           ObjectID(entityName: "Book", key: .max), ObjectID(entityName: "Book", key: .min + 1), ObjectID(entityName: "Loan", key: 120)]
        single.updated = [ObjectID(entityName: "Member", key: 2): ["loans"]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(String(decoding: single.historyJSON(), as: UTF8.self) == String(decoding: try encoder.encode(single), as: UTF8.self))
    }
}
