import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// History rows hold change sets as runs of consecutive keys (`ChangeSet.historyJSON()`, written by
/// hand for speed on large batches): every change set must read back as it was, whatever its keys and
/// names, a bulk insert must take a few bytes, and rows written by earlier versions (the change set's
/// `Codable` JSON) must still read.
@Suite struct HistoryEncodingTests {
    @Test func changeSetsReadBackAsTheyWere() throws {
        var changes = ChangeSet()
        changes.inserted = [ObjectID(entityName: "Book", key: 3), ObjectID(entityName: "Wéird \"name\"\\\n\t\u{1}", key: 1),
                            ObjectID(entityName: "Book", key: 4), ObjectID(entityName: "Book", key: 5), ObjectID(entityName: "Book", key: 5),
                            ObjectID(entityName: "Book", key: 2), ObjectID(entityName: "Loan", key: 6), ObjectID(entityName: "Book", key: .max),
                            ObjectID(entityName: "Book", key: .min), ObjectID(entityName: "Book", key: .min + 1), ObjectID(entityName: "Book", key: -1),
                            ObjectID(entityName: "Book", key: 0)]
        changes.deleted = (1...500).map { ObjectID(entityName: "Loan", key: Int64($0)) } + [ObjectID(entityName: "Loan", key: 502)]
        changes.updated = [ObjectID(entityName: "Member", key: 2): ["loans", "name"], ObjectID(entityName: "Member", key: 3): ["loans", "name"],
                           ObjectID(entityName: "Member", key: 4): ["name"], ObjectID(entityName: "Book", key: 9): [],
                           ObjectID(entityName: "Book", key: 10): [], ObjectID(entityName: "Bo", key: 11): ["x\"y"]]
        #expect(try ChangeSet(history: changes.historyJSON()) == changes)
        #expect(try ChangeSet(history: ChangeSet().historyJSON()) == ChangeSet())

        // Pseudo-random change sets: runs broken by gaps, repeats and other entities.
        var generator = SeededGenerator(seed: 7)
        func next(_ bound: UInt64) -> UInt64 { generator.next() % bound }
        for _ in 0..<50 {
            var random = ChangeSet()
            var key: Int64 = Int64(next(1_000)) - 500
            for _ in 0..<Int(next(300)) {
                key += next(4) == 0 ? Int64(next(7)) - 3 : 1
                random.inserted.append(ObjectID(entityName: next(5) == 0 ? "B" : "A", key: key))
            }
            for _ in 0..<Int(next(100)) {
                random.updated[ObjectID(entityName: next(2) == 0 ? "A" : "C", key: Int64(next(150)))] = next(3) == 0 ? ["p"] : ["p", "q"]
            }
            random.deleted = random.inserted.shuffled(using: &generator).prefix(Int(next(50))).map { $0 }
            #expect(try ChangeSet(history: random.historyJSON()) == random)
        }
    }

    @Test func aBulkInsertTakesOneRun() throws {
        var changes = ChangeSet()
        changes.inserted = (1...100_000).map { ObjectID(entityName: "Item", key: Int64($0)) }
        let json = changes.historyJSON()
        #expect(String(decoding: json, as: UTF8.self) == #"{"format":2,"deleted":[],"inserted":[["Item",1,100000]],"updated":[]}"#)
        #expect(try ChangeSet(history: json) == changes)
    }

    @Test func rowsOfEarlierVersionsStillRead() throws {
        var changes = ChangeSet()
        changes.inserted = [ObjectID(entityName: "Book", key: 1), ObjectID(entityName: "Book", key: 3)]
        changes.updated = [ObjectID(entityName: "Member", key: 2): ["loans"]]
        changes.deleted = [ObjectID(entityName: "Loan", key: 9)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        #expect(try ChangeSet(history: encoder.encode(changes)) == changes)   // what earlier versions wrote
        #expect(try ChangeSet(history: JSONEncoder().encode(changes)) == changes)
    }

    @Test func aRunOutOfRangeIsAnError() {
        for row in [#"{"format":2,"deleted":[],"inserted":[["A",1,0]],"updated":[]}"#,
                    #"{"format":2,"deleted":[["A",9223372036854775807,2]],"inserted":[],"updated":[]}"#,
                    #"{"format":2,"deleted":[],"inserted":[["A",1]],"updated":[]}"#] {
            #expect(throws: DecodingError.self) { try ChangeSet(history: Data(row.utf8)) }
        }
    }

    /// A store written before this format (the join-table fixture: one history row of the old JSON)
    /// reads its old row and the new rows of saves made since, in order.
    @Test func aStoreReadsItsOldAndNewHistoryRows() throws {
        let copy = scratchDirectory.appendingPathComponent("history-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: copy) }
        try FileManager.default.copyItem(at: JoinTableLayoutTests.fixture, to: copy)
        let store = try SQLiteStore(url: copy, model: JoinTableLayoutTests.model)
        let container = ManagedContainer(model: JoinTableLayoutTests.model, store: store)
        let context = container.newContext()
        let songs = (0..<3).map { index in
            let song = MixSong(context: context)
            song.title = "New \(index)"
            return song
        }
        try context.save()
        songs[1].title = "Renamed"
        try context.save()
        let history = try store.historyTransactions(after: 0)
        #expect(history.count == 3)
        #expect(history[0].changes.inserted.count == 16 && history[0].changes.inserted.first == ObjectID(entityName: "Song", key: 1))
        #expect(history[1].changes.inserted == songs.map(\.objectID))
        #expect(history[2].changes.updated == [songs[1].objectID: ["title"]])
    }
}

/// A one-statement batch delete's rows (`DeletedRows`): read as the change set they stand for, and
/// written as a history row (format 3) that reads back the same.
@Suite struct DeletedRowsTests {
    /// Loans (code 3) and late loans (4) in one table, each naming its book (column 2, its entity code
    /// in 3): a book (1) or a novel (2) that lost the loan; a note (5) of the same table names another
    /// note through `replies` (column 4 and 5).
    func rows(_ text: String) -> DeletedRows {
        DeletedRows(lost: [3: [(2, "loans")], 4: [(2, "loans")], 5: [(4, "replies")]],
                    names: [1: "Book", 2: "Novel", 3: "Loan", 4: "LateLoan", 5: "Wé\"ird/Note"], rowWidth: 6, rows: text)
    }

    @Test func theRowsReadAsTheirChangeSet() throws {
        let changes = try rows("9,3,11,2,,;5,3,10,1,,;2,4,,,,;7,3,10,1,,;20,5,,,21,5;21,5,,,22,5").changeSet()
        var expected = ChangeSet()
        expected.deleted = [ObjectID(entityName: "LateLoan", key: 2), ObjectID(entityName: "Loan", key: 5), ObjectID(entityName: "Loan", key: 7),
                            ObjectID(entityName: "Loan", key: 9), ObjectID(entityName: "Wé\"ird/Note", key: 20), ObjectID(entityName: "Wé\"ird/Note", key: 21)]
        // Note 21 lost a reply but is deleted too: only deleted.
        expected.updated = [ObjectID(entityName: "Book", key: 10): ["loans"], ObjectID(entityName: "Novel", key: 11): ["loans"],
                            ObjectID(entityName: "Wé\"ird/Note", key: 22): ["replies"]]
        #expect(changes == expected)
        #expect(try rows("").changeSet() == ChangeSet())
    }

    @Test func aHistoryRowOfTheRowsReadsBackTheSame() throws {
        for text in ["9,3,11,2,,;5,3,10,1,,;2,4,,,,", "20,5,,,21,5", ""] {
            let deleted = rows(text)
            let row = Data((deleted.historyPrefix + text + "\"}").utf8)
            #expect(row.starts(with: Data("{\"format\":3,".utf8)))
            #expect(try ChangeSet(history: row) == deleted.changeSet())
        }
    }

    @Test func aRowOfAnotherWidthOrAValueThatIsNoNumberIsAnError() {
        #expect(throws: DecodingError.self) { try rows("9,3,11,2").changeSet() }
        #expect(throws: DecodingError.self) { try rows("9,3,11,2,,,").changeSet() }
        #expect(throws: DecodingError.self) { try rows("9,3,11,2,,;;5,3,10,1,,").changeSet() }
        #expect(throws: DecodingError.self) { try rows("9,3,1x,2,,").changeSet() }
        #expect(throws: DecodingError.self) { try rows("9,3,-,2,,").changeSet() }
        #expect(throws: DecodingError.self) { try rows("99999999999999999999,3,11,2,,").changeSet() }
        #expect(throws: DecodingError.self) { try ChangeSet(history: Data((rows("").historyPrefix + "1,3,,,,,\"}").utf8)) }
    }
}
