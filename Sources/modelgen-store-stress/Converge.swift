// `modelgen-store-stress converge PATH`: the concurrency stress of the SQLite store. Four
// importer actors (`ModelActor`s) and a second OS process save batches of items into one file while
// each also edits one of its earlier items and adds 1 to a shared counter (retrying when its save
// loses a race). The main context watches the items through live results. At the end it checks that
// every acknowledged save is in the store, the counter counts every batch, the live results equal a
// fresh fetch and the observer saw every item, and the importers' contexts (which merge every change
// set) agree with the store. Prints a summary and exits 0, or names the failure and exits 1.
// `make tsan` runs it built with ThreadSanitizer.
import Foundation
import ModelgenRuntime

/// Items per saved batch, batches per writer, writers in this process.
let convergeItemsPerBatch = 5
let convergeBatches = 50
let convergeImporters = 4
/// Batch numbers of the second process start here (those of importer `n` at `n * 1_000`).
let childBatchBase: Int64 = 90_000

/// A save that inserts a batch, edits the previous batch's first item and counts the batch.
func insertBatch(_ context: ManagedObjectContext, number: Int64) throws {
    let batch = try context.insertObject(entityName: "Batch")
    try batch.setValue(number, forKey: "number")
    for index in 0..<convergeItemsPerBatch {
        let item = try context.insertObject(entityName: "Item")
        try item.setValue(number * 100 + Int64(index), forKey: "index")
        try item.setValue("new", forKey: "payload")
        try item.setValue(batch, forKey: "batch")
    }
    let previous = try FetchRequest<ManagedObject>(entityName: "Item", predicate: "index == $INDEX", variables: ["INDEX": (number - 1) * 100])
    if let item = try context.fetch(previous).first { try item.setValue("edited by \(number)", forKey: "payload") }
}

/// Adds 1 to the counter; on a conflict (another writer counted first) reloads it and tries again.
func saveCounting(_ context: ManagedObjectContext) throws -> Int {
    var conflicts = 0
    while true {
        let counter = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))[0]
        try counter.setValue((try counter.value(forKey: "value") as! Int64) + 1, forKey: "value")
        do {
            try context.save()
            return conflicts
        } catch is MergeConflictError {
            conflicts += 1
            context.refresh(counter, mergeChanges: false)
        }
    }
}

/// One importer: a long-lived actor owning a context, which merges every change set of the container
/// (`mergeChangesAutomatically()`).
actor Importer: ModelActor {
    let modelContext: ManagedObjectContext
    let number: Int64

    init(container: ManagedContainer, number: Int64) {
        modelContext = container.newContext(observation: .unobserved)
        self.number = number
    }

    /// Saves the batches; returns the acknowledged batch numbers and the conflicts retried.
    func run() throws -> (acknowledged: [Int64], conflicts: Int) {
        var acknowledged: [Int64] = [], conflicts = 0
        for batch in 1...convergeBatches {
            let number = self.number * 1_000 + Int64(batch)
            try insertBatch(modelContext, number: number)
            conflicts += try saveCounting(modelContext)
            acknowledged.append(number)
        }
        return (acknowledged, conflicts)
    }

    /// The counter as this context holds it (merged, never refetched), and its items' payloads by index.
    func state() throws -> (counter: Int64, payloads: [Int64: String]) {
        let counter = try modelContext.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))[0]
        var payloads: [Int64: String] = [:]
        for item in try modelContext.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
            payloads[try item.value(forKey: "index") as! Int64] = try item.value(forKey: "payload") as? String
        }
        return (try counter.value(forKey: "value") as! Int64, payloads)
    }
}

/// The second process: `writer PATH`: the same batches from another process, each printed once saved.
func runChildWriter(_ container: ManagedContainer) throws {
    let context = container.newContext(observation: .unobserved)
    for batch in 1...convergeBatches {
        let number = childBatchBase + Int64(batch)
        try insertBatch(context, number: number)
        _ = try saveCounting(context)
        FileHandle.standardOutput.write(Data("saved \(number)\n".utf8))
    }
}

/// Collects what the main context's observer saw.
@MainActor final class ObserverLog {
    var seenIDs: Set<ObjectID> = []
    var snapshots = 0
}

@MainActor func runConverge(_ container: ManagedContainer, path: String) async throws -> Bool {
    var failures: [String] = []
    let main = container.mainContext
    let counter = try main.insertObject(entityName: "Counter")
    try counter.setValue(Int64(0), forKey: "value")
    try main.save()
    let results = try LiveResults(FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [SortDescriptor("index")]), in: main)
    let log = ObserverLog()
    let snapshots = results.snapshots
    let observer = Task { @MainActor in
        for await snapshot in snapshots {
            log.seenIDs.formUnion(snapshot.ids)
            log.snapshots += 1
        }
    }

    // The second process.
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["writer", path]
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    let childOutput = Task.detached { () -> String in
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return String(decoding: data, as: UTF8.self) + (child.terminationStatus == 0 ? "" : "exit \(child.terminationStatus)\n")
    }

    // The importers, each merging every change set while it saves.
    let importers = (1...convergeImporters).map { Importer(container: container, number: Int64($0)) }
    var mergeTasks: [Task<Void, Never>] = []
    for importer in importers { mergeTasks.append(await importer.mergeChangesAutomatically()) }
    var acknowledged: Set<Int64> = [], conflicts = 0
    try await withThrowingTaskGroup(of: (acknowledged: [Int64], conflicts: Int).self) { group in
        for importer in importers { group.addTask { try await importer.run() } }
        for try await result in group {
            acknowledged.formUnion(result.acknowledged)
            conflicts += result.conflicts
        }
    }
    let childLines = await childOutput.value.split(separator: "\n")
    if childLines.contains(where: { $0.hasPrefix("exit") }) { failures.append("the second process failed: \(childLines.last ?? "")") }
    acknowledged.formUnion(childLines.compactMap { $0.hasPrefix("saved ") ? Int64($0.dropFirst(6)) : nil })
    let expectedBatches = convergeBatches * (convergeImporters + 1)
    if acknowledged.count != expectedBatches { failures.append("\(acknowledged.count) acknowledged saves, expected \(expectedBatches)") }

    // Convergence: the main context (merging this process's saves at once and the other's within the
    // watcher's 50 ms) and every importer reach the final counter; bounded by 30 seconds.
    let expectedItems = expectedBatches * convergeItemsPerBatch
    let deadline = ContinuousClock.now + .seconds(30)
    func mainCounter() -> Int64 { (try? counter.value(forKey: "value") as? Int64) ?? -1 }
    while (results.objects.count != expectedItems || mainCounter() != Int64(expectedBatches) || log.seenIDs.count < expectedItems)
            && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(20))
    }
    var importerStates: [(counter: Int64, payloads: [Int64: String])] = []
    for importer in importers {
        var state = try await importer.state()
        while state.counter != Int64(expectedBatches) && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            state = try await importer.state()
        }
        importerStates.append(state)
    }

    // Nothing acknowledged lost: the store (a fresh context) has every batch, every item, the count.
    let fresh = container.newContext(observation: .unobserved)
    let freshItems = try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Item", sortDescriptors: [SortDescriptor("index")]))
    let freshBatches = Set(try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Batch")).map { try $0.value(forKey: "number") as! Int64 })
    let freshCounter = try fresh.fetch(FetchRequest<ManagedObject>(entityName: "Counter"))[0].value(forKey: "value") as! Int64
    if !acknowledged.isSubset(of: freshBatches) { failures.append("acknowledged batches missing from the store: \(acknowledged.subtracting(freshBatches).sorted())") }
    if freshItems.count != expectedItems { failures.append("\(freshItems.count) items in the store, expected \(expectedItems)") }
    if freshCounter != Int64(expectedBatches) { failures.append("counter \(freshCounter), expected \(expectedBatches) (a lost update)") }
    var freshPayloads: [Int64: String] = [:]
    for item in freshItems { freshPayloads[try item.value(forKey: "index") as! Int64] = try item.value(forKey: "payload") as? String }
    let edited = freshPayloads.values.filter { $0.hasPrefix("edited") }.count
    if edited != expectedBatches - (convergeImporters + 1) { failures.append("\(edited) edited items, expected \(expectedBatches - convergeImporters - 1)") }

    // Live results equal a fresh fetch (same records, same order, same values); the observer saw every item.
    let liveIndexes = try results.objects.map { try $0.value(forKey: "index") as! Int64 }
    if liveIndexes != freshItems.map({ try! $0.value(forKey: "index") as! Int64 }) { failures.append("live results (\(liveIndexes.count)) differ from a fresh fetch (\(freshItems.count))") }
    for object in results.objects where try object.value(forKey: "payload") as? String != freshPayloads[try object.value(forKey: "index") as! Int64] {
        failures.append("the main context holds a stale payload for item \(try object.value(forKey: "index") as! Int64)")
        break
    }
    if mainCounter() != freshCounter { failures.append("the main context's counter is \(mainCounter()), the store's \(freshCounter)") }
    let missedByObserver = Set(freshItems.map(\.objectID)).subtracting(log.seenIDs)
    if !missedByObserver.isEmpty { failures.append("the observer never saw \(missedByObserver.count) items") }

    // Every importer's context converged to the store's state.
    for (number, state) in importerStates.enumerated() {
        if state.counter != freshCounter { failures.append("importer \(number + 1) holds counter \(state.counter), the store \(freshCounter)") }
        for (index, payload) in state.payloads where freshPayloads[index] != payload {
            failures.append("importer \(number + 1) holds a stale payload for item \(index)")
            break
        }
    }
    observer.cancel()
    for task in mergeTasks { task.cancel() }

    print("converge: \(acknowledged.count) acknowledged saves from \(convergeImporters) importer actors and a second process, "
          + "\(freshItems.count) items, counter \(freshCounter), \(conflicts) conflicts retried in this process, "
          + "\(log.snapshots) live-results snapshots observed")
    for failure in failures { print("FAIL: \(failure)") }
    return failures.isEmpty
}
