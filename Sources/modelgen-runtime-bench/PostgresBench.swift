// The postgres section of `make bench-postgres` (built with the PostgreSQL trait, against the server
// MODELGEN_POSTGRES_URL names): the PostgreSQL store beside the same work done directly with
// PostgresNIO, and the delay of a save in one process reaching an observer in another.
#if PostgreSQL
import Foundation
import ModelgenPostgres
import ModelgenRuntime
import PostgresNIO

/// A configuration for a fresh schema of the bench server.
func benchPostgresConfiguration(_ schema: String) throws -> PostgreSQLConfiguration {
    guard let url = ProcessInfo.processInfo.environment["MODELGEN_POSTGRES_URL"] else {
        throw PostgreSQLStoreError.configuration("set MODELGEN_POSTGRES_URL (make bench-postgres starts a server and does)")
    }
    var configuration = try PostgreSQLConfiguration(url: url)
    configuration.schema = schema
    return configuration
}

/// The floor: the same rows inserted with PostgresNIO directly (one connection, one transaction,
/// statements pipelined as the store sends them), then read back column by column.
func rawPostgres(_ configuration: PostgreSQLConfiguration, rows: Int) throws -> (insert: Double, read: Double, checksum: Int64) {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    let connection = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                    id: 1, logger: logger).wait()
    defer { try? connection.close().wait() }
    let table = "\"\(configuration.schema)\".\"raw\""
    _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(configuration.schema)\""), logger: logger).wait()
    _ = try connection.query(PostgresQuery(unsafeSQL: """
        CREATE TABLE \(table) (id bigint PRIMARY KEY, name text, count bigint, price double precision, flag boolean,
        created double precision, note text, a bigint, b bigint, c double precision, d text)
        """), logger: logger).wait()
    let insertStart = now()
    _ = try connection.query("BEGIN", logger: logger).wait()
    var pending: [EventLoopFuture<PostgresQueryResult>] = []
    pending.reserveCapacity(rows)
    let sql = "INSERT INTO \(table) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
    for i in 0..<rows {
        var bindings = PostgresBindings(capacity: 11)
        bindings.append(Int64(i)); bindings.append("item \(i)"); bindings.append(Int64(i)); bindings.append(Double(i) * 0.5)
        bindings.append(i % 2 == 0); bindings.append(Double(i)); bindings.appendNull(); bindings.append(Int64(i))
        bindings.append(Int64(i * 2)); bindings.append(Double(i)); bindings.append("d")
        pending.append(connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger))
    }
    for future in pending { _ = try future.wait() }
    _ = try connection.query("COMMIT", logger: logger).wait()
    let insert = Double(now() - insertStart) / 1e6

    let readStart = now()
    var checksum: Int64 = 0
    for row in try connection.query(PostgresQuery(unsafeSQL: "SELECT * FROM \(table)"), logger: logger).wait().rows {
        let cells = row.makeRandomAccess()
        checksum &+= try cells[0].decode(Int64.self) &+ Int64(try cells[1].decode(String.self).utf8.count)
        checksum &+= try cells[2].decode(Int64.self) &+ Int64(try cells[3].decode(Double.self)) &+ (try cells[4].decode(Bool.self) ? 1 : 0)
        checksum &+= Int64(try cells[5].decode(Double.self)) &+ (try cells[6].decode(String?.self) == nil ? 0 : 1)
        checksum &+= try cells[7].decode(Int64.self) &+ (try cells[8].decode(Int64.self)) &+ Int64(try cells[9].decode(Double.self))
        checksum &+= Int64(try cells[10].decode(String.self).utf8.count)
    }
    return (insert, Double(now() - readStart) / 1e6, checksum)
}

/// The fastest load PostgresNIO can do of the same rows: `COPY … FROM STDIN` (text format), streamed.
func copyPostgres(_ configuration: PostgreSQLConfiguration, rows: Int) async throws -> Double {
    var logger = Logger(label: "bench")
    logger.logLevel = .critical
    let connection = try await PostgresConnection.connect(configuration: configuration.connection, id: 2, logger: logger)
    let table = "\"\(configuration.schema)\".\"copied\""
    _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \"\(configuration.schema)\""), logger: logger)
    _ = try await connection.query(PostgresQuery(unsafeSQL: """
        CREATE TABLE \(table) (id bigint PRIMARY KEY, name text, count bigint, price double precision, flag boolean,
        created double precision, note text, a bigint, b bigint, c double precision, d text)
        """), logger: logger)
    let start = now()
    try await connection.copyFrom(table: "\(configuration.schema)\".\"copied", logger: logger) { writer in
        var buffer = ByteBuffer()
        for i in 0..<rows {
            buffer.writeString("\(i)\titem \(i)\t\(i)\t\(Double(i) * 0.5)\t\(i % 2 == 0 ? "t" : "f")\t\(Double(i))\t\\N\t\(i)\t\(i * 2)\t\(Double(i))\td\n")
            if buffer.readableBytes > 1 << 16 {
                try await writer.write(buffer)
                buffer.clear()
            }
        }
        if buffer.readableBytes > 0 { try await writer.write(buffer) }
    }
    let elapsed = Double(now() - start) / 1e6
    try await connection.close()
    return elapsed
}

@MainActor func runPostgresBench() async throws {
    let rows = 100_000, runs = 3
    // MODELGEN_BENCH_PROFILE=pginsert: the store's insert + save of 100,000 objects alone, 10 times (perf record).
    if ProcessInfo.processInfo.environment["MODELGEN_BENCH_PROFILE"] == "pginsert" {
        var times: [Double] = []
        for run in 0..<10 {
            let container = try ManagedContainer(model: model, postgres: try benchPostgresConfiguration("bench_profile_\(getpid())_\(run)"))
            times.append(try insertAndSave(rows, into: container))
        }
        print(String(format: "pginsert: median %.1f ms", median(times)))
        exit(0)
    }
    var storeInsert: [Double] = [], storeRead: [Double] = [], rawInsert: [Double] = [], rawRead: [Double] = [], copied: [Double] = []
    for run in 0..<runs {
        let raw = try rawPostgres(try benchPostgresConfiguration("bench_raw_\(getpid())_\(run)"), rows: rows)
        rawInsert.append(raw.insert)
        rawRead.append(raw.read)
        sink &+= raw.checksum & 1
        copied.append(try await copyPostgres(try benchPostgresConfiguration("bench_copy_\(getpid())_\(run)"), rows: rows))

        let container = try ManagedContainer(model: model, postgres: try benchPostgresConfiguration("bench_store_\(getpid())_\(run)"))
        storeInsert.append(try insertAndSave(rows, into: container))
        let reader = container.newContext(observation: .unobserved)
        let readStart = now()
        var total: Int64 = 0
        for o in try reader.fetch(FetchRequest<Item>(entityName: "Item")) {
            total &+= o.count &+ Int64(o.price) &+ (o.flag ? 1 : 0) &+ Int64(o.createdAt.timeIntervalSinceReferenceDate) &+ (o.note == nil ? 0 : 1)
            total &+= o.a &+ o.b &+ Int64(o.c) &+ Int64(o.name.utf8.count) &+ Int64(o.d.utf8.count)
        }
        storeRead.append(Double(now() - readStart) / 1e6)
        sink &+= total & 1
    }
    func ratio(_ store: [Double], _ raw: [Double], goal: String) -> String {
        let each = zip(store, raw).map { $0 / $1 }
        return String(format: "%.1fx (runs %.1f-%.1fx; goal <= %@)", median(each), each.min()!, each.max()!, goal)
    }
    print("PostgreSQL store, \(rows) objects with 10 attributes, beside PostgresNIO directly (same server, same run; median of \(runs))")
    print(String(format: "  insert + save                        %8.1f ms   COPY %6.1f ms   ", median(storeInsert), median(copied)) + ratio(storeInsert, copied, goal: "3x"))
    print(String(format: "    (one INSERT per row, pipelined: %.1f ms)", median(rawInsert)))
    print(String(format: "  fetch + read every attribute         %8.1f ms   raw %7.1f ms   ", median(storeRead), median(rawRead)) + ratio(storeRead, rawRead, goal: "2x"))
    checkGoal("PostgreSQL insert + save of \(rows) objects / COPY", ratio: median(zip(storeInsert, copied).map { $0 / $1 }), goal: 3)
    checkGoal("PostgreSQL fetch + read of \(rows) objects / PostgresNIO", ratio: median(zip(storeRead, rawRead).map { $0 / $1 }), goal: 2)

    // Propagation between processes: a child process observes; this one saves and notes the time.
    let rounds = 100
    let configuration = try benchPostgresConfiguration("bench_propagation_\(getpid())")
    let container = try ManagedContainer(model: model, postgres: configuration)
    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["postgres-listen", configuration.schema, String(rounds)]
    let pipe = Pipe()
    child.standardOutput = pipe
    try child.run()
    let ready = pipe.fileHandleForReading
    _ = ready.availableData   // the child's "ready" line
    let context = container.newContext(observation: .unobserved)
    let item = Item(context: context)
    item.name = "x"; item.d = ""; item.createdAt = Date()
    var starts: [UInt64] = []
    for round in 0..<rounds {
        item.count = Int64(round)
        starts.append(DispatchTime.now().uptimeNanoseconds)
        try context.save()
        try await Task.sleep(for: .milliseconds(20))
    }
    let output = String(decoding: await Task.detached { () -> Data in
        let data = ready.readDataToEndOfFile()
        child.waitUntilExit()
        return data
    }.value, as: UTF8.self)
    let heard = output.split(separator: "\n").compactMap { UInt64($0) }
    let latencies = zip(heard, starts).map { Double($0 &- $1) / 1e6 }.sorted()
    guard latencies.count == rounds else { fatalError("the listening process heard \(heard.count) of \(rounds) saves") }
    print("propagation between processes, \(rounds) saves: save called in one process -> its change set in another (milliseconds)")
    print(String(format: "  NOTIFY wakes the watcher, then history       median %6.1f   p99 %6.1f", percentile(latencies, 0.5), percentile(latencies, 0.99)))
}

/// The library's four questions on the PostgreSQL store beside the same SQL sent with PostgresNIO to
/// a copy of the library in plain tables of another schema of the same server.
final class PostgresLibraryFloor: LibraryFloor {
    let connection: PostgresConnection
    let logger: Logger
    let schema: String
    let data: LibraryData

    /// A connection to the floor's schema, filled first unless `fill` is false (then it must be there).
    init(_ configuration: PostgreSQLConfiguration, data: LibraryData, fill: Bool = true) throws {
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        self.logger = logger
        self.data = data
        schema = configuration.schema
        connection = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                    id: 3, logger: logger).wait()
        try run("CREATE SCHEMA IF NOT EXISTS \"\(schema)\"")
        try run("SET search_path TO \"\(schema)\"")
        guard fill else { return }
        try run("CREATE TABLE writer (id bigint PRIMARY KEY, name text)")
        try run("CREATE TABLE book (id bigint PRIMARY KEY, title text, pages bigint, writer bigint REFERENCES writer(id))")
        try run("CREATE INDEX book_title ON book (title)"); try run("CREATE INDEX book_writer ON book (writer)")
        try run("CREATE TABLE book_author (book bigint, writer bigint)"); try run("CREATE INDEX book_author_book ON book_author (book)")
        try run("CREATE TABLE loan (id bigint PRIMARY KEY, due double precision, returned double precision, book bigint REFERENCES book(id))")
        try run("CREATE INDEX loan_returned ON loan (returned)"); try run("CREATE INDEX loan_due ON loan (due)"); try run("CREATE INDEX loan_book ON loan (book)")
        try run("BEGIN")
        try pipeline("INSERT INTO writer VALUES ($1, $2)", data.writers) { b, w in b.append(Int64(w + 1)); b.append(data.name(w)) }
        try pipeline("INSERT INTO book VALUES ($1, $2, $3, $4)", data.books) { b, i in
            b.append(Int64(i + 1)); b.append(data.title(i)); b.append(data.pages(i)); b.append(Int64(data.writer(i) + 1))
        }
        try pipeline("INSERT INTO book_author VALUES ($1, $2)", data.books * 2) { b, i in b.append(Int64(i / 2 + 1)); b.append(Int64(data.authors(i / 2)[i % 2] + 1)) }
        try restore(Array(0..<data.loans), transaction: false)
        try run("COMMIT")
        try run("ANALYZE")
    }
    deinit { try? connection.close().wait() }

    /// `ANALYZE` of the store's tables in `schema`, as the floor's were after loading (a server's
    /// autovacuum does it a while after a bulk load; without statistics the planner takes a table of
    /// 20,000 rows for one of 89 and groups by sorting).
    func analyzeStore(schema: String) throws {
        let tables = ["Book", "Book.authors", "Loan", "Writer"].map { "\"\(schema)\".\"\($0)\"" }
        try run("ANALYZE " + tables.joined(separator: ", "))
    }

    private func run(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws {
        _ = try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait()
    }
    private func rows(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        try connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).wait().rows
    }
    private func pipeline(_ sql: String, _ count: Int, _ bind: (inout PostgresBindings, Int) -> Void) throws {
        var pending: [EventLoopFuture<PostgresQueryResult>] = []
        for i in 0..<count {
            var bindings = PostgresBindings()
            bind(&bindings, i)
            pending.append(connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger))
        }
        for future in pending { _ = try future.wait() }
    }
    func list() throws -> [String] {
        try rows(libraryListSQL).map { row in
            let cells = row.makeRandomAccess()
            return "\(try cells[0].decode(String.self))|\(try cells[1].decode(String.self))"
        }
    }
    func report() throws -> [String] {
        try rows(libraryReportSQL).map { row in
            let cells = row.makeRandomAccess()
            return "\(try cells[0].decode(String.self))|\(try cells[1].decode(Int64.self))"
        }
    }
    func authorsReport() throws -> [String] {
        try rows(libraryAuthorsReportSQL).map { row in
            let cells = row.makeRandomAccess()
            return "\(try cells[0].decode(String.self))|\(try cells[1].decode(Int64.self))"
        }
    }
    func count(before day: Date) throws -> Int {
        var bindings = PostgresBindings()
        bindings.append(day.timeIntervalSinceReferenceDate)
        return Int(try rows("SELECT count(*) FROM loan WHERE returned IS NULL AND due < $1", bindings)[0].makeRandomAccess()[0].decode(Int64.self))
    }
    func cleanUp(before day: Date) throws -> Int {
        var bindings = PostgresBindings()
        bindings.append(day.timeIntervalSinceReferenceDate)
        return try rows("DELETE FROM loan WHERE returned < $1 RETURNING id", bindings).count
    }
    func restore(_ loans: [Int]) throws { try restore(loans, transaction: true) }
    private func restore(_ loans: [Int], transaction: Bool) throws {
        if transaction { try run("BEGIN") }
        try pipeline("INSERT INTO loan VALUES ($1, $2, $3, $4)", loans.count) { b, index in
            let l = loans[index]
            b.append(Int64(l + 1)); b.append(data.due(l).timeIntervalSinceReferenceDate)
            if let returned = data.returned(l) { b.append(returned.timeIntervalSinceReferenceDate) } else { b.appendNull() }
            b.append(Int64(data.loanBook(l) + 1))
        }
        if transaction { try run("COMMIT") }
    }
}

/// The library section of `make bench-postgres`: 20,000 books (200,000 with MODELGEN_BENCH_LIBRARY_LARGE=1;
/// MODELGEN_BENCH_LIBRARY_SMALL=0 leaves out the 20,000, as in the SQLite section).
@MainActor func runPostgresLibraryBench() throws {
    var sizes = ProcessInfo.processInfo.environment["MODELGEN_BENCH_LIBRARY_SMALL"] == "0" ? [] : [20_000]
    if ProcessInfo.processInfo.environment["MODELGEN_BENCH_LIBRARY_LARGE"] == "1" { sizes.append(200_000) }
    for books in sizes {
        let data = LibraryData(books: books)
        let floor = try PostgresLibraryFloor(try benchPostgresConfiguration("bench_library_raw_\(getpid())_\(books)"), data: data)
        let configuration = try benchPostgresConfiguration("bench_library_\(getpid())_\(books)")
        let container = try ManagedContainer(model: libraryModel, postgres: configuration)
        try runLibraryQuestions(container, floor, data, rounds: books > 20_000 ? 5 : 11, store: "PostgreSQL", floorName: "PostgresNIO",
                                afterFill: { try floor.analyzeStore(schema: configuration.schema) },
                                reopen: { (try PostgresLibraryFloor(try benchPostgresConfiguration("bench_library_raw_\(getpid())_\(books)"), data: data, fill: false),
                                           try ManagedContainer(model: libraryModel, postgres: configuration)) })
    }
}

/// The child of the propagation measure: prints the time each change set arrives.
func runPostgresListener(schema: String, count: Int) async throws {
    let container = try ManagedContainer(model: model, postgres: try benchPostgresConfiguration(schema))
    container.watchOtherProcesses()
    let changes = container.changes
    print("ready")
    fflush(nil)
    var heard = 0
    for await _ in changes {
        print(DispatchTime.now().uptimeNanoseconds)
        heard += 1
        if heard == count { break }
    }
    fflush(nil)
}
#endif
