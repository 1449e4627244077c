import CSQLite
import Foundation
import ModelgenPredicate

/// An error of the SQLite store: a failing SQLite call, or a store the model cannot open.
public enum SQLiteStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// SQLite refused a statement: its result code, its message and the statement.
    case sqlite(code: Int32, message: String, statement: String)
    /// The file's recorded model cannot be migrated to the current one; the file was left untouched.
    case incompatibleModel(path: String, problems: [String])
    /// The file is not a modelgen store (or is a newer format).
    case notAStore(path: String, reason: String)
    /// A save held a value SQLite cannot keep as it is (NaN reads back as NULL); it wrote nothing.
    case unstorableValue(entity: String, key: String, record: String, reason: String)
    /// The file cannot be opened (missing, no permission, its directory not writable for the journal files).
    case cannotOpen(path: String, reason: String)
    /// The store cannot be written: the file or its directory is read-only, or the store was opened
    /// with `SQLiteConfiguration.readOnly`. Nothing was written.
    case readOnly(path: String, reason: String)
    /// The disk (or the file system's quota) is full: the statement wrote nothing, a save's transaction
    /// was rolled back, and the context keeps its changes to save again once there is space.
    case diskFull(path: String, statement: String)
    /// SQLite found the file damaged (a corrupted page, a truncated file); the store did not write to it.
    case corrupted(path: String, reason: String)
    /// Another connection (another process, or another store on the same file) held the database
    /// locked for longer than the busy timeout; the statement did nothing (a save wrote nothing).
    case busy(path: String, timeoutMilliseconds: Int32, statement: String)

    public var description: String {
        switch self {
        case .sqlite(let code, let message, let statement):
            return "SQLite error \(code): \(message)" + (statement.isEmpty ? "" : " (in: \(statement))")
        case .incompatibleModel(let path, let problems):
            return "\(path): the store was written with a model this one cannot migrate to automatically; the file was not changed:\n"
                + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .notAStore(let path, let reason):
            return "\(path): not a modelgen store: \(reason)"
        case .unstorableValue(let entity, let key, let record, let reason):
            return "\(entity).\(key) (\(record)): \(reason); the save wrote nothing"
        case .cannotOpen(let path, let reason):
            return "\(path): cannot open the store: \(reason)"
        case .readOnly(let path, let reason):
            return "\(path): the store is read-only: \(reason)"
        case .diskFull(let path, let statement):
            return "\(path): the disk is full; nothing was written (the save can be repeated once there is space)"
                + (statement.isEmpty ? "" : " (in: \(statement))")
        case .corrupted(let path, let reason):
            return "\(path): the store file is damaged: \(reason); it was not changed"
        case .busy(let path, let timeout, let statement):
            return "\(path): the database stayed locked by another connection for longer than the busy timeout (\(timeout) ms); "
                + "nothing was changed" + (statement.isEmpty ? "" : " (in: \(statement))")
        }
    }
}

/// SQLite's "copy the bytes now" destructor.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// One SQLite database connection. Not thread-safe by itself: `SQLiteConnectionPool` gives it to one
/// thread at a time.
final class SQLiteConnection: SQLStatementRunning {
    private(set) var handle: OpaquePointer?
    let path: String
    let busyTimeoutMilliseconds: Int32
    private var statements: [String: SQLiteStatement] = [:]
    /// Statements binding a list of keys (`IN (?, ?, …)`), by their text with the list left out and the
    /// list's width: a list of thousands of placeholders is neither rebuilt nor hashed to find its statement.
    private var keyListStatements: [KeyListShape: SQLiteStatement] = [:]
    /// The rows the last statement inserted, updated or deleted (`sqlite3_changes`).
    var changes: Int { Int(sqlite3_changes(handle)) }
    /// Counts the statements this connection runs, when the configuration asks for it.
    private let statementCounter: StatementCounter?

    /// Opens (creating when asked) the database file, read-only when the configuration says so. A file
    /// SQLite can only read (its permissions) is refused for writing here, not at the first save.
    init(path: String, create: Bool, configuration: SQLiteConfiguration) throws {
        self.path = path
        self.busyTimeoutMilliseconds = configuration.busyTimeoutMilliseconds
        statementCounter = configuration.statementCounter
        var flags = SQLITE_OPEN_NOMUTEX | (configuration.readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE)
        if create && !configuration.readOnly { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &handle, flags, configuration.vfs)
        guard code == SQLITE_OK else {
            let reason = Self.reason(handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory", handle)
            sqlite3_close_v2(handle)
            handle = nil
            if code & 0xFF == SQLITE_CANTOPEN && !configuration.readOnly && !FileManager.default.isWritableFile(atPath: path)
                && FileManager.default.fileExists(atPath: path) {
                throw SQLiteStoreError.readOnly(path: path, reason: Self.notWritable)
            }
            throw SQLiteStoreError.cannotOpen(path: path, reason: reason)
        }
        if !configuration.readOnly && sqlite3_db_readonly(handle, "main") == 1 {
            sqlite3_close_v2(handle)
            handle = nil
            throw SQLiteStoreError.readOnly(path: path, reason: Self.notWritable)
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        registerFunctions()
        if let statementCounter {
            // The SQL of each statement SQLite starts, as written: queries, and writes apart (not
            // transaction control or pragmas).
            sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, _, sql in
                guard let context, let sql else { return 0 }
                let text = sql.assumingMemoryBound(to: CChar.self)
                let counter = Unmanaged<StatementCounter>.fromOpaque(context).takeUnretainedValue()
                if strncmp(text, "SELECT", 6) == 0 {
                    counter.increment()
                } else if strncmp(text, "INSERT", 6) == 0 || strncmp(text, "UPDATE", 6) == 0 || strncmp(text, "DELETE", 6) == 0
                            || strncmp(text, "CREATE", 6) == 0 || strncmp(text, "ALTER ", 6) == 0 || strncmp(text, "DROP ", 5) == 0 {
                    counter.incrementWrites()
                }
                return 0
            }, Unmanaged.passUnretained(statementCounter).toOpaque())
        }
    }

    deinit {
        statements.removeAll()
        keyListStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Runs statements without results (several, separated by semicolons).
    package func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? "error \(code)"
            sqlite3_free(message)
            throw error(code, sql, message: text)
        }
    }

    /// A prepared statement, cached by its text (reset and unbound, ready for new bindings).
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = statement
        return statement
    }

    /// The statement `sql(placeholders)` with `width` placeholders in its list, from the cache when
    /// this connection prepared it before; `shape` is its text with the list left out (the cache's key).
    func statement(shape: String, keyListWidth width: Int, _ sql: (String) -> String) throws -> SQLiteStatement {
        let key = KeyListShape(text: shape, width: width)
        if let cached = keyListStatements[key] {
            cached.reset()
            return cached
        }
        let statement = try SQLiteStatement(connection: self, sql: sql(Array(repeating: "?", count: width).joined(separator: ", ")))
        keyListStatements[key] = statement
        return statement
    }

    /// What finds a statement binding a list of keys: its text without the list, and the list's width.
    private struct KeyListShape: Hashable {
        let text: String
        let width: Int
    }

    /// Runs `body` in one write transaction (BEGIN IMMEDIATE … COMMIT); rolls back when it throws.
    func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a savepoint of the transaction in progress; rolls back to it when `body` throws.
    func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(begin: "SAVEPOINT \"modelgen.save\"", commit: "RELEASE \"modelgen.save\"",
                          rollback: ["ROLLBACK TO \"modelgen.save\"", "RELEASE \"modelgen.save\""], body)
    }

    /// The error of a failed call: `.busy` when another connection's lock outlasted the busy timeout,
    /// `UniquenessViolationError` when a unique index (a uniqueness constraint of the model) refused a row.
    func error(_ code: Int32, _ sql: String, message: String? = nil) -> any Error {
        let text = message ?? String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_BUSY: return SQLiteStoreError.busy(path: path, timeoutMilliseconds: busyTimeoutMilliseconds, statement: sql)
        case SQLITE_FULL: return SQLiteStoreError.diskFull(path: path, statement: sql)
        case SQLITE_CORRUPT: return SQLiteStoreError.corrupted(path: path, reason: text)
        case SQLITE_NOTADB: return SQLiteStoreError.notAStore(path: path, reason: "it is not a SQLite database (\(text))")
        case SQLITE_READONLY: return SQLiteStoreError.readOnly(path: path, reason: Self.reason(text, handle))
        case SQLITE_CANTOPEN: return SQLiteStoreError.cannotOpen(path: path, reason: Self.reason(text, handle) + (sql.isEmpty ? "" : " (in: \(sql))"))
        default: break
        }
        if code & 0xFF == SQLITE_CONSTRAINT && sqlite3_extended_errcode(handle) == SQLITE_CONSTRAINT | (8 << 8) {   // SQLITE_CONSTRAINT_UNIQUE
            // SQLite names the columns, not the index: the context checks every constraint again.
            return UniquenessViolationError(entityName: "", constraint: [], message: text)
        }
        return SQLiteStoreError.sqlite(code: code, message: text, statement: sql)
    }

    /// Why a file the process cannot write is refused for writing.
    static let notWritable = "the file is not writable (open it with SQLiteConfiguration(readOnly: true) to read it)"

    /// SQLite's message with the operating system's reason, when a system call failed (`Permission denied`).
    private static func reason(_ message: String, _ handle: OpaquePointer?) -> String {
        let number = handle.map { sqlite3_system_errno($0) } ?? 0
        return number == 0 ? message : "\(message): \(String(cString: strerror(number)))"
    }

    /// The functions the predicate translation calls for string operators with [c]/[d] options,
    /// LIKE and MATCHES: the same Swift code the in-memory evaluator uses, so both agree.
    private func registerFunctions() {
        // mg_fold(text, options): the text folded as the options ask (1 = [c], 2 = [d]).
        sqlite3_create_function_v2(handle, "mg_fold", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, count, values in
            guard let values, let text = sqliteText(values[0]) else { sqlite3_result_null(context); return }
            let options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(values[1])))
            let folded = PredicateEvaluator.fold(text, options)
            withSQLiteText(folded) { sqlite3_result_text(context, $0, $1, transient) }
        }, nil, nil, nil)
        // mg_match(operator, options, text, pattern): 1 when the string operator holds.
        sqlite3_create_function_v2(handle, "mg_match", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, { context, count, values in
            guard let values, let op = sqliteText(values[0]).flatMap(ComparisonOperator.init(rawValue:)),
                  let text = sqliteText(values[2]), let pattern = sqliteText(values[3]) else {
                sqlite3_result_int(context, 0); return
            }
            let options = ComparisonOptions(rawValue: UInt8(truncatingIfNeeded: sqlite3_value_int(values[1])))
            sqlite3_result_int(context, PredicateEvaluator.matchString(text, op, pattern, options) ? 1 : 0)
        }, nil, nil, nil)
    }
}

private func sqliteText(_ value: OpaquePointer?) -> String? {
    guard let value, sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
}

/// Calls `body` with a string's UTF-8 bytes and their count. Text goes to SQLite with its length,
/// never NUL-terminated: a string holding U+0000 would otherwise be cut there, silently.
func withSQLiteText<R>(_ string: String, _ body: (UnsafePointer<CChar>, Int32) -> R) -> R {
    var string = string
    return string.withUTF8 { bytes in
        let start = UnsafeRawPointer(bytes.baseAddress ?? StaticString("").utf8Start)
        return body(start.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
    }
}

/// A prepared statement: bind by position (1-based), step, read columns (0-based).
final class SQLiteStatement {
    /// Unowned: the connection caches its statements, and a strong reference back made a cycle that
    /// kept every connection, and its database files, open after its store was gone (found by
    /// fuzz-sqlite: "too many open files"). A statement is used only while its connection is.
    private unowned let connection: SQLiteConnection
    /// Set once (a `let`: every column read and bind uses it, and a `var` would be checked for
    /// exclusive access on each).
    let handle: OpaquePointer?
    let sql: String

    init(connection: SQLiteConnection, sql: String) throws {
        self.connection = connection
        self.sql = sql
        var handle: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &handle, nil)
        guard code == SQLITE_OK else {
            // Thrown before `self.handle` is set: the object is not fully initialized, so no deinit.
            sqlite3_finalize(handle)
            throw connection.error(code, sql)
        }
        self.handle = handle
    }

    deinit {
        sqlite3_finalize(handle)
        textArena?.deallocate()
    }

    // Text bound with `bindRowText(_:at:)`: copied here and bound SQLITE_STATIC, so SQLite neither
    // allocates a copy of each value nor frees it when the next row's value replaces it (a save binds
    // each string of each saved row). SQLite keeps pointing into the arena after a step, until the
    // parameter is bound again: so the arena is only reused (`beginRow()`) by code that binds every
    // parameter of the statement for each row, as the store's row writes do.
    private var textArena: UnsafeMutablePointer<CChar>?
    private var textArenaUsed = 0
    private static let textArenaCapacity = 4096

    /// Starts binding a row's values with `bindRowText(_:at:)`: the text bound for the previous row is
    /// overwritten, so every parameter of the statement must be bound again before the next step.
    func beginRow() { textArenaUsed = 0 }

    /// Binds text for the current row (see `beginRow()`): through the arena when it has room, else as a
    /// copy SQLite makes.
    func bindRowText(_ string: String, at index: Int32) {
        withSQLiteText(string) { bytes, count in
            let length = Int(count)
            guard length <= Self.textArenaCapacity - textArenaUsed else {
                _ = sqlite3_bind_text(handle, index, bytes, count, transient)
                return
            }
            let arena = textArena ?? {
                let made = UnsafeMutablePointer<CChar>.allocate(capacity: Self.textArenaCapacity)
                textArena = made
                return made
            }()
            let start = arena + textArenaUsed
            start.update(from: bytes, count: length)
            textArenaUsed += length
            _ = sqlite3_bind_text(handle, index, start, count, nil)   // nil: SQLITE_STATIC
        }
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    func bind(_ value: SQLiteValue, at index: Int32) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .real(let v): sqlite3_bind_double(handle, index, v)
        case .text(let v): withSQLiteText(v) { _ = sqlite3_bind_text(handle, index, $0, $1, transient) }
        case .blob(let v):
            v.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), transient)
            }
        }
    }

    func bind(_ values: [SQLiteValue]) {
        for (offset, value) in values.enumerated() { bind(value, at: Int32(offset + 1)) }
    }

    /// Runs a statement that returns no rows with the bindings it has, then resets it for the next ones.
    func execute() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Advances to the next row; false when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        throw connection.error(code, sql)
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [SQLiteValue] = []) throws {
        bind(values)
        try execute()
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    func text(_ column: Int32) -> String { textIfPresent(column) ?? "" }
    /// The column's text; nil for NULL.
    func textIfPresent(_ column: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, column) else { return nil }
        // The length, not the first NUL, ends the text (read after the text, as SQLite asks).
        return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, column))), as: UTF8.self)
    }
    func blob(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let bytes = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: bytes, count: count)
    }
    func value(_ column: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .text(text(column))
        }
    }
}

/// A value as SQLite binds and returns it.
enum SQLiteValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
