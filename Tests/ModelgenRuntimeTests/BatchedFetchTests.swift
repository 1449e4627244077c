import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// A small entity for batch tests, counting its life-cycle calls.
final class Note: ManagedObject {
    @Managed(slot: 0) var index: Int64
    @Managed(slot: 1) var text: String
    nonisolated(unsafe) static var fetches = 0
    nonisolated(unsafe) static var faults = 0
    override func awakeFromFetch() { super.awakeFromFetch(); Note.fetches += 1 }
    override func didTurnIntoFault() { super.didTurnIntoFault(); Note.faults += 1 }
}

/// A store that counts how the context reads rows, over a real store.
final class CountingStore: QueryingStore, @unchecked Sendable {
    let base: any QueryingStore
    var rowCalls = 0, batchCalls = 0, idQueries = 0, rowQueries = 0
    init(_ base: any QueryingStore) { self.base = base }
    var model: ManagedObjectModel { base.model }
    func recordIDs(of entityNames: [String]) throws -> [ObjectID] { try base.recordIDs(of: entityNames) }
    func row(for id: ObjectID) throws -> StoreRow? { rowCalls += 1; return try base.row(for: id) }
    func commit(_ changes: StoreChanges) throws -> StoreCommitResult { try base.commit(changes) }
    func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool { rowQueries += 1; return try base.fetch(query, each: body) }
    func count(_ query: StoreQuery) throws -> Int? { try base.count(query) }
    func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] { try base.toManyIDs(of: id, relationship: slot) }
    func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? { idQueries += 1; return try base.fetchIDs(query) }
    func rows(for ids: [ObjectID]) throws -> [StoreRow] { batchCalls += 1; return try base.rows(for: ids) }
    func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        try base.aggregate(query, groupBy: groupBy, columns: columns)
    }
    func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? { try base.deleteMatching(query, author: author) }
    func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? {
        try base.updateMatching(query, set: values, author: author)
    }
    func queryPlan(_ query: StoreQuery) throws -> QueryPlan { try base.queryPlan(query) }
}

// Serialized: the tests read Note's shared counters.
@Suite(.serialized) struct BatchedFetchTests {
    static let model = try! ManagedObjectModel(name: "Notes", entities: [
        EntityDescription("Note", class: Note.self, attributes: [
            AttributeDescription("index", .int64, defaultValue: .int(0)),
            AttributeDescription("text", .string),
        ]),
    ])

    /// A SQLite store with `count` notes (index 0..<count), behind a counting wrapper.
    func store(_ count: Int) throws -> (ManagedContainer, CountingStore) {
        let sqlite = try SQLiteStore(url: try temporaryDirectory().appendingPathComponent("notes.sqlite"), model: Self.model)
        let counting = CountingStore(sqlite)
        let container = ManagedContainer(model: Self.model, store: counting)
        let context = container.newContext()
        for i in 0..<count {
            let note = Note(context: context)
            note.index = Int64(i)
            note.text = "note \(i)"
        }
        try context.save()
        return (container, counting)
    }

    func byIndex() -> FetchRequest<Note> {
        FetchRequest<Note>(entityName: "Note", sortDescriptors: [SortDescriptor("index")])
    }

    @Test func aBatchedCollectionHoldsOneBatchOfObjectsAtATime() throws {
        let (container, counting) = try store(2_500)
        let context = container.newContext()
        Note.fetches = 0; Note.faults = 0
        var request = byIndex()
        request.predicate = try FetchPredicate("index >= 100")
        let results = try context.fetch(request, batchSize: 1_000)
        #expect(results.count == 2_400)
        #expect(counting.idQueries == 1 && counting.rowQueries == 0 && context.registeredObjects.isEmpty)
        var seen: [Int64] = []
        var mostRegistered = 0
        for note in results {
            seen.append(note.index)
            #expect(note.text == "note \(note.index)")
            mostRegistered = max(mostRegistered, context.registeredObjects.count)
        }
        #expect(seen == Array(100..<2_500))
        #expect(mostRegistered == 1_000)                       // never more than one batch
        #expect(counting.batchCalls == 3)   // one query per batch
        #expect(counting.rowCalls == 0)
        #expect(Note.fetches == 2_400)                          // awakeFromFetch as each loads
        #expect(Note.faults == 2_000)                           // the first two batches were let go
        #expect(results.last?.index == 2_499)
    }

    @Test func keptAndChangedObjectsStayRegisteredAndSave() throws {
        let (container, _) = try store(300)
        let context = container.newContext()
        let results = try context.fetch(byIndex(), batchSize: 100)
        let kept = results[5]
        let changed = results[10]
        changed.text = "changed"
        for note in results { _ = note.index }
        #expect(context.object(with: kept.objectID) === kept)          // still the one object for its row
        #expect(context.object(with: changed.objectID) === changed && changed.isUpdated)
        #expect(context.registeredObjects.count == 102)               // the last batch, kept and changed
        try context.save()
        let check = container.newContext()
        #expect(try check.fetch(byIndex())[10].text == "changed")
    }

    @Test func pendingChangesAreReflectedAndTheInMemoryStoreWorksToo() throws {
        for container in [try store(50).0, try {
            let container = try ManagedContainer(model: Self.model, store: .inMemory)
            let context = container.newContext()
            for i in 0..<50 { let n = Note(context: context); n.index = Int64(i); n.text = "note \(i)" }
            try context.save()
            return container
        }()] {
            let context = container.newContext()
            let extra = Note(context: context)
            extra.index = 25
            extra.text = "unsaved"
            let doomed = try context.fetch(byIndex())[3]
            context.delete(doomed)
            let results = try context.fetch(byIndex(), batchSize: 7)
            #expect(results.count == 50)
            #expect(results.map(\.text).contains("unsaved") && !results.map(\.index).contains(3))
            #expect(Array(results.map(\.index)) == Array(results.map(\.index)).sorted())
        }
    }

    @Test func fetchWithABatchSizeReturnsFaultsThatLoadABatchAtATime() throws {
        let (container, counting) = try store(250)
        let context = container.newContext()
        var request = byIndex()
        request.fetchBatchSize = 100
        let notes = try context.fetch(request)
        #expect(notes.count == 250 && notes.allSatisfy(\.isFault))
        #expect(counting.idQueries == 1 && counting.rowQueries == 0)
        #expect(notes[150].text == "note 150")
        #expect(counting.batchCalls == 1 && notes[100].isFault)      // its batch's rows are read; objects load when used
        #expect(notes[199].index == 199 && counting.batchCalls == 1)   // same batch: no query
        #expect(notes[0].index == 0 && counting.batchCalls == 2)
        #expect(notes.map(\.index) == (0..<250).map(Int64.init))
        #expect(counting.batchCalls == 3 && counting.rowCalls == 0)
        #expect(try context.fetchIDs(byIndex()) == notes.map(\.objectID))
    }
}
