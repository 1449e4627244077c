import CSQLite
import Foundation
import Synchronization

/// A count of the queries a store's connections ran (see `SQLiteConfiguration.statementCounter`).
final class StatementCounter: Sendable, Hashable {
    private let value = Atomic<Int>(0)
    private let writeValue = Atomic<Int>(0)
    /// The queries (`SELECT`) run so far.
    var count: Int { value.load(ordering: .relaxed) }
    /// The statements that change the database (`INSERT`, `UPDATE`, `DELETE`, `CREATE`, …; not
    /// transaction control or `PRAGMA`) run so far.
    var writes: Int { writeValue.load(ordering: .relaxed) }
    func increment() { value.add(1, ordering: .relaxed) }
    func incrementWrites() { writeValue.add(1, ordering: .relaxed) }
    static func == (a: StatementCounter, b: StatementCounter) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// How a `SQLiteStore` uses its file under concurrency.
public struct SQLiteConfiguration: Sendable, Hashable {
    /// The most reader connections open at once; reads beyond it wait for a free one. Readers never
    /// wait for the writer (WAL mode): a fetch on the main context runs while a background save commits.
    public var maximumReaderCount: Int
    /// How long a statement waits for a lock another process (or another store on the same file)
    /// holds before failing with `SQLiteStoreError.busy`. A save that fails so writes nothing.
    public var busyTimeout: Duration
    /// Whether opening the file with a model that removed stored entities, attributes or relationships
    /// drops them with their data (`.dropRemoved`) or refuses (`.additive`, the default).
    public var migration: MigrationPolicy
    /// Opens the file for reading only: nothing is created, migrated or written, and saves throw
    /// `SQLiteStoreError.readOnly`. For a store on read-only media or in a directory this process may
    /// not write; the model must be the one the store was written with (no migration runs).
    public var readOnly: Bool
    /// The name of a registered SQLite VFS (`sqlite3_vfs_register`) the connections open the file
    /// through; nil for SQLite's default. The tests use one to inject storage faults (a full disk).
    public var vfs: String?
    /// Counts the queries (`SELECT` statements) the store's connections run (SQLite's statement
    /// trace), for tests that check how many queries an operation costs; nil (the default) traces nothing.
    var statementCounter: StatementCounter?

    /// Four readers, a five-second busy timeout, additive migrations, read-write, SQLite's default VFS.
    public init(maximumReaderCount: Int = 4, busyTimeout: Duration = .seconds(5), migration: MigrationPolicy = .additive,
                readOnly: Bool = false, vfs: String? = nil) {
        self.maximumReaderCount = max(1, maximumReaderCount)
        self.busyTimeout = busyTimeout
        self.migration = migration
        self.readOnly = readOnly
        self.vfs = vfs
    }

    var busyTimeoutMilliseconds: Int32 { Int32(clamping: busyTimeout.wholeMilliseconds) }
}

extension Duration {
    /// The duration in whole milliseconds (SQLite's busy timeout, PostgreSQL's lock timeout).
    package var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

/// One writer connection and a pool of reader connections on one SQLite file in WAL mode (the shape
/// of GRDB's `DatabasePool`). Writes are serialized on the writer; each read runs in its own read
/// transaction on a reader, so it sees one committed state from start to end and never a part of a
/// save. Removing external files a save no longer refers to is deferred until every read that began
/// before that save has ended (such a read's snapshot may still name them).
final class SQLiteConnectionPool: @unchecked Sendable {
    // @unchecked: the writer is used under `writerLock` only; the readers and the bookkeeping below
    // under `readers` (an NSCondition) only; each reader connection by one thread at a time.
    let path: String
    let configuration: SQLiteConfiguration
    private let writer: SQLiteConnection
    private let writerLock = NSLock()
    private let readers = NSCondition()
    private var idleReaders: [SQLiteConnection] = []
    private var openReaderCount = 0
    /// Completed write transactions of this pool; reads record the count when they begin.
    private var commitCount = 0
    /// The commit count at the start of each read in progress.
    private var activeReadStarts: [Int: Int] = [:]
    private var nextReadNumber = 0
    /// Work deferred until no read older than the commit that asked for it is in progress.
    private var deferred: [(afterCommit: Int, work: () -> Void)] = []
    /// A migration stage's pool: the writer is in the stage's transaction, so reads use it too (they
    /// see the stage's writes) and a write transaction is a savepoint in it.
    private let sharesTransaction: Bool

    /// Opens the writer (creating the file when missing); readers open on demand.
    init(path: String, configuration: SQLiteConfiguration) throws {
        self.path = path
        self.configuration = configuration
        writer = try SQLiteConnection(path: path, create: !configuration.readOnly, configuration: configuration)
        sharesTransaction = false
    }

    /// A pool for a migration stage: `connection` (a writer in the stage's transaction) does every read
    /// and write, and each save is a savepoint, so the stage's saves commit with the stage or not at all.
    init(stageConnection connection: SQLiteConnection, path: String, configuration: SQLiteConfiguration) {
        self.path = path
        self.configuration = configuration
        writer = connection
        sharesTransaction = true
    }

    /// Throws `SQLiteStoreError.readOnly` when the store was opened read-only.
    func requireWritable() throws {
        if configuration.readOnly { throw SQLiteStoreError.readOnly(path: path, reason: "it was opened read-only (SQLiteConfiguration.readOnly); nothing was written") }
    }

    /// Runs `body` with the writer, one caller at a time (a write transaction is the body's to begin).
    func write<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        writerLock.lock()
        defer { writerLock.unlock() }
        return try body(writer)
    }

    /// Runs `body` in one write transaction on the writer; `committed` runs right after the commit,
    /// while the writer is held (before any later commit); `afterCommit` runs once no read that could
    /// still see the state before this commit is in progress (at once when none is).
    func writeTransaction<T>(_ body: (SQLiteConnection) throws -> T, committed: ((T) -> Void)? = nil, afterCommit: (() -> Void)? = nil) throws -> T {
        try requireWritable()
        return try write { connection in
            if sharesTransaction { return try connection.inSavepoint { try body(connection) } }
            let result = try connection.inTransaction { try body(connection) }
            committed?(result)   // before the next commit: the writer is still held
            readers.lock()
            commitCount += 1
            if let afterCommit { deferred.append((commitCount, afterCommit)) }
            let ready = takeReadyWork()
            readers.unlock()
            ready.forEach { $0() }
            return result
        }
    }

    /// Runs `body` with a reader connection; with `snapshot`, inside one read transaction, so several
    /// statements see one committed state (one statement always does: it needs no transaction of its own).
    func read<T>(snapshot: Bool, _ body: (SQLiteConnection) throws -> T) throws -> T {
        if sharesTransaction { return try write(body) }
        let (connection, readNumber) = try acquireReader()
        defer { releaseReader(connection, readNumber: readNumber) }
        guard snapshot else { return try body(connection) }
        return try connection.inTransaction(begin: "BEGIN DEFERRED") { try body(connection) }
    }

    private func acquireReader() throws -> (SQLiteConnection, Int) {
        readers.lock()
        while idleReaders.isEmpty && openReaderCount >= configuration.maximumReaderCount { readers.wait() }
        nextReadNumber += 1
        let readNumber = nextReadNumber
        activeReadStarts[readNumber] = commitCount
        if let connection = idleReaders.popLast() {
            readers.unlock()
            return (connection, readNumber)
        }
        openReaderCount += 1
        readers.unlock()
        do {
            let connection = try SQLiteConnection(path: path, create: false, configuration: configuration)
            try connection.execute("PRAGMA query_only = 1")
            return (connection, readNumber)
        } catch {
            readers.lock()
            openReaderCount -= 1
            activeReadStarts[readNumber] = nil
            readers.signal()
            readers.unlock()
            throw error
        }
    }

    private func releaseReader(_ connection: SQLiteConnection, readNumber: Int) {
        readers.lock()
        idleReaders.append(connection)
        activeReadStarts[readNumber] = nil
        let ready = takeReadyWork()
        readers.signal()
        readers.unlock()
        ready.forEach { $0() }
    }

    /// Removes and returns the deferred work no read in progress can still need undone (under `readers`).
    private func takeReadyWork() -> [() -> Void] {
        guard !deferred.isEmpty else { return [] }
        let oldestRead = activeReadStarts.values.min() ?? .max
        var ready: [() -> Void] = []
        deferred.removeAll { entry in
            guard entry.afterCommit <= oldestRead else { return false }
            ready.append(entry.work)
            return true
        }
        return ready
    }
}
