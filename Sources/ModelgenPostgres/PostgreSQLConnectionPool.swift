#if PostgreSQL
import Foundation
import Synchronization
import PostgresNIO
import ModelgenRuntime

/// A few PostgresNIO connections handed to one caller at a time. The runtime's store interface is
/// synchronous, so calls wait for NIO's futures on the calling thread (never on an event loop):
/// the work runs on NIO's event loops and needs no thread of Swift's concurrency pool, which a
/// context's caller may be blocking.
final class PostgreSQLConnectionPool: @unchecked Sendable {
    // @unchecked: `idle` and `openCount` are used under `condition` only; a connection is used by the
    // one caller that took it.
    let configuration: PostgreSQLConfiguration
    private let condition = NSCondition()
    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var nextID = 0
    /// A migration stage's pool: this one connection, in the stage's transaction, does everything.
    private let pinned: PostgresConnection?

    init(configuration: PostgreSQLConfiguration) {
        self.configuration = configuration
        pinned = nil
    }

    /// A pool for a migration stage: every call uses `connection` (in the stage's transaction).
    init(configuration: PostgreSQLConfiguration, stageConnection connection: PostgresConnection) {
        self.configuration = configuration
        pinned = connection
    }

    /// Runs `body` with a connection of the pool (opening one when none is idle and the limit allows).
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        if let pinned { return try body(pinned) }
        let connection = try take()
        do {
            let result = try body(connection)
            give(connection)
            return result
        } catch {
            give(connection)
            throw error
        }
    }

    /// A new connection outside the pool (the notification listener's), its session set up.
    func connect() throws -> PostgresConnection {
        condition.lock()
        nextID += 1
        let id = nextID
        condition.unlock()
        let connection: PostgresConnection
        do {
            connection = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                        id: id, logger: quietLogger).wait()
        } catch {
            throw PostgreSQLStoreError.connection(String(reflecting: error))
        }
        do {
            try connection.execute("SET lock_timeout = \(configuration.lockTimeout.wholeMilliseconds)")
            try connection.execute("SET search_path TO \(PostgreSQLSQL.quote(configuration.schema))")
        } catch {
            try? connection.close().wait()
            throw error
        }
        return connection
    }

    private func take() throws -> PostgresConnection {
        condition.lock()
        while idle.isEmpty && openCount >= configuration.maximumConnections { condition.wait() }
        if let connection = idle.popLast() {
            condition.unlock()
            return connection
        }
        openCount += 1
        condition.unlock()
        do {
            return try connect()
        } catch {
            condition.lock()
            openCount -= 1
            condition.signal()
            condition.unlock()
            throw error
        }
    }

    /// Returns a connection; a closed one (the server went away) is dropped, and the next caller opens anew.
    private func give(_ connection: PostgresConnection) {
        condition.lock()
        if connection.isClosed {
            openCount -= 1
        } else {
            idle.append(connection)
        }
        condition.signal()
        condition.unlock()
    }

    deinit {
        // Waited for: a connection must be closed before it goes (PostgresNIO asserts it).
        for connection in idle { try? connection.close().wait() }
    }
}

/// What the store keeps for one open connection: the answers still awaited on it, failed when it
/// closes (one `closeFuture` callback a connection: a callback per statement would pile up on a
/// connection that lives for millions), and the statements prepared on it.
final class ConnectionSession: Sendable {
    private struct State {
        var waiting: [UInt64: @Sendable () -> Void] = [:]
        var next: UInt64 = 0
        var closed = false
        /// The names of the statements prepared on the connection, by their SQL and parameter types.
        var prepared: [String: String] = [:]
        var nextPrepared = 0
    }
    private let state = Mutex(State())
    private static let sessions = Mutex<[ObjectIdentifier: ConnectionSession]>([:])
    /// How many statements a connection prepares at most; others run unprepared.
    static let preparedLimit = 64

    /// The session of `connection`, made (and hooked to its closing) on first use.
    static func of(_ connection: PostgresConnection) -> ConnectionSession {
        let key = ObjectIdentifier(connection)
        let (session, isNew) = sessions.withLock { sessions in
            if let session = sessions[key] { return (session, false) }
            let session = ConnectionSession()
            sessions[key] = session
            return (session, true)
        }
        if isNew {
            connection.closeFuture.whenComplete { _ in
                sessions.withLock { _ = $0.removeValue(forKey: key) }
                session.close()
            }
        }
        return session
    }

    /// The name of the statement prepared (or to prepare) for `key`, a statement's SQL with its
    /// parameter types; nil once the connection has `preparedLimit` others (PostgresNIO keeps a
    /// connection's prepared statements until it closes).
    func preparedName(for key: String) -> String? {
        state.withLock { state in
            if let name = state.prepared[key] { return name }
            guard state.prepared.count < Self.preparedLimit else { return nil }
            state.nextPrepared += 1
            let name = "modelgen_\(state.nextPrepared)"
            state.prepared[key] = name
            return name
        }
    }

    /// Forgets the statement prepared for `key`: the next use prepares it again under a new name
    /// (PostgresNIO keeps the failure of a preparation for its name, such as a lock timeout while
    /// another connection altered the table).
    func forgetPrepared(_ key: String) {
        state.withLock { _ = $0.prepared.removeValue(forKey: key) }
    }

    /// `future`, or its failure when the connection closes before it completes.
    func answered<T: Sendable>(_ future: EventLoopFuture<T>, on eventLoop: any EventLoop) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        let id: UInt64? = state.withLock { state in
            guard !state.closed else { return nil }
            state.next += 1
            state.waiting[state.next] = { promise.fail(PostgreSQLStoreError.connection("the connection closed before the server answered")) }
            return state.next
        }
        guard let id else {
            promise.fail(PostgreSQLStoreError.connection("the connection closed before the server answered"))
            return promise.futureResult
        }
        future.whenComplete { [self] result in
            state.withLock { _ = $0.waiting.removeValue(forKey: id) }
            promise.completeWith(result)
        }
        return promise.futureResult
    }

    private func close() {
        let waiting = state.withLock { state in
            state.closed = true
            defer { state.waiting = [:] }
            return Array(state.waiting.values)
        }
        for fail in waiting { fail() }
    }
}

/// A logger that lets only critical events through (PostgresNIO logs every query at debug level).
let quietLogger: Logger = {
    var logger = Logger(label: "modelgen.postgres")
    logger.logLevel = .critical
    return logger
}()

extension PostgresConnection: SQLStatementRunning {
    /// Runs one statement without bindings.
    package func execute(_ sql: String) throws {
        _ = try rowsChanged(by: sql)
    }

    /// Runs one statement without bindings and returns the number of rows it inserted, updated or deleted.
    func rowsChanged(by sql: String) throws -> Int {
        do {
            return try answered(query(PostgresQuery(unsafeSQL: sql), logger: quietLogger)).wait().metadata.rows ?? 0
        } catch {
            throw PostgreSQLSQL.storeError(error, statement: sql)
        }
    }

    /// Runs one statement with bindings and returns its rows.
    func rows(_ sql: String, _ bindings: PostgresBindings = PostgresBindings()) throws -> [PostgresRow] {
        do {
            return try answered(query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: quietLogger)).wait().rows
        } catch {
            throw PostgreSQLSQL.storeError(error, statement: sql)
        }
    }

    /// Runs one statement with bindings of `types` (one a binding; `.null` for one whose type the
    /// statement infers) as a statement prepared on this connection, and returns its rows. PostgresNIO
    /// prepares it with its first use, in the same round trip; later ones only execute it, so the
    /// server parses it once per connection and may keep its plan (for statements whose parsing and
    /// planning cost more than running them). Past `ConnectionSession.preparedLimit` statements on a
    /// connection, it runs unprepared; after a failure, the next use prepares it again.
    func rows(prepared sql: String, types: [PostgresDataType], _ bindings: PostgresBindings) throws -> [PostgresRow] {
        let key = types.map { String($0.rawValue) }.joined(separator: ",") + ";" + sql
        let session = ConnectionSession.of(self)
        guard let name = session.preparedName(for: key) else { return try rows(sql, bindings) }
        let statement = PreparedStatement.Shape(name: name, sql: sql, types: types)
        do {
            return try waitingOnEventLoop {
                try await PreparedStatement.$shape.withValue(statement) {
                    var rows: [PostgresRow] = []
                    for try await row in try await self.execute(PreparedStatement(bindings: bindings), logger: quietLogger) { rows.append(row) }
                    return rows
                }
            }
        } catch {
            session.forgetPrepared(key)
            throw PostgreSQLSQL.storeError(error, statement: sql)
        }
    }

    /// Loads rows into `table` with `COPY … FROM STDIN` (text format): `data` holds them, one line
    /// each, columns in the order of `columns`. Waits for the server's answer on the calling thread
    /// (the copy runs on the connection's event loop). Statements sent before it go before it.
    func copy(into table: String, columns: [String], data: [ByteBuffer]) throws {
        do {
            try waitingOnEventLoop {
                try await self.copyFrom(table: table, columns: columns, logger: quietLogger) { writer in
                    for chunk in data { try await writer.write(chunk) }
                }
            }
        } catch {
            throw PostgreSQLSQL.storeError(error, statement: "COPY \(PostgreSQLSQL.quote(table)) FROM STDIN")
        }
    }

    /// Runs PostgresNIO's async `body` as a task on the connection's event loop and waits for it on the
    /// calling thread (failed at once if the connection closes first), as the synchronous store does.
    private func waitingOnEventLoop<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let promise = eventLoop.makePromise(of: T.self)
        Task.detached(executorPreference: EventLoopTaskExecutor(eventLoop)) {
            do {
                promise.succeed(try await body())
            } catch {
                promise.fail(error)
            }
        }
        return try answered(promise.futureResult).wait()
    }

    /// Sends one statement without waiting (statements sent in a row are pipelined on the connection).
    func send(_ sql: String, _ bindings: PostgresBindings) -> EventLoopFuture<PostgresQueryResult> {
        answered(query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: quietLogger))
    }

    /// `future`, failed with `PostgreSQLStoreError.connection` if the connection closes first (the
    /// server ended its process or restarted): a caller waiting for a statement's answer never waits
    /// for one that cannot come.
    func answered<T: Sendable>(_ future: EventLoopFuture<T>) -> EventLoopFuture<T> {
        ConnectionSession.of(self).answered(future, on: eventLoop)
    }
}

/// A statement whose SQL is known only at run time, for PostgresNIO's prepared statements (whose
/// protocol asks for the SQL, name and parameter types as static properties): they are read from
/// the task-local `shape`, which `rows(prepared:types:_:)` sets around the one call that reads them.
struct PreparedStatement: PostgresPreparedStatement {
    /// A statement's name on its connection, SQL and parameter types.
    struct Shape: Sendable {
        var name: String
        var sql: String
        var types: [PostgresDataType]
    }
    @TaskLocal static var shape = Shape(name: "", sql: "", types: [])
    static var name: String { shape.name }
    static var sql: String { shape.sql }
    static var bindingDataTypes: [PostgresDataType] { shape.types }

    var bindings: PostgresBindings
    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
#endif
