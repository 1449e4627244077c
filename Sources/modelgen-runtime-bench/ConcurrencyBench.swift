// The concurrency section of `make bench`: the SQLite store's one writer and pool of readers. Four
// reader threads fetching while one writer saves, beside the same work done one piece after another
// on one thread (the floor the pool is to beat), in the same run.
import Foundation
import ModelgenRuntime
import Synchronization

/// One reader's work: `fetches` fetches of 100 rows each by a predicate, in its own context.
func readerWork(_ container: ManagedContainer, fetches: Int, seed: Int) throws -> Int {
    let context = container.newContext(observation: .unobserved)
    var seen = 0
    for index in 0..<fetches {
        let low = ((seed * 7_919 + index * 104_729) % 9_900)
        let request = try FetchRequest<Item>(entityName: "Item", predicate: "a >= $LOW AND a < $HIGH",
                                             variables: ["LOW": low, "HIGH": low + 100])
        for item in try context.fetch(request) { seen &+= Int(item.a & 1) + 1 }
        context.reset()
    }
    return seen
}

/// The writer's work: `saves` saves of one changed row each.
func writerWork(_ container: ManagedContainer, saves: Int, items: [ObjectID]) throws {
    let context = container.newContext(observation: .unobserved)
    context.isUndoEnabled = false
    for index in 0..<saves {
        let item = try context.existingObject(with: items[(index * 31) % items.count]) as! Item
        item.b &+= 1
        try context.save()
    }
}

func runConcurrencyBench() throws {
    let rows = 10_000, readers = 4, fetchesPerReader = 400, saves = 200, runs = 3
    let directory = try benchDirectory("pool")
    defer { try? FileManager.default.removeItem(at: directory) }
    let poolContainer = try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("pool.sqlite")))
    let seed = poolContainer.newContext(observation: .unobserved)
    let ids = try saveNumberedItems(rows, in: seed).map(\.objectID)

    var serialTimes: [Double] = [], concurrentTimes: [Double] = []
    for _ in 0..<runs {
        // Serialized: the writer's saves, then each reader's fetches, on this thread.
        var start = now()
        try writerWork(poolContainer, saves: saves, items: ids)
        for reader in 0..<readers { _ = try readerWork(poolContainer, fetches: fetchesPerReader, seed: reader) }
        serialTimes.append(Double(now() - start) / 1e6)

        // Concurrent: the same work, the writer and four readers on five threads at once.
        let failure = Mutex<String?>(nil)
        start = now()
        DispatchQueue.concurrentPerform(iterations: readers + 1) { worker in
            do {
                if worker == readers {
                    try writerWork(poolContainer, saves: saves, items: ids)
                } else {
                    _ = try readerWork(poolContainer, fetches: fetchesPerReader, seed: worker)
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
            }
        }
        concurrentTimes.append(Double(now() - start) / 1e6)
        if let message = failure.withLock({ $0 }) { fatalError("concurrency bench: \(message)") }
    }
    let serial = median(serialTimes), concurrent = median(concurrentTimes)
    let cores = ProcessInfo.processInfo.activeProcessorCount
    print("SQLite store under concurrency, \(rows) rows: 1 writer (\(saves) one-row saves) + \(readers) readers (\(fetchesPerReader) fetches of 100 rows each), \(cores) cores, median of \(runs)")
    print(String(format: "  serialized on one thread (floor)   %8.1f ms", serial))
    print(String(format: "  writer and readers at once          %8.1f ms   %.2fx the floor's throughput", concurrent, serial / concurrent))
}
