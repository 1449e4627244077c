// The serializable section of `make bench`: what `SaveIsolation.serializable` costs beside a plain
// save, on the SQLite store, one unit of work alternating with the other in the same run. A unit
// reads 100 rows by a predicate and changes 10 of them, in a new context, then saves: the plain save
// checks the 10 rows it writes, the serializable one also the 90 it only read.
import Foundation
import ModelgenRuntime

/// One unit of work in a new context; returns its time in microseconds.
func unitOfWork(_ container: ManagedContainer, isolation: SaveIsolation, index: Int) throws -> Double {
    let start = now()
    let context = container.newContext(observation: .unobserved)
    context.isUndoEnabled = false
    context.saveIsolation = isolation
    let low = (index * 7_919) % 9_900
    let request = try FetchRequest<Item>(entityName: "Item", predicate: "a >= $LOW AND a < $HIGH", variables: ["LOW": low, "HIGH": low + 100])
    for (position, item) in try context.fetch(request).enumerated() where position % 10 == 0 { item.b &+= 1 }
    try context.save()
    return Double(now() - start) / 1e3
}

func runSerializableBench() throws {
    let rows = 10_000, units = 300
    let directory = try benchDirectory("serializable")
    defer { try? FileManager.default.removeItem(at: directory) }
    let container = try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("serializable.sqlite")))
    _ = try saveNumberedItems(rows, in: container.newContext(observation: .unobserved))
    var plain: [Double] = [], serializable: [Double] = []
    for index in 0..<units * 2 {
        if index % 2 == 0 {
            plain.append(try unitOfWork(container, isolation: .changedRecords, index: index))
        } else {
            serializable.append(try unitOfWork(container, isolation: .serializable, index: index))
        }
    }
    print("Serializable save, SQLite, \(rows) rows: a unit of work reads 100 rows, changes 10, saves; \(units) of each, alternating, median")
    print(String(format: "  plain save (checks the 10 written)       %8.1f µs", median(plain)))
    print(String(format: "  serializable save (checks all 100 read)  %8.1f µs   %.2fx the plain one", median(serializable), median(serializable) / median(plain)))
}
