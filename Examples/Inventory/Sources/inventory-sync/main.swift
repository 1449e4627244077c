// Two writers, one SQLite file, one screen: a background actor imports stock in batches while a
// second process (this program again, with `--writer`) adds and restocks items of another
// warehouse; the main actor keeps a live list of every item, as a SwiftUI view would, and checks at
// the end that it saw every change and that its list equals a fresh fetch.
//
//   swift run inventory-sync [PATH]
import Foundation
import Inventory
import ModelgenRuntime
import Observation

let importedItems = 400, importBatch = 50, otherItems = 120

/// The long-lived importer: an actor that owns its context. Managed objects stay inside it; what
/// leaves is plain values.
actor StockImporter: ModelActor {
    let modelContext: ManagedObjectContext

    init(container: ManagedContainer) {
        modelContext = container.newContext(observation: .unobserved)
    }

    /// Imports `count` items in batches of `batch`, one save each; returns the SKUs saved.
    func importStock(count: Int, batch: Int) throws -> [String] {
        let depot = Warehouse(context: modelContext, name: "Depot")
        var saved: [String] = []
        for start in stride(from: 0, to: count, by: batch) {
            var skus: [String] = []
            for number in start..<min(start + batch, count) {
                let item = Item(context: modelContext, sku: String(format: "ABC-%04d", number), warehouse: depot)
                item.quantity = Int32(number % 7)
                skus.append(item.sku)
            }
            try modelContext.save()
            saved += skus
        }
        return saved
    }
}

/// The second process: items of the Annex, saved one by one, then restocked.
func runOtherWriter(_ container: ManagedContainer) throws {
    let context = container.newContext(observation: .unobserved)
    let annex = Warehouse(context: context, name: "Annex")
    var items: [Item] = []
    for number in 0..<otherItems {
        let item = Item(context: context, sku: String(format: "XYZ-%04d", number), warehouse: annex)
        items.append(item)
        try context.save()
    }
    for item in items where item.quantity == 0 {
        item.quantity = 100
    }
    try context.save()
    print("other process: saved \(otherItems) items, restocked them")
}

/// What the main actor's observer saw.
@MainActor final class Screen {
    let results: LiveResults<Item>
    var redraws = 0
    var skusSeen: Set<String> = []
    /// From the snapshot stream, which (unlike a redraw) reports every change: rows inserted, changes.
    var insertedRows = 0
    var changes = 0

    init(results: LiveResults<Item>) { self.results = results }

    /// Reads the list as a view's body would, and asks to be told when it changes.
    func render() {
        withObservationTracking {
            for item in results.objects { skusSeen.insert(item.sku) }
        } onChange: {
            Task { @MainActor in self.redraws += 1; self.render() }
        }
    }

    /// Follows every change, as a server pushing updates to clients would.
    func follow() -> Task<Void, Never> {
        let snapshots = results.snapshots
        return Task { @MainActor in
            for await snapshot in snapshots {
                insertedRows += snapshot.difference.inserted.count
                if !snapshot.difference.isEmpty { changes += 1 }
            }
        }
    }
}

let arguments = CommandLine.arguments
if arguments.count == 3 && arguments[1] == "--writer" {
    let container = try ManagedContainer(model: InventoryModel.model, store: .sqlite(URL(fileURLWithPath: arguments[2])))
    try runOtherWriter(container)
    exit(0)
}

let path = arguments.count > 1 ? arguments[1]
    : FileManager.default.temporaryDirectory.appendingPathComponent("inventory-sync-\(getpid()).sqlite").path
try? FileManager.default.removeItem(atPath: path)
let container = try ManagedContainer(model: InventoryModel.model, store: .sqlite(URL(fileURLWithPath: path)))

// The main actor's list: every item by SKU, kept current by the main context's merges.
let everything = FetchRequest<Item>(entityName: "Item", sortDescriptors: [SortDescriptor("sku")])
let screen = Screen(results: try LiveResults(everything, in: container.mainContext))
screen.render()
let following = screen.follow()

// The second process, started now so both write at once.
let other = Process()
other.executableURL = Bundle.main.executableURL
other.arguments = ["--writer", path]
try other.run()
let otherDone = Task.detached { other.waitUntilExit(); return other.terminationStatus }

// The importer, in the background.
let importer = StockImporter(container: container)
let imported = try await importer.importStock(count: importedItems, batch: importBatch)
guard await otherDone.value == 0 else { fatalError("the other process failed") }

// The other process's saves arrive through the store's history (polled every 50 ms).
let total = importedItems + otherItems
let deadline = ContinuousClock.now + .seconds(20)
while (screen.results.objects.count < total || screen.insertedRows < total) && ContinuousClock.now < deadline {
    try await Task.sleep(for: .milliseconds(20))
}
try await Task.sleep(for: .milliseconds(200))   // the restock, and any redraw still queued

let fresh = container.newContext()
let fetched = try fresh.fetch(everything)
let live = screen.results.objects
let sameAsFresh = live.map(\.sku) == fetched.map(\.sku) && zip(live, fetched).allSatisfy { $0.quantity == $1.quantity }
let nothingLost = Set(imported).isSubset(of: Set(fetched.map(\.sku))) && fetched.count == total
let restocked = live.filter { $0.sku.hasPrefix("XYZ") }.allSatisfy { $0.quantity == 100 }
print("imported \(imported.count) items in batches of \(importBatch) on a background actor; the other process added \(otherItems)")
print("the screen redrew \(screen.redraws) times and saw \(screen.skusSeen.count) of \(total) items; "
      + "the snapshot stream reported \(screen.changes) changes inserting \(screen.insertedRows) rows")
print("live results equal a fresh fetch: \(sameAsFresh); nothing lost: \(nothingLost); restock seen: \(restocked)")
try? FileManager.default.removeItem(atPath: path)
following.cancel()
exit(sameAsFresh && nothingLost && restocked && screen.skusSeen.count == total && screen.insertedRows == total ? 0 : 1)
