// A child process for the SQLite store's crash and multi-process tests (Tests/ModelgenRuntimeTests):
//   modelgen-store-stress saves PATH          save batches until killed, printing "saved N" after each save
//   modelgen-store-stress increment PATH N    add 1 to the counter N times, retrying on conflicts
//   modelgen-store-stress check PATH          print "batches=M complete=BOOL counter=C"
//   modelgen-store-stress misuse PATH         use the main context off the main actor (debug builds stop)
//   modelgen-store-stress converge PATH       importer actors, a second process and live results (Converge.swift);
//                                             PATH may be a postgres:// URL in a build with the PostgreSQL trait
//   modelgen-store-stress writer PATH         the second process of `converge`
//   modelgen-store-stress fields PATH         two processes editing different attributes of the same items under
//                                             .mergeByPropertyObjectTrump (Fields.swift); fields-writer PATH is the second
//   modelgen-store-stress race PATH POLICY V  read the counter, print "ready", wait for a line on stdin, set it to V
//                                             and save under the merge policy (error|mergeByPropertyObjectTrump|mergeByPropertyStoreTrump|overwrite|rollback); prints
//                                             "saved value=…" (what the store then holds) or "conflict"
//   modelgen-store-stress history DIR STORE [options]   random concurrent transactions, histories for
//                                             scripts/history-check.py (History.swift)
//   modelgen-store-stress migrate-seed|migrate|migrate-check PATH [N]   the staged-migration kill test (Migrate.swift)
//   modelgen-store-stress open PATH rw|ro     as an unprivileged user (root drops to nobody, so file permissions
//                                             apply): open read-write or read-only, count the batches, try a save;
//                                             prints "opened batches=N", then "saved" or "save failed: …", or
//                                             "open failed: …"
import Foundation
import ModelgenRuntime
#if PostgreSQL
import ModelgenPostgres
#endif

final class Batch: ManagedObject {}
final class Item: ManagedObject {}
final class Counter: ManagedObject {}

let itemsPerBatch = 50
let model = try ManagedObjectModel(name: "Stress", entities: [
    EntityDescription("Batch", class: Batch.self, attributes: [AttributeDescription("number", .int64)],
                      relationships: [RelationshipDescription("items", destination: "Item", inverse: "batch", toMany: true, deleteRule: .cascade)]),
    EntityDescription("Item", class: Item.self, attributes: [AttributeDescription("index", .int64), AttributeDescription("payload", .string),
                                                            AttributeDescription("note", .string, optional: true)],
                      relationships: [RelationshipDescription("batch", destination: "Batch", inverse: "items")]),
    EntityDescription("Counter", class: Counter.self, attributes: [AttributeDescription("value", .int64)]),
])

/// The store named by PATH: a SQLite file, or (built with the PostgreSQL trait) a `postgres://` URL
/// whose `schema=` parameter names the schema.
func makeContainer(_ path: String) throws -> ManagedContainer {
    #if PostgreSQL
    if path.hasPrefix("postgres") {
        return try ManagedContainer(model: model, postgres: try PostgreSQLConfiguration(url: path))
    }
    #endif
    return try ManagedContainer(model: model, store: .sqlite(URL(fileURLWithPath: path)))
}

func counter(_ context: ManagedObjectContext) throws -> ManagedObject {
    if let existing = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first { return existing }
    let created = try context.insertObject(entityName: "Counter")
    try created.setValue(Int64(0), forKey: "value")
    return created
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: modelgen-store-stress saves|increment|check PATH [N]\n".utf8))
    exit(2)
}
if ["converge", "fields"].contains(arguments[1]) && !arguments[2].hasPrefix("postgres") { try? FileManager.default.removeItem(atPath: arguments[2]) }
if arguments[1] == "history" {
    exit(try runHistory(HistoryOptions(Array(arguments.dropFirst(2)))) ? 0 : 1)
}
if arguments[1] == "history-client" {
    try await runHistoryClient(HistoryOptions(Array(arguments.dropFirst(2))))
    exit(0)
}
if arguments[1].hasPrefix("migrate") {
    exit(try runMigrate(arguments[1], path: arguments[2], count: arguments.count > 3 ? Int(arguments[3]) ?? 0 : 0) ? 0 : 1)
}
if arguments[1] == "open" {
    if getuid() == 0 {   // root writes any file: become nobody, whom the permissions bind
        guard setgroups(0, nil) == 0, setgid(65534) == 0, setuid(65534) == 0 else { print("cannot drop privileges"); exit(2) }
    }
    let readOnly = arguments.count > 3 && arguments[3] == "ro"
    let store: SQLiteStore
    do {
        store = try SQLiteStore(url: URL(fileURLWithPath: arguments[2]), model: model, configuration: SQLiteConfiguration(readOnly: readOnly))
    } catch {
        print("open failed: \(error)")
        exit(0)
    }
    let container = ManagedContainer(model: model, store: store)
    let context = container.newContext()
    print("opened batches=\(try context.count(for: FetchRequest<ManagedObject>(entityName: "Batch")))")
    try context.insertObject(entityName: "Batch").setValue(Int64(-1), forKey: "number")
    do {
        try context.save()
        print("saved")
    } catch {
        print("save failed: \(error)")
    }
    exit(0)
}
let container = try makeContainer(arguments[2])
switch arguments[1] {
case "saves":
    var number = Int64(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Batch")))
    while true {
        number += 1
        let context = container.newContext()
        let batch = try context.insertObject(entityName: "Batch")
        try batch.setValue(number, forKey: "number")
        for index in 0..<itemsPerBatch {
            let item = try context.insertObject(entityName: "Item")
            try item.setValue(Int64(index), forKey: "index")
            try item.setValue(String(repeating: "x", count: Int.random(in: 10...2000)), forKey: "payload")
            try item.setValue(batch, forKey: "batch")
        }
        try counter(context).setValue(number, forKey: "value")
        try context.save()
        FileHandle.standardOutput.write(Data("saved \(number)\n".utf8))   // unbuffered: the parent may kill us next
    }
case "increment":
    let times = Int(arguments.count > 3 ? arguments[3] : "1") ?? 1
    var conflicts = 0
    for _ in 0..<times {
        while true {
            let context = container.newContext()
            let c = try counter(context)
            try c.setValue((try c.value(forKey: "value") as! Int64) + 1, forKey: "value")
            do {
                try context.save()
                break
            } catch is MergeConflictError {
                conflicts += 1
            }
        }
    }
    print("conflicts=\(conflicts)")
case "race":
    let policies: [String: MergePolicy] = ["error": .error, "mergeByPropertyObjectTrump": .mergeByPropertyObjectTrump,
                                           "mergeByPropertyStoreTrump": .mergeByPropertyStoreTrump, "overwrite": .overwrite,
                                           "rollback": .rollback, "objectWins": .overwrite, "storeWins": .rollback]
    guard arguments.count > 4, let policy = policies[arguments[3]], let value = Int64(arguments[4]) else { exit(2) }
    let context = container.newContext()
    context.mergePolicy = policy
    let c = try counter(context)
    _ = try c.value(forKey: "value")
    FileHandle.standardOutput.write(Data("ready\n".utf8))   // unbuffered: the parent waits for it
    _ = readLine()
    try c.setValue(value, forKey: "value")
    do {
        try context.save()
        let reader = container.newContext()
        let stored = try counter(reader).value(forKey: "value") as! Int64
        FileHandle.standardOutput.write(Data("saved value=\(stored)\n".utf8))
    } catch is MergeConflictError {
        FileHandle.standardOutput.write(Data("conflict\n".utf8))
    }
case "check":
    let context = container.newContext()
    let batches = try context.fetch(FetchRequest<ManagedObject>(entityName: "Batch", sortDescriptors: [SortDescriptor("number")]))
    var complete = true
    for (offset, batch) in batches.enumerated() {
        let items = try batch.value(forKey: "items") as? [ManagedObject] ?? []
        if try batch.value(forKey: "number") as? Int64 != Int64(offset + 1) || items.count != itemsPerBatch { complete = false }
    }
    let value = try context.fetch(FetchRequest<ManagedObject>(entityName: "Counter")).first.map { try $0.value(forKey: "value") as! Int64 } ?? 0
    print("batches=\(batches.count) complete=\(complete) counter=\(value)")
case "misuse":
    // Only unsafe code can take the main context off the main actor; a debug build stops at its save.
    let smuggled = Unmanaged.passRetained(container.mainContext)
    let bits = UInt(bitPattern: smuggled.toOpaque())
    await Task.detached {
        let context = Unmanaged<ManagedObjectContext>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!).takeUnretainedValue()
        try? context.save()
    }.value
    print("not stopped")
case "converge":
    exit(try await runConverge(container, path: arguments[2]) ? 0 : 1)
case "writer":
    try runChildWriter(container)
case "fields":
    exit(try runFields(container, path: arguments[2]) ? 0 : 1)
case "fields-writer":
    try runFieldsChild(container)
default:
    FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
    exit(2)
}
