// The propagation section of `make bench`: how long a background save takes to reach an observer of
// the main context, beside its floor (a bare hop from a background task to the main actor), in one run.
import Foundation
import ModelgenRuntime
import Observation
import Synchronization

/// When an observation fired (nanoseconds of DispatchTime), set from a @Sendable onChange.
final class FireTime: Sendable {
    let nanoseconds = Atomic<UInt64>(0)
}

/// Percentile of sorted samples.
func percentile(_ sorted: [Double], _ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }

@MainActor func runPropagationBench() async throws {
    let rounds = 300
    let propagationContainer = try ManagedContainer(model: model, store: .inMemory)
    let main = propagationContainer.mainContext
    let item = makeItems(main)[0]
    try main.save()
    let id = item.objectID
    var latencies: [Double] = [], floors: [Double] = []
    for round in 0..<rounds {
        // The floor: a background task scheduling work on the main actor.
        let hop = FireTime()
        let hopStart = await Task.detached { () -> UInt64 in
            let start = DispatchTime.now().uptimeNanoseconds
            Task { @MainActor in hop.nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed) }
            return start
        }.value
        while hop.nanoseconds.load(ordering: .relaxed) == 0 { await Task.yield() }
        floors.append(Double(hop.nanoseconds.load(ordering: .relaxed) - hopStart) / 1e3)

        // A background save of one property, until the main context's observer of it fires.
        let fired = FireTime()
        withObservationTracking { _ = item.count } onChange: {
            fired.nanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
        }
        let saved = try await propagationContainer.performBackgroundTask { context -> UInt64 in
            let object = try context.existingObject(with: id) as! Item
            object.count = Int64(round + 2)
            // From the call: the main actor may hear of the save before the call returns here.
            let start = DispatchTime.now().uptimeNanoseconds
            try context.save()
            return start
        }
        while fired.nanoseconds.load(ordering: .relaxed) == 0 { await Task.yield() }
        latencies.append(Double(fired.nanoseconds.load(ordering: .relaxed)) / 1e3 - Double(saved) / 1e3)
    }
    latencies.sort()
    floors.sort()
    print("propagation, in-memory store, \(rounds) saves: background save called -> main context's observer told (microseconds)")
    print(String(format: "  background save to main-context observer   median %7.1f   p99 %7.1f", percentile(latencies, 0.5), percentile(latencies, 0.99)))
    print(String(format: "  floor: background task to main actor hop    median %7.1f   p99 %7.1f", percentile(floors, 0.5), percentile(floors, 0.99)))
}

/// A fresh directory for a section's store files (the caller removes it).
func benchDirectory(_ section: String) throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-\(section)-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
}

/// Inserts and saves `rows` items numbered 0… in `a`, in `context` (undo off).
func saveNumberedItems(_ rows: Int, in context: ManagedObjectContext) throws -> [Item] {
    context.isUndoEnabled = false
    let items: [Item] = (0..<rows).map { index in
        let item = Item(context: context)
        item.name = "item \(index)"
        item.d = ""
        item.createdAt = Date()
        item.a = Int64(index)
        return item
    }
    try context.save()
    return items
}

/// Live results of 10,000 rows (SQLite store): merging a save that changed one row, live results
/// updated from the change set, beside loading that one row by its ID and beside refetching all.
@MainActor func runLiveResultsBench() async throws {
    let rows = 10_000, rounds = 300
    let directory = try benchDirectory("live")
    defer { try? FileManager.default.removeItem(at: directory) }
    let liveContainer = try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("live.sqlite")))
    let writer = liveContainer.newContext(observation: .unobserved)
    let written = try saveNumberedItems(rows, in: writer)
    let reader = liveContainer.newContext()
    var request = try FetchRequest<Item>(entityName: "Item", predicate: "a >= 0", sortDescriptors: [SortDescriptor("a")])
    request.resultType = .objects
    let results = try LiveResults(request, in: reader)
    var changes = liveContainer.changes.makeAsyncIterator()
    // The floor: one row loaded by its ID in another context. The first read after a save pays for
    // SQLite's reader revalidating its page cache; merge and floor alternate who goes first.
    let probe = liveContainer.newContext(observation: .unobserved)
    var merges: [Double] = [], loads: [Double] = [], refetches: [Double] = []
    for round in 0..<rounds {
        let item = written[(round * 97) % rows]
        item.a = Int64(rows + round)                  // moves to the end of the results
        try writer.save()
        guard let changeSet = await changes.next() else { break }
        let same = probe.object(with: item.objectID)
        probe.refresh(same, mergeChanges: false)
        func load() throws {
            let start = now()
            try same.loadIfFault()
            loads.append(Double(now() - start) / 1e3)
        }
        if round % 2 == 0 { try load() }
        let start = now()
        reader.mergeChanges(changeSet)
        merges.append(Double(now() - start) / 1e3)
        if round % 2 == 1 { try load() }
    }
    // Refetching everything, apart: its 10,000 rows would push the rest out of the CPU caches.
    for _ in 0..<30 {
        let start = now()
        _ = try reader.fetch(request)
        refetches.append(Double(now() - start) / 1e3)
    }
    guard results.objects.count == rows, results.objects.last?.a == Int64(rows + rounds - 1) else {
        fatalError("live results diverged from the store")
    }
    // Each first after its save (the reader's page cache revalidated): merges of odd rounds, loads of even ones.
    let firstMerges = merges.enumerated().filter { $0.offset % 2 == 1 }.map(\.element).sorted()
    let firstLoads = loads.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).sorted()
    merges.sort(); loads.sort(); refetches.sort()
    print("live results, \(rows) rows (SQLite), one row changed per save, \(rounds) saves (microseconds, median / p99)")
    print(String(format: "  merge + live results update from the change set   %8.1f / %8.1f", percentile(merges, 0.5), percentile(merges, 0.99)))
    print(String(format: "  floor: loading that one row by its ID (new state)  %8.1f / %8.1f", percentile(loads, 0.5), percentile(loads, 0.99)))
    print(String(format: "  refetching all %d rows                          %8.1f / %8.1f", rows, percentile(refetches, 0.5), percentile(refetches, 0.99)))
    print(String(format: "  ratio to the floor (median) %.1fx (goal <= 10x); each the first read after its save: %.1f / %.1f = %.1fx",
                 percentile(merges, 0.5) / percentile(loads, 0.5), percentile(firstMerges, 0.5), percentile(firstLoads, 0.5),
                 percentile(firstMerges, 0.5) / percentile(firstLoads, 0.5)))
}
