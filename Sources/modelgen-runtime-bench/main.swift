// `make bench`: ModelgenRuntime costs in a release build, beside plain Swift in the same run.
import CSQLite
import Foundation
@_spi(Generated) import ModelgenRuntime   // it declares classes as generated code does

final class Item: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var count: Int64
    @Managed(slot: 2) var price: Double
    @Managed(slot: 3) var flag: Bool
    @Managed(slot: 4) var createdAt: Date
    @Managed(slot: 5) var note: String?
    @Managed(slot: 6) var a: Int64
    @Managed(slot: 7) var b: Int64
    @Managed(slot: 8) var c: Double
    @Managed(slot: 9) var d: String
    // As modelgen writes a final class-mode class: no `validateValue(_:forKey:)` or `awakeFromFetch()` of its own.
    override class var _mayValidateValues: Bool { false }
    override class var _awakesFromFetch: Bool { false }
}

extension Item {
    /// The accessor form extension-mode code uses.
    var countAccessor: Int64 {
        get { managedValue(at: 1) }
        set { setManagedValue(newValue, at: 1) }
    }
}

/// The same shape as plain stored properties.
final class PlainItem {
    var name = ""
    var count: Int64 = 0
}

let model = try ManagedObjectModel(name: "Bench", entities: [
    EntityDescription("Item", class: Item.self, attributes: [
        AttributeDescription("name", .string), AttributeDescription("count", .int64, defaultValue: .int(0)),
        AttributeDescription("price", .double, defaultValue: .double(0)), AttributeDescription("flag", .bool, defaultValue: .bool(false)),
        AttributeDescription("createdAt", .date), AttributeDescription("note", .string, optional: true),
        AttributeDescription("a", .int64, defaultValue: .int(0)), AttributeDescription("b", .int64, defaultValue: .int(0)),
        AttributeDescription("c", .double, defaultValue: .double(0)), AttributeDescription("d", .string),
    ]),
])

/// Sections to run (`modelgen-runtime-bench [access] [observation] [concurrency] [serializable] [propagation] [memory] [sqlite] [predicate] [library] [migration] [batch]`); all when none is named.
/// `postgres` (the store, propagation and the library questions) and `postgres-library` (the library
/// questions alone) run only when named, in a build with the PostgreSQL trait (`make bench-postgres`).
let sections = Set(CommandLine.arguments.dropFirst())
func runs(_ section: String) -> Bool { sections.isEmpty || sections.contains(section) }

// The child process of the batch section: writes its store, then exits.
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "object-bytes" {
    try printObjectBytes(kind: CommandLine.arguments[2])
    exit(0)
}
#if PostgreSQL
if CommandLine.arguments.count == 4 && CommandLine.arguments[1] == "postgres-listen" {
    try await runPostgresListener(schema: CommandLine.arguments[2], count: Int(CommandLine.arguments[3]) ?? 1)
    exit(0)
}
#endif
if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "batch-fill" {
    try fillBatchStore(path: CommandLine.arguments[2], rows: 1_000_000)
    exit(0)
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }
/// How many times a profile mode repeats its work: MODELGEN_BENCH_PROFILE_RUNS, else `standard` (fewer
/// runs for valgrind's callgrind, whose instruction counts do not drift with the machine's load as times do).
func profileRuns(standard: Int) -> Int {
    ProcessInfo.processInfo.environment["MODELGEN_BENCH_PROFILE_RUNS"].flatMap { Int($0) } ?? standard
}

// Each loop rotates over 1,024 objects so the optimizer cannot hoist the access out of the loop.
@inline(never) func readManaged(_ items: [Item], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].count }
    return sum
}
@inline(never) func readAccessor(_ items: [Item], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].countAccessor }
    return sum
}
@inline(never) func readPlain(_ items: [PlainItem], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].count }
    return sum
}
@inline(never) func readManagedString(_ items: [Item], _ n: Int) -> Int {
    var sum = 0
    for i in 0..<n { sum &+= items[i & 1023].name.utf8.count }
    return sum
}
@inline(never) func readPlainString(_ items: [PlainItem], _ n: Int) -> Int {
    var sum = 0
    for i in 0..<n { sum &+= items[i & 1023].name.utf8.count }
    return sum
}
@inline(never) func writeManaged(_ items: [Item], _ n: Int) {
    for i in 0..<n { items[i & 1023].count = Int64(truncatingIfNeeded: i) }
}
@inline(never) func writeAccessor(_ items: [Item], _ n: Int) {
    for i in 0..<n { items[i & 1023].countAccessor = Int64(truncatingIfNeeded: i) }
}
@inline(never) func writePlain(_ items: [PlainItem], _ n: Int) {
    for i in 0..<n { items[i & 1023].count = Int64(truncatingIfNeeded: i) }
}

func nsPerOp(_ n: Int, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<5 {
        let start = now()
        body()
        samples.append(Double(now() - start) / Double(n))
    }
    return median(samples)
}

let container = try ManagedContainer(model: model, store: .inMemory)
// An .unobserved context: these rows time the storage path itself (observable contexts: the observation section).
let context = container.newContext(observation: .unobserved)
/// The 1,024 objects the access loops rotate over, required values set.
func makeItems(_ context: ManagedObjectContext) -> [Item] {
    (0..<1024).map { _ in
        let item = Item(context: context)
        item.name = "hello world"
        item.d = ""
        item.createdAt = Date()
        return item
    }
}
let items = makeItems(context)
try context.save()
for item in items { item.count = 1 }   // tracked: registered as changed; later writes take the fast path
let plains: [PlainItem] = (0..<1024).map { _ in
    let plain = PlainItem()
    plain.name = "hello world"
    return plain
}

var sink: Int64 = 0
let count = 100_000
if runs("access") {
    let n = 10_000_000
    print("ModelgenRuntime, release build, median of 5 runs")
    print("property access (\(n / 1_000_000)M operations, .unobserved context)  @Managed     plain stored property")
    let r1 = nsPerOp(n) { sink &+= readManaged(items, n) }
    let r2 = nsPerOp(n) { sink &+= readPlain(plains, n) }
    let r1a = nsPerOp(n) { sink &+= readAccessor(items, n) }
    print(String(format: "  read Int64                           %6.2f ns    %6.2f ns   (accessor form %.2f ns)", r1, r2, r1a))
    let r3 = nsPerOp(n) { sink &+= Int64(readManagedString(items, n)) }
    let r4 = nsPerOp(n) { sink &+= Int64(readPlainString(plains, n)) }
    print(String(format: "  read String                          %6.2f ns    %6.2f ns", r3, r4))
    let w1 = nsPerOp(n) { writeManaged(items, n) }
    let w2 = nsPerOp(n) { writePlain(plains, n) }
    let w1a = nsPerOp(n) { writeAccessor(items, n) }
    print(String(format: "  write Int64 (change tracking on)     %6.2f ns    %6.2f ns   (accessor form %.2f ns)", w1, w2, w1a))
    print("  goals: read <= 5 ns, write <= 25 ns")
}
if runs("observation") {
    print("")
    try runObservationBench()
}
if runs("concurrency") {
    print("")
    try runConcurrencyBench()
}
if runs("serializable") {
    print("")
    try runSerializableBench()
}
if runs("propagation") {
    print("")
    try await runPropagationBench()
    print("")
    try await runLiveResultsBench()
}

/// Inserts `count` items with 10 attributes into a new context of `container` and saves: milliseconds.
func insertAndSave(_ count: Int, into container: ManagedContainer) throws -> Double {
    let context = container.newContext()
    context.isUndoEnabled = false
    let start = now()
    for i in 0..<count {
        let o = Item(context: context)
        o.name = "item \(i)"
        o.count = Int64(i)
        o.price = Double(i) * 0.5
        o.flag = i % 2 == 0
        o.createdAt = Date(timeIntervalSinceReferenceDate: Double(i))
        o.a = Int64(i); o.b = Int64(i * 2); o.c = Double(i); o.d = "d"
    }
    try context.save()
    let elapsed = Double(now() - start) / 1e6
    withExtendedLifetime(context) {}   // the context and its objects go away after the clock stops
    return elapsed
}

// Insert + save of 100,000 objects with 10 attributes, in a fresh container.
if runs("memory") {
    var insertTimes: [Double] = [], fetchTimes: [Double] = []
    var matched = 0
    for _ in 0..<3 {
        let c = try ManagedContainer(model: model, store: .inMemory)
        insertTimes.append(try insertAndSave(count, into: c))

        let reader = c.newContext()
        let request = try FetchRequest<Item>(entityName: "Item", predicate: "count >= $MIN AND flag == TRUE AND name BEGINSWITH 'item 9'",
                                             variables: ["MIN": 50_000])
        let fetchStart = now()
        matched = try reader.fetch(request).count
        fetchTimes.append(Double(now() - fetchStart) / 1e6)
    }
    print("in-memory store, \(count) objects with 10 attributes")
    print(String(format: "  insert + save                        %8.1f ms", median(insertTimes)))
    print(String(format: "  fetch with a predicate (new context) %8.1f ms  (%d matches)", median(fetchTimes), matched))
}

// The SQLite store beside a raw sqlite3 prepared-statement loop doing the same work, same run.
// Raw: one table with 10 columns, one transaction (milliseconds); the read is `rawSQLiteRead`.
func rawSQLiteInsert(_ path: String) -> Double {
    let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
    var db: OpaquePointer?
    sqlite3_open(path, &db)
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, count INTEGER, price REAL, flag INTEGER, createdAt REAL, note TEXT, a INTEGER, b INTEGER, c REAL, d TEXT)", nil, nil, nil)
    let start = now()
    sqlite3_exec(db, "BEGIN", nil, nil, nil)
    var insert: OpaquePointer?
    sqlite3_prepare_v2(db, "INSERT INTO item (name, count, price, flag, createdAt, note, a, b, c, d) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", -1, &insert, nil)
    for i in 0..<count {
        sqlite3_bind_text(insert, 1, "item \(i)", -1, transient)
        sqlite3_bind_int64(insert, 2, Int64(i))
        sqlite3_bind_double(insert, 3, Double(i) * 0.5)
        sqlite3_bind_int64(insert, 4, i % 2 == 0 ? 1 : 0)
        sqlite3_bind_double(insert, 5, Double(i))
        sqlite3_bind_null(insert, 6)
        sqlite3_bind_int64(insert, 7, Int64(i))
        sqlite3_bind_int64(insert, 8, Int64(i * 2))
        sqlite3_bind_double(insert, 9, Double(i))
        sqlite3_bind_text(insert, 10, "d", -1, transient)
        sqlite3_step(insert)
        sqlite3_reset(insert)
    }
    sqlite3_finalize(insert)
    sqlite3_exec(db, "COMMIT", nil, nil, nil)
    let inserted = Double(now() - start) / 1e6
    sqlite3_close(db)
    return inserted
}

/// Reads every column of every row of the raw table with a new connection, as the store's reader does:
/// (milliseconds, a checksum).
func rawSQLiteRead(_ path: String) -> (milliseconds: Double, checksum: Int64) {
    var db: OpaquePointer?
    let readStart = now()
    sqlite3_open(path, &db)
    var select: OpaquePointer?
    sqlite3_prepare_v2(db, "SELECT id, name, count, price, flag, createdAt, note, a, b, c, d FROM item", -1, &select, nil)
    var total: Int64 = 0
    while sqlite3_step(select) == SQLITE_ROW {
        let name = String(cString: sqlite3_column_text(select, 1))
        total &+= sqlite3_column_int64(select, 2) &+ Int64(sqlite3_column_double(select, 3)) &+ sqlite3_column_int64(select, 4)
        total &+= Int64(sqlite3_column_double(select, 5)) &+ (sqlite3_column_type(select, 6) == SQLITE_NULL ? 0 : 1)
        total &+= sqlite3_column_int64(select, 7) &+ sqlite3_column_int64(select, 8) &+ Int64(sqlite3_column_double(select, 9))
        total &+= Int64(name.utf8.count) &+ Int64(String(cString: sqlite3_column_text(select, 10)).utf8.count)
    }
    sqlite3_finalize(select)
    sqlite3_close(db)
    return (Double(now() - readStart) / 1e6, total)
}

/// Reads every attribute of every item (what the raw loop reads of each row): a checksum.
@inline(never) func readEveryAttribute(_ items: [Item]) -> Int64 {
    var total: Int64 = 0
    for o in items {
        total &+= o.count &+ Int64(o.price) &+ (o.flag ? 1 : 0) &+ Int64(o.createdAt.timeIntervalSinceReferenceDate) &+ (o.note == nil ? 0 : 1)
        total &+= o.a &+ o.b &+ Int64(o.c) &+ Int64(o.name.utf8.count) &+ Int64(o.d.utf8.count)
    }
    return total
}

// MODELGEN_BENCH_PROFILE=sqlitefetch|sqliteinsert|sqliteraw: the SQLite store's fetch + read (or insert +
// save, or the floor's raw read) of 100,000 objects alone, 30 times (MODELGEN_BENCH_PROFILE_RUNS), for
// perf record or valgrind --tool=callgrind (see docs/performance.md).
if let profiled = ProcessInfo.processInfo.environment["MODELGEN_BENCH_PROFILE"], profiled.hasPrefix("sqlite") {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-profile-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let runs = profileRuns(standard: 30)
    if profiled == "sqliteraw" {
        // The floor's read alone (for callgrind: the instructions of rawSQLiteRead beside the store's).
        let path = directory.appendingPathComponent("raw.sqlite").path
        _ = rawSQLiteInsert(path)
        let reads = (0..<runs).map { _ in rawSQLiteRead(path).milliseconds }
        print(String(format: "sqliteraw: median %.1f ms", median(reads)))
        try? FileManager.default.removeItem(at: directory)
        exit(0)
    }
    let c = try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("store.sqlite")))
    _ = try insertAndSave(count, into: c)
    var times: [Double] = [], fetchOnly: [Double] = []
    for _ in 0..<runs {
        if profiled == "sqliteinsert" {
            let fresh = try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("insert\(times.count).sqlite")))
            times.append(try insertAndSave(count, into: fresh))
            continue
        }
        let reader = c.newContext()
        let start = now()
        let items = try reader.fetch(FetchRequest<Item>(entityName: "Item"))
        fetchOnly.append(Double(now() - start) / 1e6)
        sink &+= readEveryAttribute(items) & 1
        times.append(Double(now() - start) / 1e6)
    }
    print(String(format: "%@: median %.1f ms (the fetch alone %.1f ms)", profiled, median(times), fetchOnly.isEmpty ? 0 : median(fetchOnly)))
    try? FileManager.default.removeItem(at: directory)   // exit() runs no defer
    exit(0)
}

if runs("sqlite") {
    var rawInsert: [Double] = [], rawRead: [Double] = [], storeInsert: [Double] = [], storeRead: [Double] = [], storeTeardown: [Double] = []
    var storeReadUnobserved: [Double] = []
    let benchDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-\(getpid())")
    try FileManager.default.createDirectory(at: benchDirectory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: benchDirectory) }
    // Five paired runs (raw, then the store, same file system state): the ratio is the median of the
    // per-run ratios, steadier than a ratio of medians when the disk's fsync latency wanders.
    for run in 0..<5 {
        rawInsert.append(rawSQLiteInsert(benchDirectory.appendingPathComponent("raw\(run).sqlite").path))

        let c = try ManagedContainer(model: model, store: .sqlite(benchDirectory.appendingPathComponent("store\(run).sqlite")))
        storeInsert.append(try insertAndSave(count, into: c))

        /// Fetches every item in a new context and reads every attribute: (milliseconds, then dropping the context).
        func fetchAndRead(_ observation: ObservationMode) throws -> (read: Double, teardown: Double) {
            var reader: ManagedObjectContext? = c.newContext(observation: observation)
            let readStart = now()
            var fetched: [Item]? = try reader!.fetch(FetchRequest<Item>(entityName: "Item"))
            sink &+= readEveryAttribute(fetched!) & 1
            let read = Double(now() - readStart) / 1e6
            let teardownStart = now()
            fetched = nil
            reader = nil
            return (read, Double(now() - teardownStart) / 1e6)
        }
        // The read, three times by turns with the raw read of the same rows (both files written, the
        // same file system state): the run's figures are the medians of its turns.
        var turnsRaw: [Double] = [], turnsStore: [Double] = [], turnsTeardown: [Double] = []
        for _ in 0..<3 {
            let rawTurn = rawSQLiteRead(benchDirectory.appendingPathComponent("raw\(run).sqlite").path)
            turnsRaw.append(rawTurn.milliseconds)
            sink &+= rawTurn.checksum & 1
            let observed = try fetchAndRead(.observable)   // a new context's default
            turnsStore.append(observed.read)
            turnsTeardown.append(observed.teardown)
        }
        rawRead.append(median(turnsRaw))
        storeRead.append(median(turnsStore))
        storeTeardown.append(median(turnsTeardown))
        storeReadUnobserved.append(try fetchAndRead(.unobserved).read)
    }
    print("SQLite store, \(count) objects with 10 attributes, beside raw sqlite3 prepared statements (same run)")
    func ratios(_ store: [Double], _ raw: [Double]) -> String {
        let each = zip(store, raw).map { $0 / $1 }
        return String(format: "%.1fx (runs %.1f-%.1fx; goal <= 2x)", median(each), each.min()!, each.max()!)
    }
    print(String(format: "  insert + save                        %8.1f ms   raw %6.1f ms   ", median(storeInsert), median(rawInsert)) + ratios(storeInsert, rawInsert))
    print(String(format: "  fetch + read every attribute         %8.1f ms   raw %6.1f ms   ", median(storeRead), median(rawRead)) + ratios(storeRead, rawRead))
    checkGoal("SQLite insert + save of \(count) objects / raw sqlite3", ratio: median(zip(storeInsert, rawInsert).map { $0 / $1 }), goal: 2)
    checkGoal("SQLite fetch + read of \(count) objects / raw sqlite3", ratio: median(zip(storeRead, rawRead).map { $0 / $1 }), goal: 2)
    print(String(format: "  (then dropping the reading context and its %d objects: %.1f ms, not counted above)", count, median(storeTeardown)))
    // Not a goal: the same read in a context whose objects skip Observation's per-read probe (`.unobserved`).
    print(String(format: "  (fetch + read in an .unobserved context: %.1f ms, %.1fx raw)", median(storeReadUnobserved),
                 median(zip(storeReadUnobserved, rawRead).map { $0 / $1 })))
}
if sink == 42 { print("") }

// Iterating 1,000,000 SQLite rows with a batch size: time and resident memory, beside one fetch of all.
func residentMegabytes() -> Double? {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
    return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
}
func megabytes(_ value: Double?) -> String { value.map { String(format: "%.0f MB", $0) } ?? "n/a" }

/// Writes `rows` items into a SQLite store at `path` (run in a child process: the measuring one starts clean).
func fillBatchStore(path: String, rows: Int) throws {
    let container = try ManagedContainer(model: model, store: .sqlite(URL(fileURLWithPath: path)))
    for chunk in 0..<(rows / 100_000) {
        let context = container.newContext()
        context.isUndoEnabled = false
        for i in (chunk * 100_000)..<((chunk + 1) * 100_000) {
            let o = Item(context: context)
            o.name = "item \(i)"; o.count = Int64(i); o.createdAt = Date(timeIntervalSinceReferenceDate: Double(i)); o.d = "d"
        }
        try context.save()
    }
}

/// Runs this benchmark again as a child process with `arguments` (and `environment` added to this
/// process's); its exit status.
func runSelf(_ arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
    fflush(nil)   // every stream: the child writes to the same output
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = arguments
    if !environment.isEmpty {
        child.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
    }
    try child.run()
    child.waitUntilExit()
    return child.terminationStatus
}

if runs("predicate") { try runPredicateBench() }

if runs("library") {
    if ProcessInfo.processInfo.environment["MODELGEN_BENCH_LIBRARY_SMALL"] != "0" { try runLibraryBench(books: 20_000, rounds: 11) }
    // 15 rounds at 200,000 books (about 10 s beyond the fill): with 5, the median list ratio of one
    // invocation moved by ±0.25 between invocations.
    if ProcessInfo.processInfo.environment["MODELGEN_BENCH_LIBRARY_LARGE"] != "0" { try runLibraryBench(books: 200_000, rounds: 15) }
}

if runs("migration") { try runMigrationBench() }

if runs("batch") && sections != ["batch"] {
    // Resident memory is only the iteration's own in a process that did nothing before: run it in a child.
    _ = try runSelf(["batch"])
} else if runs("batch") {
    let rows = 1_000_000, batchSize = 1_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-batch-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("batch.sqlite").path
    let fillStart = now()
    guard try runSelf(["batch-fill", path]) == 0 else { fatalError("writing the batch store failed") }
    let container = try ManagedContainer(model: model, store: .sqlite(URL(fileURLWithPath: path)))
    print("batched iteration: \(rows) rows written in \(String(format: "%.1f", Double(now() - fillStart) / 1e9)) s")
    let before = residentMegabytes()
    var peak = before ?? 0
    var total: Int64 = 0
    let start = now()
    do {
        let context = container.newContext()
        let results = try context.fetch(FetchRequest<Item>(entityName: "Item"), batchSize: batchSize)
        for (index, item) in results.enumerated() {
            total &+= item.count &+ Int64(item.name.utf8.count)
            if index % batchSize == 0, let rss = residentMegabytes() { peak = max(peak, rss) }
        }
    }
    let batchedTime = Double(now() - start) / 1e9
    print(String(format: "  fetch(_:batchSize: %d), every object read   %6.2f s   resident memory %@ before, peak %@ (+%@)",
                 batchSize, batchedTime, megabytes(before), megabytes(peak), megabytes(before.map { peak - $0 })))
    let plainStart = now()
    do {
        let context = container.newContext()
        for item in try context.fetch(FetchRequest<Item>(entityName: "Item")) { total &+= item.count }
        peak = max(peak, residentMegabytes() ?? 0)
    }
    print(String(format: "  fetch(_:) of all rows, for comparison         %6.2f s   resident memory peak %@ (+%@)",
                 Double(now() - plainStart) / 1e9, megabytes(peak), megabytes(before.map { peak - $0 })))
    sink &+= total & 1
}

if sections.contains("postgres") || sections.contains("postgres-library") {
    #if PostgreSQL
    print("")
    if sections.contains("postgres") { try await runPostgresBench() }
    try runPostgresLibraryBench()
    #else
    print("postgres: this build has no PostgreSQL store; run `make bench-postgres`")
    #endif
}

reportGoals()
