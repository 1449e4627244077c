#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO
import Synchronization

/// A store in a PostgreSQL database, for several app servers sharing one database: the same model,
/// contexts and generated classes as the SQLite store, with the same table layout (see
/// `PostgreSQLSQL`). Every save is one transaction: versions are checked under row locks (optimistic
/// locking: a lost race is a `MergeConflictError` naming the records), keys come from a sequence per
/// table, and the save's change set is written to `modelgen.history` and announced with `NOTIFY` in
/// the same transaction, so other containers on other connections merge it (`externalChangeCounter`
/// counts notifications; the container's watcher then reads the history after its last token, which
/// also catches up after a dropped connection). Opening creates the schema for the model, migrates
/// additive changes and renames in one transaction, or refuses with `incompatibleModel` and changes
/// nothing; `modelgen.metadata` records the layout and the model's version hash.
///
/// Fetches and counts run as one SQL statement (the SQLite store's translator in PostgreSQL's
/// dialect, see `PostgreSQLDialect` for how `[c]`, `[d]`, `LIKE` and `MATCHES` are done).
public final class PostgreSQLStore: QueryingStore, @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable value, of the pool (which hands a
    // connection to one caller at a time) or of `listener` (a Mutex).
    public let model: ManagedObjectModel
    /// How the store connects (host, database, pool size, TLS).
    public let configuration: PostgreSQLConfiguration
    let pool: PostgreSQLConnectionPool
    let layout: SQLLayout
    let channel: String
    private let notifications = NotificationCounter()
    private let listener = Mutex<PostgresConnection?>(nil)
    /// Held from taking the history lock until the committed change set is published (see `transaction`).
    private let commitOrder = NSLock()
    /// For a store of a migration stage (see `PostgreSQLMigrationTransaction`): hears the records each
    /// save wrote. Such a store writes no history, and its transactions are savepoints of the stage's.
    let stage: (@Sendable (Int) -> Void)?
    /// A stage's store for reading the old version: saves throw.
    private let refusesSaves: Bool
    /// The set-based deletion steps by the entity names a batch deletes (the layout stays as it is while the store is open).
    let deletionSteps = Locked<[[String]: SetBasedDeletionSteps]>([:])
    /// The one-statement batch deletes by their `DELETE` (see `deleteWithHistory`).
    let deleteStatements = Locked<[String: (sql: String, header: DeletedRows)]>([:])

    /// Connects, then creates or migrates the model's tables in `configuration.schema`: through the
    /// stages of `migrationPlan` when they were written with one of its earlier versions (see
    /// `MigrationPlan`), each stage in one transaction, under a lock that keeps other stores of the
    /// schema from opening until the migration ends.
    public init(model: ManagedObjectModel, configuration: PostgreSQLConfiguration, migrationPlan: MigrationPlan? = nil) throws {
        self.model = model
        self.configuration = configuration
        pool = PostgreSQLConnectionPool(configuration: configuration)
        channel = "modelgen." + configuration.schema
        stage = nil
        refusesSaves = false
        let schemaName = configuration.schema
        let schema: SQLSchema = try pool.withConnection { connection in
            let lock = Self.bindings { $0.append("modelgen." + schemaName) }
            if let migrationPlan {
                // A session lock over the stages (each commits on its own), released however they end.
                _ = try connection.rows("SELECT pg_advisory_lock(hashtext($1))", lock)
                defer { _ = try? connection.rows("SELECT pg_advisory_unlock(hashtext($1))", lock) }
                if let recorded = try Self.recordedSchema(connection, schema: schemaName), recorded.versionHash != model.versionHash {
                    for function in PostgreSQLDialect.functions { try connection.execute(function) }
                    let transaction = PostgreSQLMigrationTransaction(connection: connection, configuration: configuration)
                    _ = try StagedMigration(plan: migrationPlan, model: model, policy: configuration.migration).run(from: recorded) { body in
                        try connection.inTransaction { try body(transaction) }
                    }
                }
            }
            return try connection.inTransaction {
                _ = try connection.rows("SELECT pg_advisory_xact_lock(hashtext($1))", lock)
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(PostgreSQLSQL.quote(schemaName))")
                try connection.execute("CREATE TABLE IF NOT EXISTS \"modelgen.metadata\" (\"key\" text PRIMARY KEY, \"value\" text NOT NULL)")
                try connection.execute("""
                    CREATE TABLE IF NOT EXISTS "modelgen.history" ("token" bigserial PRIMARY KEY, "author" text NOT NULL, \
                    "timestamp" double precision NOT NULL, "changes" bytea NOT NULL)
                    """)
                try connection.execute(Self.historyCompression)
                let previous = try Self.recordedSchema(connection, schema: schemaName)
                for function in PostgreSQLDialect.functions { try connection.execute(function) }
                let plan = SQLSchemaPlanner(model: model, previous: previous).plan()
                let refusals = plan.refusals(under: configuration.migration)
                if !refusals.isEmpty { throw PostgreSQLStoreError.incompatibleModel(schema: schemaName, problems: refusals) }
                if previous != plan.schema {
                    try PostgreSQLMigrationTransaction(connection: connection, configuration: configuration).migrate(plan, from: previous, model: model)
                }
                // Join tables of stores made before the members index get it (no-ops once done).
                for join in plan.schema.entities.flatMap({ $0.relationships.compactMap(\.joinTable) }) {
                    for statement in SQLSchemaPlanner.joinIndexUpgrade(join) { try connection.execute(statement) }
                }
                try Self.orderNullsFirst(plan.modelIndexes, schema: schemaName, connection)
                return plan.schema
            }
        }
        layout = SQLLayout(schema: schema, model: model, dialect: PostgreSQLDialect())
    }

    /// A store of a migration stage on `connection` (in the stage's transaction), laid out as `schema`:
    /// nothing is created or migrated; `readOnly` makes saves throw.
    init(stage connection: PostgresConnection, model: ManagedObjectModel, configuration: PostgreSQLConfiguration, schema: SQLSchema,
         readOnly: Bool, onCommit: @escaping @Sendable (Int) -> Void) {
        self.model = model
        self.configuration = configuration
        pool = PostgreSQLConnectionPool(configuration: configuration, stageConnection: connection)
        channel = "modelgen." + configuration.schema
        stage = onCommit
        refusesSaves = readOnly
        layout = SQLLayout(schema: schema, model: model, dialect: PostgreSQLDialect())
    }

    /// The version hash (`ManagedObjectModel.versionHash`) of the model the schema `configuration`
    /// names was last written with, read without opening a store (nothing is migrated or created);
    /// nil when the schema holds no store.
    public static func recordedVersionHash(configuration: PostgreSQLConfiguration) throws -> String? {
        try PostgreSQLConnectionPool(configuration: configuration).withConnection { connection in
            try recordedSchema(connection, schema: configuration.schema)?.versionHash
        }
    }

    /// Makes again the model's indexes on columns that may hold NULL that keep it last (stores made
    /// before their indexes kept NULL first, the order a sort asks for): one catalog read when none does.
    static func orderNullsFirst(_ indexes: [SQLSchemaPlanner.ModelIndex], schema: String, _ connection: PostgresConnection) throws {
        let candidates = indexes.filter(\.ordersNulls)
        guard !candidates.isEmpty else { return }
        let stale = try connection.rows("SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND indexname = ANY($2) AND indexdef NOT LIKE '%NULLS FIRST%'",
                                        bindings { $0.append(schema); $0.append(candidates.map(\.name)) })
        let names = Set(try stale.map { try $0.makeRandomAccess()[0].decode(String.self) })
        for index in candidates where names.contains(index.name) {
            try connection.execute("DROP INDEX \(PostgreSQLSQL.quote(index.name))")
            try connection.execute(index.statement(nullsFirst: true))
        }
    }

    /// The layout `modelgen.metadata` records in `schema` (nil: none yet, or no such table).
    static func recordedSchema(_ connection: PostgresConnection, schema: String) throws -> SQLSchema? {
        let exists = try connection.rows("SELECT to_regclass($1) IS NOT NULL", bindings { $0.append(PostgreSQLSQL.quote(schema) + ".\"modelgen.metadata\"") })
        guard try exists.first?.makeRandomAccess()[0].decode(Bool.self) == true else { return nil }
        let recorded = try connection.rows("SELECT \"value\" FROM \"modelgen.metadata\" WHERE \"key\" = 'schema'")
        return try recorded.first.map { row -> SQLSchema in
            let json = try row.makeRandomAccess()[0].decode(String.self)
            guard let layout = try? JSONDecoder().decode(SQLSchema.self, from: Data(json.utf8)) else {
                throw PostgreSQLStoreError.incompatibleModel(schema: schema, problems: ["its recorded layout cannot be read"])
            }
            return layout
        }
    }

    /// Drops the model indexes an earlier model had and this one has not (a uniqueness constraint taken out).
    static func dropLeftoverIndexes(keeping names: Set<String>, schema: String, _ connection: PostgresConnection) throws {
        let indexes = try connection.rows("""
            SELECT indexname FROM pg_indexes WHERE schemaname = $1 AND (strpos(indexname, '.unique(') > 0 OR strpos(indexname, '.index(') > 0)
            """, bindings { $0.append(schema) })
        for row in indexes {
            let name = try row.makeRandomAccess()[0].decode(String.self)
            if !names.contains(name) { try connection.execute("DROP INDEX \(PostgreSQLSQL.quote(name))") }
        }
    }

    /// Records `schema` (and its model's version hash) in `modelgen.metadata`.
    static func record(_ schema: SQLSchema, _ connection: PostgresConnection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        let upsert = "INSERT INTO \"modelgen.metadata\" VALUES ($1, $2) ON CONFLICT (\"key\") DO UPDATE SET \"value\" = EXCLUDED.\"value\""
        _ = try connection.rows(upsert, bindings { $0.append("schema"); $0.append(json) })
        _ = try connection.rows(upsert, bindings { $0.append("modelVersionHash"); $0.append(schema.versionHash) })
    }

    deinit {
        listener.withLock { connection in try? connection?.close().wait() }
        notifications.finish()
    }

    static func bindings(_ fill: (inout PostgresBindings) throws -> Void) rethrows -> PostgresBindings {
        var bindings = PostgresBindings()
        try fill(&bindings)
        return bindings
    }

    func entity(_ name: String) throws -> SQLLayout.Entity {
        guard let entity = layout.entities[name] else { throw PostgreSQLStoreError.configuration("the model has no entity \(name)") }
        return entity
    }

    /// The shared reads on a connection of the pool.
    private func reads<T>(_ body: (SQLReads<PostgreSQLDriver>) throws -> T) throws -> T {
        try pool.withConnection { try body(SQLReads(layout: layout, executor: PostgreSQLDriver($0, store: self))) }
    }

    // MARK: Reading

    public func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        try reads { try $0.recordIDs(of: entityNames) }
    }

    public func row(for id: ObjectID) throws -> StoreRow? {
        try reads { reads in
            // One snapshot for the row and its to-many relationships (a stage's store is in the stage's).
            guard stage == nil else { return try reads.row(for: id) }
            return try reads.executor.connection.inTransaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") { try reads.row(for: id) }
        }
    }

    public func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        try reads { try $0.rows(for: ids) }
    }

    public func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] {
        let storage = try entity(id.entityName).storage[slot]
        return try reads { try $0.members(of: id, storage: storage) }
    }

    public func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] {
        try reads { try $0.toManyIDs(of: ids, relationship: slot) }
    }

    /// The member lists and the members' rows in one statement for a relationship kept by its inverse
    /// (`membersWithRowsSQL`): one round trip per such step of a prefetch instead of two.
    public func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?) {
        try reads { try $0.toManyMembersWithRows(of: ids, relationship: slot) }
    }

    // MARK: Fetching

    public func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool {
        try reads { try $0.fetch(query, each: body) }
    }

    public func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        try reads { try $0.aggregate(query, groupBy: groupBy, columns: columns) }
    }

    public func project(_ query: StoreQuery, properties: [ProjectedProperty]) throws -> [ProjectedRow]? {
        try reads { try $0.project(query, properties: properties) }
    }

    /// PostgreSQL's `EXPLAIN` of the query's SQL (`Index Scan using …`, `Seq Scan on …`), or what the
    /// translation to SQL could not express.
    public func queryPlan(_ query: StoreQuery) throws -> QueryPlan {
        try reads { try $0.queryPlan(query) }
    }

    public func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? {
        try reads { try $0.fetchIDs(query) }
    }

    public func count(_ query: StoreQuery) throws -> Int? {
        try reads { try $0.count(query) }
    }

    // MARK: Saving

    public func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        try transaction({ connection, history in
            let result = try SQLSave(layout: layout, model: model, changes: changes, driver: PostgreSQLDriver(connection, store: self)).run()
            if !changes.writesNothing { history = HistoryEntry(changes: ChangeSet(committed: changes, result: result), author: changes.author) }
            stage?(changes.inserted.count + changes.updated.count + changes.deleted.count)
            return result
        }, published: changes.published)
    }

    /// A transaction's history row: what it changed and who saved.
    struct HistoryEntry {
        var changes: ChangeSet
        var author: String
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it
    /// throws. BEGIN goes out with the body's first statement. The history row the body leaves in
    /// `history` goes out with COMMIT, pipelined (two round trips fewer), after a transaction-level
    /// lock that history rows are written under: tokens are then in commit order, so a reader of the
    /// history after a token never misses a save that committed later with a smaller one. The same
    /// order holds in this process: `published` hears the committed change set before another
    /// transaction of this store takes the lock (a process hears its own saves in commit order).
    func transaction<T>(_ body: (PostgresConnection, inout HistoryEntry?) throws -> T, published: (@Sendable (ChangeSet) -> Void)? = nil) throws -> T {
        if refusesSaves {
            throw PostgreSQLStoreError.incompatibleModel(schema: configuration.schema, problems: ["a migration stage's old version is for reading; save the stage's new context instead"])
        }
        if stage != nil { return try savepoint(body) }
        return try retryingDeadlocks { try transactionAttempt(body, published: published) }
    }

    /// Runs `attempt` (a transaction, or a statement of its own) again when PostgreSQL rolled it back:
    /// one of two transactions that wait for each other's locks (a deadlock) and, under SERIALIZABLE
    /// isolation set by a user's role, one that cannot be serialized. Nothing of it was written; it
    /// runs again, a few times.
    func retryingDeadlocks<T>(_ attempt: () throws -> T) throws -> T {
        var attempts = 1
        while true {
            do {
                return try attempt()
            } catch PostgreSQLStoreError.server(let state, _, _) where ["40P01", "40001"].contains(state) && attempts < 4 {
                attempts += 1
            }
        }
    }

    private func transactionAttempt<T>(_ body: (PostgresConnection, inout HistoryEntry?) throws -> T, published: (@Sendable (ChangeSet) -> Void)?) throws -> T {
        try pool.withConnection { connection in
            var pending = [connection.send("BEGIN", PostgresBindings())]
            var ordered = false
            defer { if ordered { commitOrder.unlock() } }
            do {
                var history: HistoryEntry?
                let result = try body(connection, &history)
                if let history {
                    let bindings = try historyBindings(history)
                    commitOrder.lock()
                    ordered = true
                    pending.append(connection.send(Self.historySQL, bindings))
                }
                let commit = connection.send("COMMIT", PostgresBindings())
                var failure: Error?
                for future in pending {
                    do { _ = try future.wait() } catch { failure = failure ?? error }
                }
                // After a failed statement, PostgreSQL answers COMMIT with a rollback.
                do { _ = try commit.wait() } catch { throw PostgreSQLSQL.storeError(error, statement: "COMMIT") }
                pending = []
                if let failure { throw PostgreSQLSQL.storeError(failure, statement: "a save's statements") }
                if let history { published?(history.changes) }
                return result
            } catch {
                for future in pending { _ = try? future.wait() }
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The name of the lock history rows are written under (one per schema).
    var historyLockName: String { "modelgen.history:" + configuration.schema }

    /// A migration stage's save: a savepoint of the stage's transaction (a failed statement rolls back
    /// to it, so the stage's code may catch the error and go on). A stage writes no history.
    private func savepoint<T>(_ body: (PostgresConnection, inout HistoryEntry?) throws -> T) throws -> T {
        try pool.withConnection { connection in
            try connection.execute("SAVEPOINT \"modelgen.save\"")
            do {
                var history: HistoryEntry?
                let result = try body(connection, &history)
                try connection.execute("RELEASE SAVEPOINT \"modelgen.save\"")
                return result
            } catch {
                try? connection.execute("ROLLBACK TO SAVEPOINT \"modelgen.save\"")
                throw error
            }
        }
    }

    /// A history row's changes are compressed with lz4 where the server has it (PostgreSQL 14 and
    /// later, built with lz4): a large row (a batch's records) is written several times faster than
    /// with the default pglz and still compressed. A server without it keeps pglz; a store's column is
    /// changed once, at its first opening.
    static let historyCompression = """
        DO $$ BEGIN
          IF (SELECT attcompression FROM pg_attribute
              WHERE attrelid = '"modelgen.history"'::regclass AND attname = 'changes') IS DISTINCT FROM 'l' THEN
            ALTER TABLE "modelgen.history" ALTER COLUMN "changes" SET COMPRESSION lz4;
          END IF;
        EXCEPTION WHEN feature_not_supported OR undefined_column THEN NULL;
        END $$
        """

    /// A save's history row and the notification naming its token (`mg_record_history`).
    private static let historySQL = "SELECT mg_record_history($1, $2, $3, $5, $4)"

    private func historyBindings(_ entry: HistoryEntry) throws -> PostgresBindings {
        try Self.bindings {
            $0.append(entry.author)
            $0.append(Date().timeIntervalSinceReferenceDate)
            try $0.append(entry.changes.historyJSON())
            $0.append(channel)
            $0.append(historyLockName)
        }
    }

    // MARK: History

    public func historyTransactions(after token: Int64) throws -> [HistoryTransaction] {
        try reads { try $0.historyTransactions(after: token) }
    }

    public func latestHistoryToken() throws -> Int64 {
        try reads { try $0.latestHistoryToken() }
    }

    public func pruneHistory(through token: Int64) throws {
        try pool.withConnection { connection in
            _ = try connection.rows("DELETE FROM \"modelgen.history\" WHERE \"token\" <= $1", Self.bindings { $0.append(token) })
        }
    }

    /// The number of save notifications heard on this store's channel (`LISTEN`, on a connection of
    /// its own, opened on the first call). A dropped listening connection is opened again on the next
    /// call, and the number moves, so the watcher reads the history it may have missed.
    public func externalChangeCounter() throws -> Int64? {
        try listener.withLock { current in
            if let current, !current.isClosed { return }
            let connection = try pool.connect()
            let notifications = self.notifications
            connection.addListener(channel: channel) { _, _ in notifications.heard() }
            try connection.execute("LISTEN \(PostgreSQLSQL.quote(channel))")
            if current != nil { notifications.heard() }   // reconnected: catch up
            current = connection
        }
        return notifications.count.load(ordering: .relaxed)
    }

    /// Wakes the container's watcher at each notification (so another server's save is read at once,
    /// not at the watcher's next interval).
    public func externalChangeSignals() -> AsyncStream<Void>? {
        notifications.signals()
    }
}

/// Save notifications heard (shared with the listener's handler), and the watchers to wake for each.
final class NotificationCounter: Sendable {
    let count = Atomic<Int64>(0)
    private let watchers = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])

    /// Counts a notification and wakes every watcher.
    func heard() {
        count.add(1, ordering: .relaxed)
        watchers.withLock { for continuation in $0.values { continuation.yield() } }
    }

    /// A stream of wake-ups, each notification one (the newest kept while the watcher is busy).
    func signals() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        watchers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.watchers.withLock { $0[id] = nil } }
        return stream
    }

    /// Ends every watcher's stream (each stream's termination handler takes the lock: finished outside it).
    func finish() {
        let continuations = watchers.withLock { watchers in
            defer { watchers = [:] }
            return Array(watchers.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}

extension ManagedContainer {
    /// A container over a PostgreSQL store (`PostgreSQLStore`), migrated through `migrationPlan`'s
    /// stages when the schema was written with an earlier version of the model.
    public convenience init(model: ManagedObjectModel, postgres configuration: PostgreSQLConfiguration,
                            migrationPlan: MigrationPlan? = nil) throws {
        self.init(model: model, store: try PostgreSQLStore(model: model, configuration: configuration, migrationPlan: migrationPlan))
    }
}
#endif
