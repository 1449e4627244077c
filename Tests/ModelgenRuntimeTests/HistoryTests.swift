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
}
