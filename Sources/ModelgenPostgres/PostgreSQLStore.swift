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
public final class PostgreSQLStore: PersistentStore, @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable value, of the pool (which hands a
    // connection to one caller at a time) or of `listener` (a Mutex).
    public let model: ManagedObjectModel
    /// How the store connects (host, database, pool size, TLS).
    public let configuration: PostgreSQLConfiguration
    let pool: PostgreSQLConnectionPool
    let layout: SQLLayout
    private let entities: [String: PostgresEntity]
    private let tables: [String: PostgresTable]
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
                let previous = try Self.recordedSchema(connection, schema: schemaName)
                for function in PostgreSQLDialect.functions { try connection.execute(function) }
                let plan = SQLSchemaPlanner(model: model, previous: previous).plan()
                let refusals = plan.refusals(under: configuration.migration)
                if !refusals.isEmpty { throw PostgreSQLStoreError.incompatibleModel(schema: schemaName, problems: refusals) }
                if previous != plan.schema {
                    // What the model removed first (when allowed), then what it added.
                    let transaction = PostgreSQLMigrationTransaction(connection: connection, configuration: configuration)
                    try transaction.dropStorage(plan)
                    try transaction.addStorage(plan, previous: previous, model: model)
                    try transaction.record(plan.schema)
                }
                // Join tables of stores made before the members index get it (no-ops once done).
                for join in plan.schema.entities.flatMap({ $0.relationships.compactMap(\.joinTable) }) {
                    for statement in SQLSchemaPlanner.joinIndexUpgrade(join) { try connection.execute(statement) }
                }
                return plan.schema
            }
        }
        layout = SQLLayout(schema: schema, model: model)
        (tables, entities) = Self.statements(for: layout)
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
        layout = SQLLayout(schema: schema, model: model)
        (tables, entities) = Self.statements(for: layout)
    }

    /// The tables' and entities' statements of a layout.
    private static func statements(for layout: SQLLayout) -> (tables: [String: PostgresTable], entities: [String: PostgresEntity]) {
        var tables: [String: PostgresTable] = [:]
        for (name, table) in layout.tables { tables[name] = PostgresTable(name: name, columns: table.columns) }
        var entities: [String: PostgresEntity] = [:]
        for (name, entity) in layout.entities { entities[name] = PostgresEntity(entity, table: tables[entity.table]!) }
        return (tables, entities)
    }

    /// The version hash (`ManagedObjectModel.versionHash`) of the model the schema `configuration`
    /// names was last written with, read without opening a store (nothing is migrated or created);
    /// nil when the schema holds no store.
    public static func recordedVersionHash(configuration: PostgreSQLConfiguration) throws -> String? {
        try PostgreSQLConnectionPool(configuration: configuration).withConnection { connection in
            try recordedSchema(connection, schema: configuration.schema)?.versionHash
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

    func entity(_ name: String) throws -> PostgresEntity {
        guard let entity = entities[name] else { throw PostgreSQLStoreError.configuration("the model has no entity \(name)") }
        return entity
    }

    private func name(ofCode code: Int64) -> String { layout.namesByCode[code] ?? "" }

    // MARK: Reading

    public func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        var codesByTable: [String: [Int64]] = [:]
        for name in entityNames {
            let entity = try entity(name)
            codesByTable[entity.table.name, default: []].append(entity.code)
        }
        return try pool.withConnection { connection in
            var ids: [ObjectID] = []
            for (table, codes) in codesByTable.sorted(by: { $0.key < $1.key }) {
                let rows = try connection.rows("SELECT \"Z_PK\", \"Z_ENT\" FROM \(PostgreSQLSQL.quote(table)) WHERE \"Z_ENT\" = ANY($1) ORDER BY \"Z_PK\"",
                                               Self.bindings { $0.append(codes.map { Int32($0) }) })
                for row in rows {
                    let cells = row.makeRandomAccess()
                    ids.append(ObjectID(entityName: name(ofCode: Int64(try cells[1].decode(Int32.self))), key: try cells[0].decode(Int64.self)))
                }
            }
            return ids
        }
    }

    public func row(for id: ObjectID) throws -> StoreRow? {
        let entity = try entity(id.entityName)
        return try pool.withConnection { connection in
            // One snapshot for the row and its to-many relationships (a stage's store is in the stage's).
            if stage == nil { try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") }
            do {
                let rows = try connection.rows(entity.table.selectSQL + " WHERE \"Z_PK\" = $1 AND \"Z_ENT\" = $2",
                                               Self.bindings { $0.append(id.key); $0.append(Int32(entity.code)) })
                guard let first = rows.first else {
                    if stage == nil { try connection.execute("COMMIT") }
                    return nil
                }
                var row = try decode(first)
                for (slot, storage) in entity.layout.storage.enumerated() {
                    switch storage {
                    case .toManyByInverse, .toManyByJoin: row.values[slot] = .references(try toManyIDs(connection, id: id, storage: storage))
                    default: break
                    }
                }
                row.hasToManyValues = true
                if stage == nil { try connection.execute("COMMIT") }
                return row
            } catch {
                if stage == nil { try? connection.execute("ROLLBACK") }
                throw error
            }
        }
    }

    public func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        var keysByTable: [String: [Int64]] = [:]
        for id in ids {
            guard let entity = entities[id.entityName] else { continue }
            keysByTable[entity.table.name, default: []].append(id.key)
        }
        return try pool.withConnection { connection in
            var result: [StoreRow] = []
            result.reserveCapacity(ids.count)
            for (name, keys) in keysByTable.sorted(by: { $0.key < $1.key }) {
                guard let table = tables[name] else { continue }
                for row in try connection.rows(table.selectSQL + " WHERE \"Z_PK\" = ANY($1)", Self.bindings { $0.append(keys) }) {
                    result.append(try decode(row))
                }
            }
            return result
        }
    }

    public func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] {
        let entity = try entity(id.entityName)
        return try pool.withConnection { connection in try toManyIDs(connection, id: id, storage: entity.layout.storage[slot]) }
    }

    public func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] {
        guard let first = ids.first else { return [:] }
        var members = MemberLists(ids)
        guard let sql = layout.membersSQL(try entity(first.entityName).layout, slot: slot, owners: "= ANY($1)") else { return members.lists }
        let rows = try pool.withConnection { connection in try connection.rows(sql, Self.bindings { $0.append(members.ownerKeys) }) }
        for row in rows {
            let cells = row.makeRandomAccess()
            members.add(ObjectID(entityName: name(ofCode: try cells[2].decode(Int64.self)), key: try cells[1].decode(Int64.self)),
                        toOwnerKey: try cells[0].decode(Int64.self))
        }
        return members.lists
    }

    /// The member lists and the members' rows in one statement for a relationship kept by its inverse
    /// (`membersWithRowsSQL`): one round trip per such step of a prefetch instead of two.
    public func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?) {
        guard let first = ids.first else { return ([:], []) }
        guard let sql = layout.membersWithRowsSQL(try entity(first.entityName).layout, slot: slot, owners: "= ANY($1)",
                                                  selectList: { self.tables[$0]?.columns }) else {
            return (try toManyIDs(of: ids, relationship: slot), nil)
        }
        var members = MemberLists(ids)
        let found = try pool.withConnection { connection in try connection.rows(sql, Self.bindings { $0.append(members.ownerKeys) }) }
        var rows: [StoreRow] = []
        for found in found {
            let row = try decode(found, offset: 1)
            members.add(row.id, toOwnerKey: try found.makeRandomAccess()[0].decode(Int64.self))
            rows.append(row)
        }
        return (members.lists, rows)
    }

    private func toManyIDs(_ connection: PostgresConnection, id: ObjectID, storage: SQLLayout.Storage) throws -> [ObjectID] {
        let sql: String
        switch storage {
        case .toManyByInverse(let table, let inverse, let order):
            let orderBy = order.map { "\(PostgreSQLSQL.quote($0)), " } ?? ""
            sql = "SELECT \"Z_PK\", \"Z_ENT\"::bigint FROM \(PostgreSQLSQL.quote(table)) WHERE \(PostgreSQLSQL.quote(inverse)) = $1 ORDER BY \(orderBy)\"Z_PK\""
        case .toManyByJoin(let join):
            sql = "SELECT \(join.target), \(join.targetEntity) FROM \(join.t) WHERE \(join.source) = $1 ORDER BY \(join.position)"
        default:
            return []
        }
        return try connection.rows(sql, Self.bindings { $0.append(id.key) }).map { row in
            let cells = row.makeRandomAccess()
            return ObjectID(entityName: name(ofCode: try cells[1].decode(Int64.self)), key: try cells[0].decode(Int64.self))
        }
    }

    /// A row of a table's select list (from column `offset`): attributes and to-one relationships (to-many left out).
    private func decode(_ row: PostgresRow) throws -> StoreRow { try decode(row, offset: 0) }

    private func decode(_ row: PostgresRow, offset: Int) throws -> StoreRow {
        let cells = row.makeRandomAccess()
        let code = Int64(try cells[offset + 1].decode(Int32.self))
        guard let name = layout.namesByCode[code], let entity = entities[name] else {
            throw PostgreSQLStoreError.incompatibleModel(schema: configuration.schema, problems: ["a record has entity code \(code), which the model does not have"])
        }
        var values = [StoreValue](repeating: .null, count: entity.layout.storage.count)
        for (slot, storage) in entity.layout.storage.enumerated() {
            let column = offset + entity.columnIndex[slot]
            switch storage {
            case .attribute(_, let type, _):
                values[slot] = try PostgreSQLSQL.value(cells[column], type: type)
            case .toOne:
                if let key = try cells[column].decode(Int64?.self), let target = try cells[column + 1].decode(Int64?.self) {
                    values[slot] = .reference(ObjectID(entityName: self.name(ofCode: target), key: key))
                } else {
                    values[slot] = .reference(nil)
                }
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return StoreRow(id: ObjectID(entityName: name, key: try cells[offset].decode(Int64.self)), version: try cells[offset + 2].decode(Int64.self),
                        values: values, hasToManyValues: false)
    }

    // MARK: Fetching

    private func translator(_ query: StoreQuery) -> SQLQueryTranslator {
        SQLQueryTranslator(layout: layout, query: query, dialect: PostgreSQLDialect())
    }

    public func fetch(_ query: StoreQuery) throws -> [StoreRow]? {
        guard let sql = try SQLQueryTranslator.expressible({ try translator(query).select() }) else { return nil }
        let rows = try pool.withConnection { connection in
            try connection.rows(sql.text, try PostgreSQLDialect.bindings(sql.bindings))
        }
        return try rows.map(decode)
    }

    public var runsQueries: Bool { true }

    public func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        guard let (sql, outputs) = try SQLQueryTranslator.expressible({ try translator(query).aggregate(groupBy: groupBy, columns: columns) }) else { return nil }
        let rows = try pool.withConnection { connection in
            try connection.rows(sql.text, try PostgreSQLDialect.bindings(sql.bindings))
        }
        let names = groupBy + columns.map(\.name)
        return try rows.map { row in
            let cells = row.makeRandomAccess()
            var values: [String: StoreValue] = [:]
            var column = 0
            for (name, output) in zip(names, outputs) {
                switch output {
                case .value(let type):
                    values[name] = try PostgreSQLSQL.value(cells[column], type: type)
                    column += 1
                case .object:
                    if let key = try cells[column].decode(Int64?.self), let code = try cells[column + 1].decode(Int64?.self) {
                        values[name] = .reference(ObjectID(entityName: self.name(ofCode: code), key: key))
                    } else {
                        values[name] = .reference(nil)
                    }
                    column += 2
                }
            }
            return AggregateRow(values: values)
        }
    }

    /// PostgreSQL's `EXPLAIN` of the query's SQL (`Index Scan using …`, `Seq Scan on …`), or what the
    /// translation to SQL could not express.
    public func queryPlan(_ query: StoreQuery) throws -> QueryPlan {
        let sql: SQLQueryTranslator.SQL
        do {
            sql = try translator(query).select()
        } catch let unsupported as SQLQueryTranslator.Unsupported {
            return .inMemory(reason: unsupported.reason)
        }
        return .sql(try pool.withConnection { connection in
            try connection.rows("EXPLAIN " + sql.text, try PostgreSQLDialect.bindings(sql.bindings))
                .map { try $0.makeRandomAccess()[0].decode(String.self) }.joined(separator: "\n")
        })
    }

    public func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? {
        guard let sql = try SQLQueryTranslator.expressible({ try translator(query).select(onlyIDs: true) }) else { return nil }
        let rows = try pool.withConnection { connection in
            try connection.rows(sql.text, try PostgreSQLDialect.bindings(sql.bindings))
        }
        var ids = ObjectIDList()
        for row in rows {
            let cells = row.makeRandomAccess()
            ids.append(key: try cells[0].decode(Int64.self), entityName: name(ofCode: Int64(try cells[1].decode(Int32.self))))
        }
        return ids
    }

    public func count(_ query: StoreQuery) throws -> Int? {
        guard let sql = try SQLQueryTranslator.expressible({ try translator(query).count() }) else { return nil }
        return try pool.withConnection { connection in
            let rows = try connection.rows(sql.text, try PostgreSQLDialect.bindings(sql.bindings))
            return Int(try rows.first?.makeRandomAccess()[0].decode(Int64.self) ?? 0)
        }
    }

    // MARK: Saving

    public func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        try transaction({ connection, history in
            let result = try apply(changes, connection)
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
        // PostgreSQL rolls back one of two transactions that wait for each other's locks (a deadlock)
        // and, under SERIALIZABLE isolation set by a user's role, one that cannot be serialized: nothing
        // of it was written, and the same transaction is run again, a few times.
        var attempt = 1
        while true {
            do {
                return try transactionAttempt(body, published: published)
            } catch PostgreSQLStoreError.server(let state, _, _) where ["40P01", "40001"].contains(state) && attempt < 4 {
                attempt += 1
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
                    commitOrder.lock()
                    ordered = true
                    pending.append(connection.send("SELECT pg_advisory_xact_lock(hashtext($1))", Self.bindings { $0.append(historyLockName) }))
                    pending.append(try sendHistory(history, connection))
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
    private var historyLockName: String { "modelgen.history:" + configuration.schema }

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

    /// Sends a save's history row and the notification naming its token, as one statement, without
    /// waiting (the transaction awaits it with COMMIT).
    private func sendHistory(_ entry: HistoryEntry, _ connection: PostgresConnection) throws -> EventLoopFuture<PostgresQueryResult> {
        let sql = "WITH \"written\" AS (INSERT INTO \"modelgen.history\" (\"author\", \"timestamp\", \"changes\") VALUES ($1, $2, $3) RETURNING \"token\") "
            + "SELECT pg_notify($4, (SELECT \"token\" FROM \"written\")::text)"
        return connection.send(sql, try Self.bindings {
            $0.append(entry.author)
            $0.append(Date().timeIntervalSinceReferenceDate)
            try $0.append(entry.changes.historyJSON())
            $0.append(channel)
        })
    }

    private func apply(_ changes: StoreChanges, _ connection: PostgresConnection) throws -> StoreCommitResult {
        // Optimistic locking: the versions of every updated and deleted record (and of every record a
        // serializable save read), read under row locks taken in one order (table, then key), so that
        // saves locking the same rows wait for each other instead of deadlocking.
        let locked = (changes.force ? [] : changes.updated.map(\.id) + changes.deleted.map(\.id)) + (changes.reads?.records.map(\.id) ?? [])
        var versions: [String: [Int64: Int64]] = [:]
        if !locked.isEmpty {
            var keysByTable: [String: Set<Int64>] = [:]
            for id in locked { keysByTable[try entity(id.entityName).table.name, default: []].insert(id.key) }
            for (table, keys) in keysByTable.sorted(by: { $0.key < $1.key }) {
                let rows = try connection.rows("SELECT \"Z_PK\", \"Z_OPT\" FROM \(PostgreSQLSQL.quote(table)) WHERE \"Z_PK\" = ANY($1) ORDER BY \"Z_PK\" FOR UPDATE",
                                               Self.bindings { $0.append(keys.sorted()) })
                for row in rows {
                    let cells = row.makeRandomAccess()
                    versions[table, default: [:]][try cells[0].decode(Int64.self)] = try cells[1].decode(Int64.self)
                }
            }
        }
        func lockedVersion(_ id: ObjectID) throws -> Int64? { versions[try entity(id.entityName).table.name]?[id.key] }
        try changes.checkVersions(current: lockedVersion)
        // A serializable save's reads: its records are locked above, and a save that changes a to-many
        // relationship locks its owner, so the members read here stay until the commit.
        try changes.reads?.verify(model: model, version: lockedVersion) { id, slot in
            try toManyIDs(connection, id: id, storage: entity(id.entityName).layout.storage[slot])
        }

        // Permanent keys: from each table's sequence, as many as its inserted rows, drawn with one
        // statement per table sent before the new records are grouped (the server draws meanwhile).
        let insertedGroups = Self.groupedIndices(changes.inserted) { $0.id.entityName }
        var countByTable: [String: Int] = [:]
        for (name, indices) in insertedGroups { countByTable[try entity(name).table.name, default: 0] += indices.count }
        let drawing = countByTable.sorted(by: { $0.key < $1.key }).map { table, count in
            // One row holding every key (a row per key cost more to decode than the server took to draw them).
            (table, connection.send("SELECT array_agg(k ORDER BY k) FROM (SELECT nextval($1::regclass) AS k FROM generate_series(1, $2)) AS drawn",
                                    Self.bindings { $0.append(PostgreSQLSQL.sequence(table)); $0.append(Int64(count)) }))
        }
        // Meanwhile: the COPY text of the records that refer to no other new record, but for their keys.
        var copyColumnsByEntity: [String: (text: ByteBuffer, ends: [Int])] = [:]
        for (name, indices) in insertedGroups where indices.count >= Self.copiedFrom {
            copyColumnsByEntity[name] = try copyColumns(indices.map { changes.inserted[$0] }, try entity(name), resolve: nil)
        }
        var keysByTable: [String: [Int64]] = [:]
        for (table, future) in drawing {
            let result: PostgresQueryResult
            do { result = try future.wait() } catch { throw PostgreSQLSQL.storeError(error, statement: "SELECT nextval(…)") }
            keysByTable[table] = try result.rows.first?.makeRandomAccess()[0].decode([Int64].self) ?? []
        }
        // Keys ascending in insertion order, as the SQLite store gives them.
        var permanentKeys = [Int64](repeating: 0, count: changes.inserted.count)
        var drawn: [String: Int] = [:]
        for (name, indices) in insertedGroups {
            let table = try entity(name).table.name
            let keys = keysByTable[table]!
            var next = drawn[table] ?? 0
            for index in indices {
                permanentKeys[index] = keys[next]
                next += 1
            }
            drawn[table] = next
        }
        let insertedIDs = zip(changes.inserted, permanentKeys).map { ObjectID(entityName: $0.id.entityName, key: $1) }
        // References to records of this save carry temporary IDs: mapped when the first one is met.
        var permanentByTemporaryKey: [Int64: ObjectID]?
        func resolve(_ id: ObjectID) -> ObjectID {
            guard id.isTemporaryID else { return id }
            if permanentByTemporaryKey == nil {
                var map: [Int64: ObjectID] = [:]
                map.reserveCapacity(insertedIDs.count)
                for (row, permanent) in zip(changes.inserted, insertedIDs) { map[row.id.key] = permanent }
                permanentByTemporaryKey = map
            }
            return permanentByTemporaryKey?[id.key] ?? id
        }

        // Statements whose results are not needed at once are pipelined: sent in a row, awaited together.
        var pending: [(future: EventLoopFuture<PostgresQueryResult>, sql: String)] = []
        func send(_ sql: String, _ bindings: PostgresBindings) {
            pending.append((connection.send(sql, bindings), sql))
        }
        func awaitPending() throws -> [PostgresQueryResult] {
            defer { pending = [] }
            var results: [PostgresQueryResult] = []
            var firstError: (any Error)?
            for (future, sql) in pending {
                do { results.append(try future.wait()) } catch { if firstError == nil { firstError = PostgreSQLSQL.storeError(error, statement: sql) } }
            }
            if let firstError { throw firstError }
            return results
        }

        // Deleted records: one DELETE per entity over the array of their keys (and one per join table).
        var deferredLinkDeletes: [(join: SQLLayout.JoinTable, keys: [Int64])] = []
        for (name, deleted) in Self.grouped(changes.deleted, by: \.id.entityName) {
            let entity = try entity(name), keys = deleted.map(\.id.key)
            send("DELETE FROM \(PostgreSQLSQL.quote(entity.table.name)) WHERE \"Z_PK\" = ANY($1) AND \"Z_ENT\" = $2",
                 Self.bindings { $0.append(keys); $0.append(Int32(entity.code)) })
            for case .toManyByJoin(let join) in entity.layout.storage {
                // A pair's rows are the other side's links too: they go after the constraints are checked,
                // so that a deny rule still sees a link another save added meanwhile.
                if join.isPaired { deferredLinkDeletes.append((join, keys)); continue }
                send("DELETE FROM \(join.t) WHERE \(join.source) = ANY($1)", Self.bindings { $0.append(keys) })
            }
        }
        // New records: a COPY per entity with many of them; else one statement per entity over arrays
        // of their column values (unnest), or one per record for an entity with binary columns or a
        // single new record.
        for (name, indices) in insertedGroups {
            let entity = try entity(name)
            let records = indices.map { (row: changes.inserted[$0], id: insertedIDs[$0]) }
            if records.count >= Self.copiedFrom {
                // Statements sent before it go first; an error of one of those is the one to report.
                do {
                    let columns = try copyColumnsByEntity[name] ?? copyColumns(records.map(\.row), entity, resolve: resolve)!
                    let text = copyChunks(keys: records.map(\.id.key), columns: columns)
                    try connection.copy(into: entity.table.name, columns: ["Z_PK", "Z_ENT", "Z_OPT"] + entity.writtenColumns,
                                        data: text)
                } catch {
                    _ = try awaitPending()
                    throw error
                }
                continue
            }
            if records.count > 1, let bulk = try bulkInsert(records, entity, resolve) {
                send(bulk.sql, bulk.bindings)
                continue
            }
            for (row, id) in records {
                send(entity.insertSQL, try columnBindings(row, entity, resolve, prefix: { $0.append(id.key); $0.append(Int32(entity.code)) }))
            }
        }
        // Changed records: those whose saves changed the same columns of one entity go as one UPDATE
        // over arrays (returning each key's new version); a record changed only in its to-many
        // relationships keeps its row and version; a lone record, or one written whole, has its own UPDATE.
        enum Answer { case single(Int), bulk(Int), membership(Int), kept(Int64) }
        var answers: [Answer?] = Array(repeating: nil, count: changes.updated.count)
        let columnWrites = changes.updated.indices.filter { changes.writes[changes.updated[$0].id].map { !$0.isMembershipOnly } ?? false }
        let groups = Self.grouped(columnWrites) { index in
            changes.updated[index].id.entityName + "|" + changes.writes[changes.updated[index].id]!.columns.map(String.init).joined(separator: ",")
        }
        for (_, indexes) in groups {
            guard indexes.count > 1 else { continue }
            let rows = indexes.map { changes.updated[$0] }
            let entity = try entity(rows[0].id.entityName)
            guard let bulk = try bulkUpdate(rows, entity, slots: changes.writes[rows[0].id]!.columns, resolve) else { continue }
            send(bulk.sql, bulk.bindings)
            for index in indexes { answers[index] = .bulk(pending.count - 1) }
        }
        for (index, row) in changes.updated.enumerated() where answers[index] == nil {
            let entity = try entity(row.id.entityName)
            let write = changes.writes[row.id]
            // Its row is not written and keeps its version; that it still exists was checked, under a
            // row lock, with the versions above (a forced save reads it here).
            if let write, write.isMembershipOnly, !changes.force {
                answers[index] = .kept(row.version)
                continue
            }
            if let write, write.isMembershipOnly {
                send("SELECT $3::bigint FROM \(PostgreSQLSQL.quote(entity.table.name)) WHERE \"Z_PK\" = $1 AND \"Z_ENT\" = $2 FOR UPDATE",
                     Self.bindings { $0.append(row.id.key); $0.append(Int32(entity.code)); $0.append(row.version) })
                answers[index] = .membership(pending.count - 1)
                continue
            }
            var bindings = try columnBindings(row, entity, resolve, slots: write?.columns, prefix: { _ in })
            bindings.append(row.id.key)
            bindings.append(Int32(entity.code))
            send(write.map { entity.updateSQL(slots: $0.columns) } ?? entity.updateSQL, bindings)
            answers[index] = .single(pending.count - 1)
        }
        let results = try awaitPending()
        var bulkVersions: [Int: [Int64: Int64]] = [:]
        var updatedVersions: [Int64] = []
        updatedVersions.reserveCapacity(changes.updated.count)
        for (index, row) in changes.updated.enumerated() {
            var version: Int64?
            switch answers[index]! {
            case .kept(let unchanged):
                version = unchanged
            case .single(let result), .membership(let result):
                version = try results[result].rows.first?.makeRandomAccess()[0].decode(Int64.self)
            case .bulk(let result):
                if bulkVersions[result] == nil {
                    var versions: [Int64: Int64] = [:]
                    for returned in results[result].rows {
                        let cells = returned.makeRandomAccess()
                        versions[try cells[0].decode(Int64.self)] = try cells[1].decode(Int64.self)
                    }
                    bulkVersions[result] = versions
                }
                version = bulkVersions[result]?[row.id.key]
            }
            if let version {
                updatedVersions.append(version)
            } else {
                // Deleted by another save and forced back (StoreChanges.force): inserted again.
                let entity = try entity(row.id.entityName)
                _ = try connection.rows(entity.insertSQL, try columnBindings(row, entity, resolve, prefix: { $0.append(row.id.key); $0.append(Int32(entity.code)) }))
                updatedVersions.append(1)
            }
        }

        // To-many relationships of every written row: a property-level save's deltas (other saves'
        // members stay), or whole lists.
        let insertedKeys = Set(insertedIDs)   // records this save inserts have no join rows but this save's
        func writeToMany(_ row: StoreRow, _ id: ObjectID, deltas: [Int: ToManyDelta]?) throws {
            let entity = try entity(id.entityName)
            for (slot, storage) in entity.layout.storage.enumerated() {
                if let deltas {
                    if let delta = deltas[slot] { try applyToMany(delta, of: id, storage) }
                    continue
                }
                guard slot < row.values.count, case .references(let targets) = row.values[slot] else { continue }
                switch storage {
                case .toManyByJoin(let join) where !join.isPaired:
                    send("DELETE FROM \(join.t) WHERE \(join.source) = $1", Self.bindings { $0.append(id.key) })
                    let resolved = targets.map(resolve)
                    guard !resolved.isEmpty else { continue }
                    send("INSERT INTO \(join.t) (\(join.source), \(join.target), \(join.targetEntity), \(join.position)) "
                         + "SELECT $1, target, code, position - 1 FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS t(target, code, position)",
                         Self.bindings {
                             $0.append(id.key)
                             $0.append(resolved.map(\.key))
                             $0.append(resolved.map { self.entities[$0.entityName]?.code ?? 0 })
                         })
                case .toManyByJoin(let join):
                    // A pair's table: the other side's links and order stay; this side's list is made so.
                    let resolved = targets.map(resolve)
                    if !insertedKeys.contains(id) {
                        send("DELETE FROM \(join.t) WHERE \(join.source) = $1 AND NOT (\(join.target) = ANY($2))",
                             Self.bindings { $0.append(id.key); $0.append(resolved.map(\.key)) })
                    }
                    guard !resolved.isEmpty else { continue }
                    send("INSERT INTO \(join.t) (\(join.source), \(join.target), \(join.targetEntity), \(join.position), \(join.sourceEntity), \(join.otherPosition)) "
                         + "SELECT $1, u.target, u.code, u.position - 1, $4, (SELECT coalesce(max(\(join.otherPosition)) + 1, 0) FROM \(join.t) WHERE \(join.target) = u.target) "
                         + "FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS u(target, code, position) "
                         + "WHERE NOT EXISTS (SELECT 1 FROM \(join.t) WHERE \(join.source) = $1 AND \(join.target) = u.target)",
                         Self.bindings {
                             $0.append(id.key)
                             $0.append(resolved.map(\.key))
                             $0.append(resolved.map { self.entities[$0.entityName]?.code ?? 0 })
                             $0.append(entity.code)
                         })
                    send("UPDATE \(join.t) SET \(join.position) = u.position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS u(key, position) "
                         + "WHERE \(join.source) = $1 AND \(join.target) = u.key",
                         Self.bindings { $0.append(id.key); $0.append(resolved.map(\.key)) })
                case .toManyByInverse(let table, _, let order?):
                    let resolved = targets.map(resolve)
                    guard !resolved.isEmpty else { continue }
                    send("UPDATE \(PostgreSQLSQL.quote(table)) SET \(PostgreSQLSQL.quote(order)) = t.position - 1 "
                         + "FROM unnest($1::bigint[]) WITH ORDINALITY AS t(key, position) WHERE \"Z_PK\" = t.key",
                         Self.bindings { $0.append(resolved.map(\.key)) })
                default:
                    break
                }
            }
        }
        /// One relationship's delta: join rows added and removed; an ordered relationship's positions
        /// set from the saving context's order, members another save added meanwhile after them.
        func applyToMany(_ delta: ToManyDelta, of id: ObjectID, _ storage: SQLLayout.Storage) throws {
            let resolved = ToManyDelta(added: delta.added.map(resolve), removed: delta.removed.map(resolve), order: delta.order?.map(resolve))
            switch storage {
            case .toManyByJoin(let join):
                let t = join.t
                if !resolved.removed.isEmpty {
                    send("DELETE FROM \(t) WHERE \(join.source) = $1 AND \(join.target) = ANY($2)",
                         Self.bindings { $0.append(id.key); $0.append(resolved.removed.map(\.key)) })
                }
                if !resolved.added.isEmpty {
                    let pairColumns = join.isPaired ? ", \(join.sourceEntity), \(join.otherPosition)" : ""
                    let pairValues = join.isPaired ? ", $4, (SELECT coalesce(max(\(join.otherPosition)) + 1, 0) FROM \(t) WHERE \(join.target) = u.target)" : ""
                    send("INSERT INTO \(t) (\(join.source), \(join.target), \(join.targetEntity), \(join.position)\(pairColumns)) "
                         + "SELECT $1, u.target, u.code, (SELECT coalesce(max(\(join.position)) + 1, 0) FROM \(t) WHERE \(join.source) = $1) + u.position - 1\(pairValues) "
                         + "FROM unnest($2::bigint[], $3::bigint[]) WITH ORDINALITY AS u(target, code, position) "
                         + "WHERE NOT EXISTS (SELECT 1 FROM \(t) WHERE \(join.source) = $1 AND \(join.target) = u.target)",
                         Self.bindings {
                             $0.append(id.key)
                             $0.append(resolved.added.map(\.key))
                             $0.append(resolved.added.map { self.entities[$0.entityName]?.code ?? 0 })
                             if join.isPaired { $0.append(self.entities[id.entityName]?.code ?? 0) }
                         })
                }
                guard resolved.order != nil else { return }
                try reorder(resolved, of: id, members: "SELECT \(join.target) FROM \(t) WHERE \(join.source) = $1 ORDER BY \(join.position)",
                            position: "UPDATE \(t) SET \(join.position) = u.position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS u(key, position) "
                                + "WHERE \(join.source) = $1 AND \(join.target) = u.key")
            case .toManyByInverse(let table, let inverse, let order?) where resolved.order != nil:
                // Membership is the members' own column (their rows carry it); the order is set here.
                let q = PostgreSQLSQL.quote
                try reorder(resolved, of: id, members: "SELECT \"Z_PK\" FROM \(q(table)) WHERE \(q(inverse)) = $1 ORDER BY \(q(order))",
                            position: "UPDATE \(q(table)) SET \(q(order)) = t.position - 1 FROM unnest($2::bigint[]) WITH ORDINALITY AS t(key, position) "
                                + "WHERE \(q(inverse)) = $1 AND \"Z_PK\" = t.key")
            default:
                break
            }
        }
        /// Numbers the members of an ordered relationship (`members` selects their keys in stored order
        /// for the owner $1; `position` sets them for the owner $1 from the keys $2 in order) in their new
        /// order (`ToManyDelta.applied`; the delta's IDs already resolved).
        func reorder(_ delta: ToManyDelta, of id: ObjectID, members: String, position: String) throws {
            _ = try awaitPending()
            let stored = try connection.rows(members, Self.bindings { $0.append(id.key) }).map { try $0.makeRandomAccess()[0].decode(Int64.self) }
            send(position, Self.bindings { $0.append(id.key); $0.append(delta.applied(to: stored, key: \.key)) })
        }
        for (row, id) in zip(changes.inserted, insertedIDs) { try writeToMany(row, id, deltas: nil) }
        for row in changes.updated { try writeToMany(row, row.id, deltas: changes.writes[row.id]?.toMany) }
        _ = try awaitPending()
        func count(_ sql: String?, _ id: ObjectID) throws -> Int {
            guard let sql else { return 0 }
            let rows = try connection.rows(sql.replacingOccurrences(of: "?", with: "$1"), Self.bindings { $0.append(id.key) })
            return try rows.first.map { Int(try $0.makeRandomAccess()[0].decode(Int64.self)) } ?? 0
        }
        try changes.checkConstraintsSpanningRows(model: model,
            members: { id, slot in try count(layout.memberCountSQL(try entity(id.entityName).layout, slot: slot), id) },
            referrers: { id, slot in try count(layout.referrerCountSQL(try entity(id.entityName).layout, slot: slot), id) })
        for (join, keys) in deferredLinkDeletes {
            _ = try connection.rows("DELETE FROM \(join.t) WHERE \(join.source) = ANY($1)", Self.bindings { $0.append(keys) })
        }
        return StoreCommitResult(insertedIDs: insertedIDs, updatedVersions: updatedVersions)
    }

    /// The positions of `items` grouped by `key`, groups in order of first appearance. Items of one
    /// key usually come in runs: each key is compared with the last one's before any hashing.
    private static func groupedIndices<Item>(_ items: [Item], by key: (Item) -> String) -> [(key: String, indices: [Int])] {
        var groups: [(key: String, indices: [Int])] = []
        var groupOfKey: [String: Int] = [:]
        var last = -1
        for (index, item) in items.enumerated() {
            let name = key(item)
            if last < 0 || groups[last].key != name {
                if let existing = groupOfKey[name] {
                    last = existing
                } else {
                    groups.append((name, []))
                    last = groups.count - 1
                    groupOfKey[name] = last
                }
            }
            groups[last].indices.append(index)
        }
        return groups
    }

    /// `items` grouped by `key`, groups in the order their first item comes, items in order within each.
    private static func grouped<Item>(_ items: [Item], by key: (Item) -> String) -> [(key: String, items: [Item])] {
        var groups: [String: [Item]] = [:]
        var order: [String] = []
        for item in items {
            let name = key(item)
            if groups[name] == nil { order.append(name) }
            groups[name, default: []].append(item)
        }
        return order.map { ($0, groups[$0]!) }
    }

    /// New records of one entity from this many on are loaded with `COPY … FROM STDIN`, the faster way
    /// for many rows (docs/performance.md); fewer go as one `INSERT … FROM unnest(…)`, pipelined with
    /// the save's other statements (COPY waits for its answer).
    static let copiedFrom = 64
    /// The size of one `CopyData` message of a COPY.
    static let copyChunkBytes = 1 << 16

    /// The `COPY` text of new records of one entity after each one's key: entity code, version 1 and
    /// the written columns, a line a record, each line ending at its offset in `ends`. Without
    /// `resolve` (before the keys are drawn) nil when a record refers to another new record.
    private func copyColumns(_ rows: [StoreRow], _ entity: PostgresEntity,
                             resolve: ((ObjectID) -> ObjectID)?) throws -> (text: ByteBuffer, ends: [Int])? {
        let description = entity.layout.description
        let storage = entity.layout.storage
        let prefix = "\t\(entity.code)\t1"
        var text = ByteBuffer()
        text.reserveCapacity(rows.count * 64)
        var ends: [Int] = []
        ends.reserveCapacity(rows.count)
        for row in rows {
            text.writeString(prefix)
            for (slot, stored) in storage.enumerated() {
                let value = slot < row.values.count ? row.values[slot] : .null
                switch stored {
                case .attribute(_, let type, _):
                    text.writeStaticString("\t")
                    try PostgreSQLCopyText.append(value, type: type, to: &text, entity: description.name, key: description.properties[slot].name)
                case .toOne:
                    if case .reference(var target?) = value {
                        if target.isTemporaryID {
                            guard let resolve else { return nil }
                            target = resolve(target)
                        }
                        text.writeStaticString("\t")
                        PostgreSQLCopyText.appendInteger(target.key, to: &text)
                        text.writeStaticString("\t")
                        PostgreSQLCopyText.appendInteger(entities[target.entityName]?.code ?? 0, to: &text)
                    } else {
                        text.writeStaticString("\t\\N\t\\N")
                    }
                case .none, .toManyByInverse, .toManyByJoin:
                    break
                }
            }
            text.writeStaticString("\n")
            ends.append(text.writerIndex)
        }
        return (text, ends)
    }

    /// The `COPY` text of new records: each one's key, then its line of `columns`, in chunks of
    /// about `copyChunkBytes`.
    private func copyChunks(keys: [Int64], columns: (text: ByteBuffer, ends: [Int])) -> [ByteBuffer] {
        var chunks: [ByteBuffer] = []
        var buffer = ByteBuffer()
        buffer.reserveCapacity(Self.copyChunkBytes + 256)
        var start = columns.text.readerIndex
        for (key, end) in zip(keys, columns.ends) {
            PostgreSQLCopyText.appendInteger(key, to: &buffer)
            _ = columns.text.withUnsafeReadableBytes { bytes in
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: bytes[(start - columns.text.readerIndex)..<(end - columns.text.readerIndex)]))
            }
            start = end
            if buffer.readableBytes >= Self.copyChunkBytes {
                chunks.append(buffer)
                buffer = ByteBuffer()
                buffer.reserveCapacity(Self.copyChunkBytes + 256)
            }
        }
        if buffer.readableBytes > 0 { chunks.append(buffer) }
        return chunks
    }

    /// One `INSERT … SELECT … FROM unnest(…)` for several new records of one entity: each column's
    /// values as one array parameter (with an array of null flags beside it), so a save of many
    /// records costs one statement per entity. Nil for an entity with binary or transformable columns
    /// (their records are inserted one by one).
    private func bulkInsert(_ records: [(row: StoreRow, id: ObjectID)], _ entity: PostgresEntity,
                            _ resolve: (ObjectID) -> ObjectID) throws -> (sql: String, bindings: PostgresBindings)? {
        var bindings = PostgresBindings(capacity: 2 + entity.writtenCount * 2)
        bindings.append(records.map(\.id.key))
        guard let arrays = try columnArrays(records.map(\.row), entity, slots: nil, resolve, into: &bindings) else { return nil }
        let columns = ["\"Z_PK\"", "\"Z_ENT\"", "\"Z_OPT\""] + arrays.columns.map { PostgreSQLSQL.quote($0.name) }
        let selects = ["u.k", "\(Int32(entity.code))", "1"] + arrays.columns.map(\.value)
        let sql = "INSERT INTO \(PostgreSQLSQL.quote(entity.table.name)) (\(columns.joined(separator: ", "))) SELECT \(selects.joined(separator: ", ")) "
            + "FROM unnest(\((["$1::bigint[]"] + arrays.arrays).joined(separator: ", "))) AS u(\((["k"] + arrays.names).joined(separator: ", ")))"
        return (sql, bindings)
    }

    /// One `UPDATE … FROM unnest(…)` for several changed records of one entity whose saves changed the
    /// same columns, returning each record's key and new version; nil as for `bulkInsert`.
    private func bulkUpdate(_ rows: [StoreRow], _ entity: PostgresEntity, slots: [Int],
                            _ resolve: (ObjectID) -> ObjectID) throws -> (sql: String, bindings: PostgresBindings)? {
        var bindings = PostgresBindings(capacity: 1 + slots.count * 4)
        bindings.append(rows.map(\.id.key))
        guard let arrays = try columnArrays(rows, entity, slots: slots, resolve, into: &bindings) else { return nil }
        let table = PostgreSQLSQL.quote(entity.table.name)
        let sets = ["\"Z_OPT\" = t.\"Z_OPT\" + 1"] + arrays.columns.map { "\(PostgreSQLSQL.quote($0.name)) = \($0.value)" }
        let sql = "UPDATE \(table) AS t SET \(sets.joined(separator: ", ")) "
            + "FROM unnest(\((["$1::bigint[]"] + arrays.arrays).joined(separator: ", "))) AS u(\((["k"] + arrays.names).joined(separator: ", "))) "
            + "WHERE t.\"Z_PK\" = u.k AND t.\"Z_ENT\" = \(Int32(entity.code)) RETURNING t.\"Z_PK\", t.\"Z_OPT\""
        return (sql, bindings)
    }

    /// The array parameters of rows' columns (those of `slots`, or every written one), appended to
    /// `bindings` after what it holds: for each column a values array and a null-flags array; returns
    /// each column's name with its value over `unnest`'s row `u`, the typed array parameters and
    /// `u`'s column names. Nil when a column is binary or transformable (no array of those is sent).
    private func columnArrays(_ rows: [StoreRow], _ entity: PostgresEntity, slots: [Int]?, _ resolve: (ObjectID) -> ObjectID,
                              into bindings: inout PostgresBindings) throws -> (columns: [(name: String, value: String)], arrays: [String], names: [String])? {
        var columns: [(name: String, value: String)] = [], arrays: [String] = [], names: [String] = []
        func column(_ name: String, _ arrayType: String, cast: String = "", append: (inout PostgresBindings) -> Void, nulls: [Bool]) {
            let index = names.count / 2 + 1
            append(&bindings)
            bindings.append(nulls)
            columns.append((name, "CASE WHEN u.n\(index) THEN NULL ELSE u.v\(index)\(cast) END"))
            arrays += ["$\(bindings.count - 1)::\(arrayType)[]", "$\(bindings.count)::boolean[]"]
            names += ["v\(index)", "n\(index)"]
        }
        let description = entity.layout.description
        for (slot, storage) in entity.layout.storage.enumerated() {
            if let slots, !slots.contains(slot) { continue }
            let values = rows.map { slot < $0.values.count ? $0.values[slot] : StoreValue.null }
            let nulls = values.map(\.isNull)
            switch storage {
            case .attribute(let name, let type, _):
                let key = description.properties[slot].name
                switch type {
                case .binary, .transformable:
                    return nil
                case .bool:
                    column(name, "boolean", append: { $0.append(values.map { if case .bool(let v) = $0 { return v }; if case .int(let v) = $0 { return v != 0 }; return false }) }, nulls: nulls)
                case .int16, .int32, .int64:
                    let integers = values.map { value -> Int64 in
                        switch value {
                        case .int(let v): return v
                        case .double(let v): return Int64(exactly: v.rounded(.towardZero)) ?? 0
                        case .bool(let v): return v ? 1 : 0
                        default: return 0
                        }
                    }
                    column(name, "bigint", cast: "::\(PostgreSQLSQL.type(type))", append: { $0.append(integers) }, nulls: nulls)
                case .float, .double, .date:
                    let numbers = values.map { value -> Double in
                        switch value {
                        case .double(let v): return v
                        case .int(let v): return Double(v)
                        case .date(let v): return v.timeIntervalSinceReferenceDate
                        default: return 0
                        }
                    }
                    column(name, "double precision", append: { $0.append(numbers) }, nulls: nulls)
                case .string, .uri, .decimal:
                    var texts: [String] = []
                    texts.reserveCapacity(values.count)
                    for value in values {
                        switch value {
                        case .string(let v):
                            if v.utf8.contains(0) {
                                throw PostgreSQLStoreError.unstorableValue(entity: description.name, key: key, reason: "the text holds U+0000, which PostgreSQL's text type cannot keep")
                            }
                            texts.append(v)
                        case .url(let v): texts.append(v.absoluteString)
                        case .decimal(let v): texts.append("\(v)")
                        case .int(let v): texts.append(String(v))
                        case .double(let v): texts.append(String(v))
                        default: texts.append("")
                        }
                    }
                    column(name, "text", cast: type == .decimal ? "::numeric" : "", append: { $0.append(texts) }, nulls: nulls)
                case .uuid:
                    column(name, "uuid", append: { $0.append(values.map { if case .uuid(let v) = $0 { return v }; return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) }) }, nulls: nulls)
                }
            case .toOne(let name):
                let targets = values.map { value -> ObjectID? in if case .reference(let id?) = value { return resolve(id) }; return nil }
                column(name, "bigint", append: { $0.append(targets.map { $0?.key ?? 0 }) }, nulls: nulls)
                column(name + ".entity", "bigint", append: { $0.append(targets.map { $0.flatMap { self.entities[$0.entityName]?.code } ?? 0 }) }, nulls: nulls)
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return (columns, arrays, names)
    }

    /// The bindings of a row's columns in the entity's written-column order (only those of `slots`
    /// when given), after `prefix`.
    private func columnBindings(_ row: StoreRow, _ entity: PostgresEntity, _ resolve: (ObjectID) -> ObjectID,
                                slots: [Int]? = nil, prefix: (inout PostgresBindings) -> Void) throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: entity.writtenCount + 4)
        prefix(&bindings)
        for (slot, storage) in entity.layout.storage.enumerated() {
            if let slots, !slots.contains(slot) { continue }
            let value = slot < row.values.count ? row.values[slot] : .null
            switch storage {
            case .attribute(_, let type, _):
                try PostgreSQLSQL.bind(value, type: type, into: &bindings, entity: entity.layout.description.name,
                                       key: entity.layout.description.properties[slot].name)
            case .toOne:
                if case .reference(let target?) = value {
                    let target = resolve(target)
                    bindings.append(target.key)
                    bindings.append(entities[target.entityName]?.code ?? 0)
                } else {
                    bindings.appendNull()
                    bindings.appendNull()
                }
            case .none, .toManyByInverse, .toManyByJoin:
                break
            }
        }
        return bindings
    }

    // MARK: History

    public func historyTransactions(after token: Int64) throws -> [HistoryTransaction] {
        try pool.withConnection { connection in
            let rows = try connection.rows("SELECT \"token\", \"author\", \"timestamp\", \"changes\" FROM \"modelgen.history\" WHERE \"token\" > $1 ORDER BY \"token\"",
                                           Self.bindings { $0.append(token) })
            return try rows.map { row in
                let cells = row.makeRandomAccess()
                return HistoryTransaction(token: try cells[0].decode(Int64.self), author: try cells[1].decode(String.self),
                                          timestamp: Date(timeIntervalSinceReferenceDate: try cells[2].decode(Double.self)),
                                          changes: try ChangeSet(history: try cells[3].decode(Data.self)))
            }
        }
    }

    public func latestHistoryToken() throws -> Int64 {
        try pool.withConnection { connection in
            try connection.rows("SELECT coalesce(max(\"token\"), 0) FROM \"modelgen.history\"")
                .first?.makeRandomAccess()[0].decode(Int64.self) ?? 0
        }
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

    func finish() {
        watchers.withLock { for continuation in $0.values { continuation.finish() } }
    }
}

/// A table: its select list (system columns first) and the statement selecting it.
struct PostgresTable: Sendable {
    let name: String
    let columns: [String]
    let selectSQL: String

    init(name: String, columns: [String]) {
        self.name = name
        self.columns = columns
        selectSQL = "SELECT \(columns.map(PostgreSQLSQL.quote).joined(separator: ", ")) FROM \(PostgreSQLSQL.quote(name))"
    }
}

/// An entity of the layout with PostgreSQL's statements for its rows.
struct PostgresEntity: @unchecked Sendable {
    // @unchecked: `layout` is an immutable class instance of the runtime's layout.
    let layout: SQLLayout.Entity
    let table: PostgresTable
    var code: Int64 { layout.code }
    /// For each slot, the index of its column in the table's select list (to-one: the key column), else -1.
    let columnIndex: [Int]
    /// The columns a row writes, in slot order (a to-one's key column, then its entity column).
    let writtenColumns: [String]
    var writtenCount: Int { writtenColumns.count }
    /// `INSERT` of a whole row: key ($1), entity code ($2), version 1, then the columns in slot order.
    let insertSQL: String
    /// `UPDATE` of a whole row (columns in slot order, then key and entity code), returning the new version.
    let updateSQL: String

    init(_ layout: SQLLayout.Entity, table: PostgresTable) {
        self.layout = layout
        self.table = table
        var written: [String] = []
        var columnIndex: [Int] = []
        for storage in layout.storage {
            switch storage {
            case .attribute(let column, _, _):
                written.append(column)
                columnIndex.append(table.columns.firstIndex(of: column) ?? -1)
            case .toOne(let column):
                written += [column, column + ".entity"]
                columnIndex.append(table.columns.firstIndex(of: column) ?? -1)
            default:
                columnIndex.append(-1)
            }
        }
        self.columnIndex = columnIndex
        writtenColumns = written
        let q = PostgreSQLSQL.quote
        insertSQL = "INSERT INTO \(q(table.name)) (\"Z_PK\", \"Z_ENT\", \"Z_OPT\"" + written.map { ", " + q($0) }.joined()
            + ") VALUES ($1, $2, 1" + written.indices.map { ", $\($0 + 3)" }.joined() + ")"
        updateSQL = Self.updateSQL(table: table.name, columns: written)
    }

    /// `UPDATE` of the columns (then key and entity code), returning the new version.
    private static func updateSQL(table: String, columns: [String]) -> String {
        let q = PostgreSQLSQL.quote
        return "UPDATE \(q(table)) SET \"Z_OPT\" = \"Z_OPT\" + 1" + columns.enumerated().map { ", \(q($0.element)) = $\($0.offset + 1)" }.joined()
            + " WHERE \"Z_PK\" = $\(columns.count + 1) AND \"Z_ENT\" = $\(columns.count + 2) RETURNING \"Z_OPT\""
    }

    /// `UPDATE` of the columns of `slots` only: a property-level save's statement.
    func updateSQL(slots: [Int]) -> String {
        Self.updateSQL(table: table.name, columns: layout.columns(ofSlots: slots))
    }
}

extension ManagedContainer {
    /// A container over a PostgreSQL store (`PostgreSQLStore`).
    /// A container over a PostgreSQL store (`PostgreSQLStore`), migrated through `migrationPlan`'s
    /// stages when the schema was written with an earlier version of the model.
    public convenience init(model: ManagedObjectModel, postgres configuration: PostgreSQLConfiguration,
                            migrationPlan: MigrationPlan? = nil) throws {
        self.init(model: model, store: try PostgreSQLStore(model: model, configuration: configuration, migrationPlan: migrationPlan))
    }
}
#endif
