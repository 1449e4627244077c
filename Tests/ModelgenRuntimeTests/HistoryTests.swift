import Foundation
import TestScratch
import Observation
import Synchronization
import Testing
@testable import ModelgenRuntime

// The model of `modelgen-store-stress` (the other process): its entities and layout, our classes.
final class StressBatch: ManagedObject {}
final class StressItem: ManagedObject {}
final class StressCounter: ManagedObject {}

/// The model of `modelgen-store-stress` (Sources/modelgen-store-stress/main.swift), the same entities.
let stressModel = try! ManagedObjectModel(name: "Stress", entities: [
    EntityDescription("Batch", class: StressBatch.self, attributes: [AttributeDescription("number", .int64)],
                      relationships: [RelationshipDescription("items", destination: "Item", inverse: "batch", toMany: true, deleteRule: .cascade)]),
    EntityDescription("Item", class: StressItem.self, attributes: [AttributeDescription("index", .int64), AttributeDescription("payload", .string),
                                                                 AttributeDescription("note", .string, optional: true)],
                      relationships: [RelationshipDescription("batch", destination: "Batch", inverse: "items")]),
    EntityDescription("Counter", class: StressCounter.self, attributes: [AttributeDescription("value", .int64)]),
])

/// Counts observation callbacks.
final class Hits: Sendable {
    private let count = Atomic<Int>(0)
    func hit() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// Persistent history in the SQLite store, and another OS process's saves reaching this one.
@Suite(.serialized) struct HistoryTests {
    @MainActor @Test func anotherProcessesSavesReachTheMainContextAndItsObservers() async throws {
        let path = try temporaryDirectory().appendingPathComponent("history.sqlite").path
        // The other process runs off the main actor (waiting for it must not hold up main-actor work).
        _ = try await Task.detached { try runStress(["increment", path, "1"]) }.value   // it makes the store
        let container = try ManagedContainer(model: stressModel, store: .sqlite(URL(fileURLWithPath: path)))
        let main = container.mainContext                                   // starts watching the file
        let counter = try #require(try main.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first)
        func value() -> Int64 { (try? counter.value(forKey: "value") as? Int64) ?? -1 }
        #expect(value() == 1)
        let hits = Hits()
        withObservationTracking { _ = value() } onChange: { hits.hit() }
        var changes = container.changes.makeAsyncIterator()

        _ = try await Task.detached { try runStress(["increment", path, "3"]) }.value   // three saves there
        for _ in 0..<3 {
            let change = try #require(await changes.next())
            #expect(change.updated[counter.objectID] == ["value"] && change.inserted.isEmpty)
        }
        var merged = false
        for _ in 0..<2_000 where !merged {   // at most ten seconds
            merged = value() == 4
            if !merged { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(merged && hits.value == 1)

        // The history: every save of both processes, oldest first; ours carry our author.
        try counter.setValue(Int64(10), forKey: "value")
        try main.save()
        let history = try container.history()
        #expect(history.count == 5)
        #expect(history.last?.author == container.historyAuthor && history.dropLast().allSatisfy { $0.author != container.historyAuthor })
        #expect(history.map(\.token) == history.map(\.token).sorted())
        #expect(try container.history(after: history[2].token).map(\.token) == history.suffix(2).map(\.token))
        try container.pruneHistory(through: history[2].token)
        #expect(try container.history().count == 2)
    }

    /// A context smuggled out of its isolation stops the program in debug builds, naming the fix
    /// (in a child process: Swift Testing's exit tests reap every child, which breaks other tests' processes).
    @Test func theMainContextUsedOffTheMainActorStops() throws {
        let path = try temporaryDirectory().appendingPathComponent("misuse.sqlite").path
        let process = Process()
        process.executableURL = stressBinary()
        process.arguments = ["misuse", path]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, new in new }
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && !output.contains("not stopped"))
        #expect(message.contains("the main context was used off the main actor"))
    }

    @Test func aFailedSaveWritesNoHistory() throws {
        let path = try temporaryDirectory().appendingPathComponent("failed.sqlite").path
        let container = try ManagedContainer(model: stressModel, store: .sqlite(URL(fileURLWithPath: path)))
        let context = container.newContext()
        let counter = try context.insertObject(entityName: "Counter")
        try counter.setValue(Int64(1), forKey: "value")
        try context.save()
        let other = container.newContext()
        let stale = try other.existingObject(with: counter.objectID)
        try counter.setValue(Int64(2), forKey: "value")
        try context.save()
        try stale.setValue(Int64(3), forKey: "value")
        #expect(throws: MergeConflictError.self) { try other.save() }   // conflict: nothing written
        #expect(try container.history().count == 2)
        #expect(try container.history().last?.changes.updated[counter.objectID] == ["value"])
    }

    // MARK: A watcher whose store is unreachable for a while

    /// A watcher started while its store cannot be reached (the call's own reads fail) starts at its
    /// first look that can read the history, and hears the saves after it.
    @Test func aWatcherStartedWhileTheStoreIsUnreachableHearsTheSavesAfterwards() async throws {
        let (writer, store, watcher) = try watchedFile("unreachable")
        var changes = watcher.changes.makeAsyncIterator()
        store.unreachable.store(true, ordering: .relaxed)
        watcher.watchOtherProcesses(every: .milliseconds(10))
        #expect(try await waitUntil { store.failedReads.load(ordering: .relaxed) >= 3 })   // several looks failed
        store.unreachable.store(false, ordering: .relaxed)
        #expect(try await waitUntil { store.tokenReads.load(ordering: .relaxed) >= 1 })    // a look started watching

        let counter = try insertCounter(in: writer, value: 7)
        let change = try #require(await next(of: &changes))
        #expect(change.inserted.contains(counter))
    }

    /// A look whose history read fails is made again at the next interval: the save it was for is
    /// heard without waiting for another save to move the store's counter.
    @Test func aFailedLookIsMadeAgainWithoutAnotherSave() async throws {
        let (writer, store, watcher) = try watchedFile("failed-look")
        var changes = watcher.changes.makeAsyncIterator()
        watcher.watchOtherProcesses(every: .milliseconds(10))
        let first = try insertCounter(in: writer, value: 1)
        #expect(try #require(await next(of: &changes)).inserted.contains(first))

        store.historyFails.store(true, ordering: .relaxed)
        let failedBefore = store.failedReads.load(ordering: .relaxed)
        let second = try insertCounter(in: writer, value: 2)
        #expect(try await waitUntil { store.failedReads.load(ordering: .relaxed) >= failedBefore + 2 })   // its looks failed
        store.historyFails.store(false, ordering: .relaxed)
        let change = try #require(await next(of: &changes))
        #expect(change.inserted.contains(second))
    }

    /// A new SQLite file with two containers on it: one that saves, and one whose history reads fail
    /// when its store is told to.
    private func watchedFile(_ name: String) throws -> (writer: ManagedContainer, store: UnreachableHistoryStore, watcher: ManagedContainer) {
        let url = try temporaryDirectory().appendingPathComponent(name + ".sqlite")
        let writer = try ManagedContainer(model: stressModel, store: .sqlite(url))
        let store = UnreachableHistoryStore(try SQLiteStore(url: url, model: stressModel))
        return (writer, store, ManagedContainer(model: stressModel, store: store))
    }

    /// A counter saved by `container` in a context of its own; its ID.
    private func insertCounter(in container: ManagedContainer, value: Int64) throws -> ObjectID {
        let context = container.newContext()
        let counter = try context.insertObject(entityName: "Counter")
        try counter.setValue(value, forKey: "value")
        try context.save()
        return counter.objectID
    }

    /// The next change set of `changes`, or nil when none comes within ten seconds.
    private func next(of changes: inout AsyncStream<ChangeSet>.Iterator) async -> ChangeSet? {
        let deadline = ContinuousClock.now + .seconds(10)
        let box = IteratorBox(changes)
        defer { changes = box.iterator }
        return await withTaskGroup(of: ChangeSet?.self) { group in
            group.addTask { await box.next() }
            group.addTask { try? await Task.sleep(until: deadline); return nil }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Whether `condition` came true within ten seconds (polled).
    private func waitUntil(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<2_000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}

/// An async iterator shared with a child task (`next(of:)`'s race against a deadline).
private final class IteratorBox: @unchecked Sendable {
    // @unchecked: `iterator` is used by one task at a time (the racing child, then the owner after it).
    var iterator: AsyncStream<ChangeSet>.Iterator
    init(_ iterator: AsyncStream<ChangeSet>.Iterator) { self.iterator = iterator }
    func next() async -> ChangeSet? { await iterator.next() }
}

/// A SQLite store whose history reads (the watcher's counter, newest token and history) fail while
/// asked to, as a store whose server cannot be reached does; everything else goes to the store.
private final class UnreachableHistoryStore: PersistentStore {
    struct Unreachable: Error {}
    let base: SQLiteStore
    /// Every history read fails (the counter, the newest token, the history).
    let unreachable = Atomic<Bool>(false)
    /// Only reads of the history fail.
    let historyFails = Atomic<Bool>(false)
    let failedReads = Atomic<Int>(0)
    let tokenReads = Atomic<Int>(0)
    init(_ base: SQLiteStore) { self.base = base }

    private func check(history: Bool = false) throws {
        if unreachable.load(ordering: .relaxed) || (history && historyFails.load(ordering: .relaxed)) {
            failedReads.add(1, ordering: .relaxed)
            throw Unreachable()
        }
    }

    var model: ManagedObjectModel { base.model }
    func recordIDs(of entityNames: [String]) throws -> [ObjectID] { try base.recordIDs(of: entityNames) }
    func row(for id: ObjectID) throws -> StoreRow? { try base.row(for: id) }
    func commit(_ changes: StoreChanges) throws -> StoreCommitResult { try base.commit(changes) }
    func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] { try base.toManyIDs(of: id, relationship: slot) }
    func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] { try base.toManyIDs(of: ids, relationship: slot) }
    func rows(for ids: [ObjectID]) throws -> [StoreRow] { try base.rows(for: ids) }
    func historyTransactions(after token: Int64) throws -> [HistoryTransaction] {
        try check(history: true)
        return try base.historyTransactions(after: token)
    }
    func latestHistoryToken() throws -> Int64 {
        try check()
        defer { tokenReads.add(1, ordering: .relaxed) }
        return try base.latestHistoryToken()
    }
    func pruneHistory(through token: Int64) throws { try base.pruneHistory(through: token) }
    func externalChangeCounter() throws -> Int64? {
        try check()
        return try base.externalChangeCounter()
    }
    func externalChangeSignals() -> AsyncStream<Void>? { base.externalChangeSignals() }
}
