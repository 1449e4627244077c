import CSQLite
import Foundation
import ModelgenRuntime

// `modelgen-runtime-bench predicate`: fetching 1% of 100,000 SQLite rows (1,000 objects, every
// attribute read) by an indexed attribute with a string predicate and with a `#Predicate`, beside the
// same query written against the C SQLite API, and a scan by a non-indexed attribute; each variant
// measured in turn within one round, the median of 21 rounds printed with the ratios to the raw query.

/// The bench's entity with an index on `b` and key paths for `#Predicate`.
let indexedModel = try! ManagedObjectModel(name: "IndexedBench", entities: [
    EntityDescription("Item", class: Item.self, attributes: [
        AttributeDescription("name", .string), AttributeDescription("count", .int64, defaultValue: .int(0)),
        AttributeDescription("price", .double, defaultValue: .double(0)), AttributeDescription("flag", .bool, defaultValue: .bool(false)),
        AttributeDescription("createdAt", .date), AttributeDescription("note", .string, optional: true),
        AttributeDescription("a", .int64, defaultValue: .int(0)), AttributeDescription("b", .int64, defaultValue: .int(0)),
        AttributeDescription("c", .double, defaultValue: .double(0)), AttributeDescription("d", .string),
    ], indexes: [["b"]], keyPaths: [\Item.b: "b", \Item.c: "c", \Item.name: "name"]),
])

/// Sums every attribute of the objects, as the raw query reads every column.
func readAll(_ items: [Item]) -> Int64 {
    var total: Int64 = 0
    for o in items {
        total &+= o.count &+ Int64(o.price) &+ (o.flag ? 1 : 0) &+ Int64(o.createdAt.timeIntervalSinceReferenceDate) &+ (o.note == nil ? 0 : 1)
        total &+= o.a &+ o.b &+ Int64(o.c) &+ Int64(o.name.utf8.count) &+ Int64(o.d.utf8.count)
    }
    return total
}

/// The raw database: the same 100,000 rows (b = i % 100, c = b), an index on b.
func fillRawPredicateDatabase(_ path: String) -> OpaquePointer? {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, count INTEGER, price REAL, flag INTEGER, createdAt REAL, note TEXT, a INTEGER, b INTEGER, c REAL, d TEXT); CREATE INDEX item_b ON item (b)", nil, nil, nil)
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO item (name, count, price, flag, createdAt, note, a, b, c, d) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, 'd')", -1, &insert, nil)
    for i in 0..<count {
        sqlite3_bind_text(insert, 1, "item \(i)", -1, transient)
        sqlite3_bind_int64(insert, 2, Int64(i))
        sqlite3_bind_double(insert, 3, Double(i) * 0.5)
        sqlite3_bind_int64(insert, 4, i % 2 == 0 ? 1 : 0)
        sqlite3_bind_double(insert, 5, Double(i))
        sqlite3_bind_int64(insert, 6, Int64(i))
        sqlite3_bind_int64(insert, 7, Int64(i % 100))
        sqlite3_bind_double(insert, 8, Double(i % 100))
        sqlite3_step(insert)
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    return db
}

/// The raw query: prepare, bind, step through the matching rows reading every column.
func rawIndexedFetch(_ db: OpaquePointer?, b: Int64) -> (rows: Int, checksum: Int64) {
    var select: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, name, count, price, flag, createdAt, note, a, b, c, d FROM item WHERE b = ?", -1, &select, nil)
    sqlite3_bind_int64(select, 1, b)
    var rows = 0, total: Int64 = 0
    while sqlite3_step(select) == SQLITE_ROW {
        rows += 1
        let name = String(cString: sqlite3_column_text(select, 1))
        total &+= sqlite3_column_int64(select, 2) &+ Int64(sqlite3_column_double(select, 3)) &+ sqlite3_column_int64(select, 4)
        total &+= Int64(sqlite3_column_double(select, 5)) &+ (sqlite3_column_type(select, 6) == SQLITE_NULL ? 0 : 1)
        total &+= sqlite3_column_int64(select, 7) &+ sqlite3_column_int64(select, 8) &+ Int64(sqlite3_column_double(select, 9))
        total &+= Int64(name.utf8.count) &+ Int64(String(cString: sqlite3_column_text(select, 10)).utf8.count)
    }
    sqlite3_finalize(select)
    return (rows, total)
}

@MainActor func runPredicateBench() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-predicate-bench-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let raw = fillRawPredicateDatabase(directory.appendingPathComponent("raw.sqlite").path)
    defer { sqlite3_close(raw) }
    let container = try ManagedContainer(model: indexedModel, store: .sqlite(directory.appendingPathComponent("store.sqlite")))
    do {
        let context = container.newContext()
        context.isUndoEnabled = false
        for i in 0..<count {
            let o = Item(context: context)
            o.name = "item \(i)"; o.count = Int64(i); o.price = Double(i) * 0.5; o.flag = i % 2 == 0
            o.createdAt = Date(timeIntervalSinceReferenceDate: Double(i))
            o.a = Int64(i); o.b = Int64(i % 100); o.c = Double(i % 100); o.d = "d"
        }
        try context.save()
    }
    let wanted: Int64 = 7
    let wantedC = 7.0
    let stringRequest = try FetchRequest<Item>(entityName: "Item", predicate: "b == $B", variables: ["B": wanted])
    let typedRequest = FetchRequest(predicate: #Predicate<Item> { $0.b == wanted })
    let scanRequest = try FetchRequest<Item>(entityName: "Item", predicate: "c == $C", variables: ["C": wantedC])
    let plan = try container.newContext().queryPlan(for: stringRequest)
    var rawTimes: [Double] = [], stringTimes: [Double] = [], typedTimes: [Double] = [], scanTimes: [Double] = []
    var rows = (raw: 0, string: 0, typed: 0, scan: 0)
    for _ in 0..<21 {
        var start = now()
        let fromRaw = rawIndexedFetch(raw, b: wanted)
        rawTimes.append(Double(now() - start) / 1e6)
        rows.raw = fromRaw.rows
        sink &+= fromRaw.checksum & 1
        for (request, index) in [(stringRequest, 0), (typedRequest, 1), (scanRequest, 2)] {
            let context = container.newContext()   // nothing cached: every object is made from its row
            start = now()
            let items = try context.fetch(request)
            sink &+= readAll(items) & 1
            let elapsed = Double(now() - start) / 1e6
            switch index {
            case 0: stringTimes.append(elapsed); rows.string = items.count
            case 1: typedTimes.append(elapsed); rows.typed = items.count
            default: scanTimes.append(elapsed); rows.scan = items.count
            }
        }
    }
    let rawMedian = median(rawTimes)
    print("Predicates on SQLite: 1% of \(count) rows (\(rows.raw) raw, \(rows.string) string, \(rows.typed) #Predicate, \(rows.scan) scan), every attribute read, median of 21")
    print(String(format: "  raw sqlite3, WHERE b = ? (indexed)            %7.2f ms", rawMedian))
    print(String(format: "  string predicate  b == $B                     %7.2f ms   %.2fx raw (goal <= 2x)", median(stringTimes), median(stringTimes) / rawMedian))
    print(String(format: "  #Predicate { $0.b == wanted }                 %7.2f ms   %.2fx raw, %.2fx the string predicate (goal <= 1.10x)",
                 median(typedTimes), median(typedTimes) / rawMedian, median(typedTimes) / median(stringTimes)))
    print(String(format: "  scan, c == $C (not indexed)                   %7.2f ms   %.2fx raw", median(scanTimes), median(scanTimes) / rawMedian))
    print("  plan of the indexed fetch: \(plan)")
}
