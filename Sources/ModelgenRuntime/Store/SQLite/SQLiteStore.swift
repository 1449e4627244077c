import CSQLite
import Foundation
import Synchronization

/// A store in a SQLite file (the system's SQLite), in WAL mode. Every save is one transaction:
/// a failed or interrupted save leaves the last good state. The model's layout is recorded in the
/// file; opening it with a changed model migrates additive changes and renames in place, or refuses
/// with `SQLiteStoreError.incompatibleModel` and leaves the file untouched. Fetches run as SQL.
/// Binaries of attributes with `externalStorage` at or above `externalStorageThreshold` bytes are kept
/// as files in `<file>-external/` and removed when no record refers to them any more.
public final class SQLiteStore: QueryingStore, @unchecked Sendable {
    /// Testing only: saves skip the optimistic-locking check (a deliberately broken store, whose
    /// histories the anomaly checker of `make history` must fail).
    @_spi(Testing) public static let testingSkipsVersionCheck = Atomic<Bool>(false)

    // @unchecked: every stored property is a `let` of a Sendable value or of the connection pool,
    // which hands each connection to one thread at a time (see SQLiteConnectionPool).
    public let model: ManagedObjectModel
    /// Where the database file is.
    public let url: URL
    /// Binaries of `externalStorage` attributes this large or larger go to files beside the database.
    public let externalStorageThreshold: Int
    /// The directory of externally stored binaries.
    public var externalDirectory: URL { URL(fileURLWithPath: url.path + "-external", isDirectory: true) }

    /// How the store shares its file between threads and processes.
    public var configuration: SQLiteConfiguration { pool.configuration }

    /// One writer and a pool of readers (see `SQLiteConnectionPool`).
    let pool: SQLiteConnectionPool
    let layout: SQLLayout
    /// For a store of a migration stage (see `SQLiteMigrationTransaction`): hears the records each save
    /// wrote. Such a store writes no history.
    let stage: (@Sendable (Int) -> Void)?
    /// The set-based deletion steps by the entity names a batch deletes (the layout stays as it is while the store is open).
    let deletionSteps = Locked<[[String]: SetBasedDeletionSteps]>([:])

    /// Opens or creates the store at `url` for `model`, migrating the file when the model changed
    /// compatibly, or through the stages of `migrationPlan` when the file was written with one of its
    /// earlier versions (see `MigrationPlan`).
    public init(url: URL, model: ManagedObjectModel, externalStorageThreshold: Int = 100 * 1024,
                configuration: SQLiteConfiguration = SQLiteConfiguration(), migrationPlan: MigrationPlan? = nil) throws {
        self.model = model
        self.url = url
        self.externalStorageThreshold = externalStorageThreshold
        stage = nil
        let path = url.path
        try Self.checkBeforeOpening(path: path, configuration: configuration)
        pool = try SQLiteConnectionPool(path: path, configuration: configuration)
        layout = try pool.write { connection in
            var previous = try Self.readSchema(connection, path: path)
            if !configuration.readOnly { try connection.execute(SQLiteDriver.createKeysTable) }
            let transaction = SQLiteMigrationTransaction(connection: connection, url: url, externalStorageThreshold: externalStorageThreshold,
                                                         configuration: configuration)
            if let migrationPlan, let recorded = previous, recorded.versionHash != model.versionHash, !configuration.readOnly {
                try connection.execute("PRAGMA foreign_keys=OFF")
                previous = try StagedMigration(plan: migrationPlan, model: model, policy: configuration.migration)
                    .run(from: recorded) { body in try connection.inTransaction { try body(transaction) } }
            }
            let plan = SQLSchemaPlanner(model: model, previous: previous).plan()
            if configuration.readOnly {
                guard let previous else { throw SQLiteStoreError.notAStore(path: path, reason: "it is empty (a read-only store is not created)") }
                guard previous == plan.schema else {
                    throw SQLiteStoreError.readOnly(path: path, reason: "it was written with another model, and a store opened read-only is not migrated")
                }
                return SQLLayout(schema: plan.schema, model: model, dialect: SQLiteDialect())
            }
            let refusals = plan.refusals(under: configuration.migration)
            if !refusals.isEmpty {
                throw SQLiteStoreError.incompatibleModel(path: path, problems: refusals)
            }
            try connection.execute("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=OFF")
            if previous == nil || previous != plan.schema {
                try connection.inTransaction {
                    if previous == nil {
                        try connection.execute("CREATE TABLE \"modelgen.metadata\" (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL)")
                    }
                    try transaction.migrate(plan, from: previous, model: model)
                }
            }
            try connection.execute(Self.createHistoryTable)
            // Join tables of stores made before the members index get it (once: found by name).
            let joinTables = plan.schema.entities.flatMap { $0.relationships.compactMap(\.joinTable) }
            let indexes = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'index'")
            var names: Set<String> = []
            while try indexes.step() { names.insert(indexes.text(0)) }
            indexes.reset()
            let upgrades = joinTables.filter { !names.contains(SQLSchemaPlanner.membersIndexName($0)) }
            if !upgrades.isEmpty {
                try connection.inTransaction {
                    for statement in upgrades.flatMap(SQLSchemaPlanner.joinIndexUpgrade) { try connection.execute(statement) }
                }
            }
            return SQLLayout(schema: plan.schema, model: model, dialect: SQLiteDialect())
        }
        if !configuration.readOnly { try collectUnreferencedExternalFiles() }
    }

    /// A store of a migration stage, on `connection` (the writer, in the stage's transaction) with the
    /// layout `schema`: nothing is planned or created, and each save is a savepoint of the stage.
    init(stage connection: SQLiteConnection, url: URL, model: ManagedObjectModel, schema: SQLSchema,
         externalStorageThreshold: Int, configuration: SQLiteConfiguration, onCommit: @escaping @Sendable (Int) -> Void) {
        self.model = model
        self.url = url
        self.externalStorageThreshold = externalStorageThreshold
        stage = onCommit
        pool = SQLiteConnectionPool(stageConnection: connection, path: url.path, configuration: configuration)
        layout = SQLLayout(schema: schema, model: model, dialect: SQLiteDialect())
    }

    /// The version hash (`ManagedObjectModel.versionHash`) of the model the file at `url` was last
    /// written with, read without opening a store (nothing is migrated or created); nil for a file
    /// that does not exist or is empty. Compare it with your versions' hashes to tell which one a
    /// store is at (Core Data's store metadata).
    public static func recordedVersionHash(of url: URL) throws -> String? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let connection = try SQLiteConnection(path: url.path, create: false, configuration: SQLiteConfiguration(readOnly: true))
        return try readSchema(connection, path: url.path)?.versionHash
    }

    /// Records `schema` as the file's layout.
    static func record(_ schema: SQLSchema, _ connection: SQLiteConnection) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(schema), as: UTF8.self)
        try connection.statement("INSERT OR REPLACE INTO \"modelgen.metadata\" VALUES ('schema', ?)").run([.text(json)])
    }

    /// What the file system says before SQLite opens the file: a directory SQLite cannot create the
    /// `-wal` and `-shm` files in, and a file shorter than its header says (a truncated copy: SQLite
    /// would only notice at the first read of a missing page), are refused by name and cause.
    private static func checkBeforeOpening(path: String, configuration: SQLiteConfiguration) throws {
        let files = FileManager.default
        let directory = (path as NSString).deletingLastPathComponent
        if !configuration.readOnly && !files.isWritableFile(atPath: directory.isEmpty ? "." : directory) {
            guard files.fileExists(atPath: path) else { throw SQLiteStoreError.cannotOpen(path: path, reason: "its directory is not writable") }
            throw SQLiteStoreError.readOnly(path: path, reason: "its directory is not writable (SQLite keeps the store's -wal and -shm files beside it); "
                + "open it with SQLiteConfiguration(readOnly: true) to read it")
        }
        guard let header = try? SQLiteFileHeader(path: path) else { return }
        if let problem = header.truncation(hasWriteAheadLog: ((try? files.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0) > 0) {
            throw SQLiteStoreError.corrupted(path: path, reason: problem)
        }
    }

    /// Drops one thing the model removed (`MigrationPolicy.dropRemoved`). SQLite drops no column an
    /// index names, so the indexes on a dropped column go first.
    static func drop(_ removal: SQLSchemaPlanner.Removal, _ connection: SQLiteConnection) throws {
        if case .column(let table, let column) = removal {
            let indexes = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND instr(sql, ?) > 0")
            indexes.bind([.text(table), .text(SQLSchemaPlanner.quote(column))])
            var names: [String] = []
            while try indexes.step() { names.append(indexes.text(0)) }
            indexes.reset()
            for name in names { try connection.execute("DROP INDEX \(SQLSchemaPlanner.quote(name))") }
        }
        try connection.execute(removal.statement)
    }

    /// Drops the model indexes (`Entity.index(…)`, `Entity.unique(…)`) an earlier model had and this one
    /// has not: a uniqueness constraint taken out of the model stops being enforced.
    static func dropLeftoverIndexes(keeping names: Set<String>, _ connection: SQLiteConnection) throws {
        let select = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND (instr(name, '.unique(') > 0 OR instr(name, '.index(') > 0)")
        var leftover: [String] = []
        while try select.step() {
            let name = select.text(0)
            if !names.contains(name) { leftover.append(name) }
        }
        select.reset()
        for name in leftover { try connection.execute("DROP INDEX \(SQLSchemaPlanner.quote(name))") }
    }

    /// Throws `corrupted` when SQLite's check of the file finds damaged pages (a store whose metadata
    /// reads wrong is damaged more often than it is another program's file).
    private static func refuseIfDamaged(_ connection: SQLiteConnection, path: String) throws {
        let check = try connection.statement("PRAGMA quick_check(1)")
        defer { check.reset() }
        guard try check.step(), case let result = check.text(0), result != "ok" else { return }
        throw SQLiteStoreError.corrupted(path: path, reason: "the database disk image is malformed (\(result))")
    }

    /// The layout recorded in the file, nil for a new (empty) file.
    static func readSchema(_ connection: SQLiteConnection, path: String) throws -> SQLSchema? {
        let tables = try connection.statement("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var names: [String] = []
        while try tables.step() { names.append(tables.text(0)) }
        guard names.contains("modelgen.metadata") else {
            if !names.isEmpty { throw SQLiteStoreError.notAStore(path: path, reason: "it has tables (\(names.prefix(3).joined(separator: ", "))) but no modelgen.metadata") }
            return nil
        }
        let select = try connection.statement("SELECT value FROM \"modelgen.metadata\" WHERE key = 'schema'")
        guard try select.step() else {
            try refuseIfDamaged(connection, path: path)
            throw SQLiteStoreError.notAStore(path: path, reason: "modelgen.metadata has no schema")
        }
        let json = select.text(0)
        select.reset()
        guard let schema = try? JSONDecoder().decode(SQLSchema.self, from: Data(json.utf8)) else {
            try refuseIfDamaged(connection, path: path)
            throw SQLiteStoreError.notAStore(path: path, reason: "its recorded schema cannot be read")
        }
        // Format 1 (a join table per side of a many-to-many pair) is migrated when opened.
        guard schema.formatVersion <= SQLSchema.formatVersion else {
            throw SQLiteStoreError.notAStore(path: path, reason: "store format \(schema.formatVersion); this runtime reads format \(SQLSchema.formatVersion)")
        }
        return schema
    }

    /// Runs `body` with a reader, which does not wait for a save in progress; with `snapshot` (for a
    /// body of several statements), in one read transaction, so it sees one committed state throughout.
    func reading<T>(snapshot: Bool = false, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try pool.read(snapshot: snapshot, body)
    }

    /// Runs `body` with the writer, one caller at a time.
    func writing<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try pool.write(body)
    }

    // MARK: Reading

    /// The shared reads on a reader (see `reading`).
    func reads<T>(snapshot: Bool = false, _ body: (SQLReads<SQLiteDriver>) throws -> T) throws -> T {
        try reading(snapshot: snapshot) { try body(SQLReads(layout: layout, executor: SQLiteDriver($0, store: self))) }
    }

    public func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        try reads(snapshot: true) { try $0.recordIDs(of: entityNames) }
    }

    public func row(for id: ObjectID) throws -> StoreRow? {
        // The row and its to-many relationships from one committed state.
        try reads(snapshot: layout.entities[id.entityName]?.hasToManyStorage ?? false) { try $0.row(for: id) }
    }

    public func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] {
        try reads { try $0.members(of: id, storage: layout.entity(id.entityName).storage[slot]) }
    }

    public func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        try reads { try $0.aggregate(query, groupBy: groupBy, columns: columns) }
    }

    public func project(_ query: StoreQuery, properties: [ProjectedProperty]) throws -> [ProjectedRow]? {
        try reads { try $0.project(query, properties: properties) }
    }

    public func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] {
        guard let first = ids.first else { return [:] }
        var members = MemberLists(ids)
        let entity = try layout.entity(first.entityName)
        guard layout.membersSQL(entity, slot: slot, owners: "IN (?)") != nil else { return members.lists }
        try reading(snapshot: true) { connection in
            try Self.forEachRow(ofKeyLists: members.ownerKeys, connection, sql: { layout.membersSQL(entity, slot: slot, owners: $0)! }) { select in
                members.add(ObjectID(entityName: layout.namesByCode[select.int64(2)] ?? "", key: select.int64(1)), toOwnerKey: select.int64(0))
            }
        }
        return members.lists
    }

    /// The member lists and the members' rows in one statement per batch of owners
    /// (`membersWithRowsSQL`: kept by the inverse, or through a join table, each member's row once).
    public func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?) {
        guard !ids.isEmpty else { return ([:], []) }
        var members = MemberLists(ids)
        var rows: [StoreRow] = []
        let answered = try forEachMember(of: ids, relationship: slot) { ownerKey, member, row, _, _ in
            members.add(member, toOwnerKey: ownerKey)
            if let row { rows.append(row) }
        }
        guard answered else { return (try toManyIDs(of: ids, relationship: slot), nil) }
        return (members.lists, rows)
    }

    /// What `toManyMembersWithRows(of:relationship:)` reads, streamed: `member` gets each link as it is
    /// read, in the owner's order (an owner's members come together): the owner's key, the member, and
    /// the first time a member comes, its row (valid during the call only) and, when `objects` is given,
    /// the object `objects` named for it and whether its plain attributes were written straight into that
    /// object's slots (as `fetch(_:objects:each:)` does). The context builds its lists of objects and
    /// loads the members' faults from these as they come, with no dictionary of ID lists and no second
    /// pass over kept rows. False, calling `member` for none, when the relationship's members are not
    /// read with their rows.
    func forEachMember(of ids: [ObjectID], relationship slot: Int,
                       objects: ((ObjectID) -> (object: ManagedObject, loadsHere: Bool))? = nil,
                       _ member: (_ ownerKey: Int64, _ member: ObjectID, _ row: StoreRow?, _ object: ManagedObject?, _ plainLoaded: Bool) throws -> Void) throws -> Bool {
        guard let first = ids.first else { return true }
        let entity = try layout.entity(first.entityName)
        guard layout.membersWithRowsSQL(entity, slot: slot, owners: "IN (?)") != nil else { return false }
        try reading(snapshot: true) { connection in
            var row = Self.reusableRow()
            var entities = EntityLookup(layout: layout)
            // Through a join table a member shared by several owners comes once per link: decoded once.
            var decoded: Set<RecordKey> = []
            try Self.forEachRow(ofKeyLists: ids.map(\.key), connection,
                                sql: { layout.membersWithRowsSQL(entity, slot: slot, owners: $0)! }) { select in
                if let named = try select.memberWithoutRow(decoded: &decoded, entityName: entityName(ofCode:)) {
                    return try member(select.int64(0), named, nil, nil, false)   // a gone one is left a fault
                }
                let (object, plainLoaded) = try decodeRow(select, columnOffset: 1, into: &row, entities: &entities, objects: objects)
                try member(select.int64(0), row.id, row, object, plainLoaded)
            }
        }
        return true
    }

    /// Runs the statement `sql(condition)` over `keys`, calling `row` for each result whose first
    /// column (the key the condition tests) is one of `keys`. The condition is an `IN (…)` list of
    /// the keys, in as few statements as the connection can bind (one up to 16,384 keys): the list's
    /// width is a power of two from 64, so a table needs few statement shapes in the connection's
    /// cache; a shorter list repeats its last key (the same rows). The keys are bound in ascending
    /// order (the statement's rows come in its own order, not the list's): SQLite builds the list's
    /// index by appending, and seeks the table or index page by page instead of at random, each page
    /// read once however small the page cache.
    ///
    /// Keys that fill more than half of the range they span (the 1,000 writers of 2,000 books, the
    /// faults of a fetch's results) are read as that range instead (`BETWEEN ? AND ?`), rows of other
    /// keys skipped: SQLite builds an index of an `IN` list and seeks each key, where a range steps
    /// from row to row. Sparser keys keep the list: a skipped row costs a whole step, and a wide row
    /// more.
    static func forEachRow(ofKeyLists unsorted: [Int64], _ connection: SQLiteConnection, sql: (String) -> String,
                           row: (SQLiteStatement) throws -> Void) throws {
        guard !unsorted.isEmpty else { return }
        let keys = zip(unsorted, unsorted.dropFirst()).allSatisfy { $0 <= $1 } ? unsorted : unsorted.sorted()
        let shape = sql("")
        let (span, overflow) = keys[keys.count - 1].subtractingReportingOverflow(keys[0])
        if keys.count >= denseKeyMinimum, !overflow, span / 2 < Int64(keys.count) {
            let select = try connection.statement(shape: shape, keyListWidth: 0) { _ in sql("BETWEEN ? AND ?") }
            sqlite3_bind_int64(select.handle, 1, keys[0])
            sqlite3_bind_int64(select.handle, 2, keys[keys.count - 1])
            defer { select.reset() }
            while try select.step() {
                if sortedKeys(keys, contain: select.int64(0)) { try row(select) }
            }
            return
        }
        let limit = min(Int(sqlite3_limit(connection.handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)), 16_384)
        var largest = 64
        while largest * 2 <= limit { largest *= 2 }
        var start = 0
        while start < keys.count {
            let count = min(keys.count - start, largest)
            var width = 64
            while width < count { width *= 2 }
            let select = try connection.statement(shape: shape, keyListWidth: width) { sql("IN (\($0))") }
            for position in 0..<width {
                sqlite3_bind_int64(select.handle, Int32(position + 1), keys[start + min(position, count - 1)])
            }
            defer { select.reset() }
            while try select.step() { try row(select) }
            start += count
        }
    }

    /// The fewest keys read as a range when dense (below it an `IN` list costs little either way).
    static let denseKeyMinimum = 64

    /// Whether ascending `keys` holds `key` (binary search).
    private static func sortedKeys(_ keys: [Int64], contain key: Int64) -> Bool {
        var low = 0, high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < keys.count && keys[low] == key
    }

    /// Decodes the current row of a statement selecting a table's columns (from `columnOffset`):
    /// attributes and to-one relationships; to-many slots are left `.null` (`hasToManyValues` false).
    func decodeRow(_ select: SQLiteStatement, columnOffset: Int32) throws -> StoreRow {
        var row = Self.reusableRow()
        var entities = EntityLookup(layout: layout)
        try decodeRow(select, columnOffset: columnOffset, into: &row, entities: &entities)
        return row
    }

    /// A row whose `Z_ENT` is no entity of the model: the file is not this model's store.
    func unknownEntityCode(_ code: Int64) -> SQLiteStoreError {
        .notAStore(path: url.path, reason: "a record has entity code \(code), which the model does not have")
    }

    /// The name of the entity a record's code stands for; an error naming the code when the model has none.
    func entityName(ofCode code: Int64) throws -> String {
        guard let name = layout.namesByCode[code] else { throw unknownEntityCode(code) }
        return name
    }

    /// A row for `decodeRow(_:columnOffset:into:entities:)` to fill, again and again.
    private static func reusableRow() -> StoreRow {
        StoreRow(id: ObjectID(entityName: "", key: 0), version: 0, values: [], hasToManyValues: false)
    }

    /// Decodes the current row into `row`, reusing its values' storage.
    func decodeRow(_ select: SQLiteStatement, columnOffset: Int32, into row: inout StoreRow, entities: inout EntityLookup) throws {
        _ = try decodeRow(select, columnOffset: columnOffset, into: &row, entities: &entities, objects: nil)
    }

    /// `decodeRow(_:columnOffset:into:entities:)`, first asking `objects` for the row's object and whether
    /// the row loads it here: then the row's plain stored attributes are written straight into that
    /// object's slots instead of the row's values, which keep whatever they held (not this record's
    /// values). Returns the object and whether that happened.
    func decodeRow(_ select: SQLiteStatement, columnOffset: Int32, into row: inout StoreRow, entities: inout EntityLookup,
                   objects: ((ObjectID) -> (object: ManagedObject, loadsHere: Bool))?) throws -> (object: ManagedObject?, plainLoaded: Bool) {
        let code = select.int64(columnOffset + 1)
        guard let found = entities.entity(code: code) else { throw unknownEntityCode(code) }
        return try found._withUnsafeGuaranteedRef { entity in
            row.id = ObjectID(entityName: entity.description.name, key: select.int64(columnOffset))
            let (object, loadsHere) = objects?(row.id) ?? (nil, false)
            // The loaded object's storage, taken once (no reference counting per column).
            let base = loadsHere ? object?._base : nil
            // Overwrite the previous row's values in place (same entity: same count), releasing each old one.
            if row.values.count != entity.storage.count { row.values = Array(repeating: .null, count: entity.storage.count) }
            try row.values.withUnsafeMutableBufferPointer { values in
                /// An attribute's value, read from its external file when the column names one.
                func attributeValue(_ column: Int32, type: AttributeType, external: Bool) throws -> StoreValue {
                    if external, !select.isNull(column), case .text(let file) = select.value(column) {
                        return .data(try readExternal(file))
                    }
                    return SQLiteValueCodec.storeValue(select, column, type: type)
                }
                func decode(_ slot: Int) throws {
                    let column = columnOffset + entity.selectIndex[slot]
                    switch entity.columnKinds[slot] {
                    case .attribute(let type, let external):
                        values[slot] = try attributeValue(column, type: type, external: external)
                    case .toOne:
                        if select.isNull(column) {
                            values[slot] = .reference(nil)
                        } else {
                            values[slot] = .reference(ObjectID(entityName: layout.namesByCode[select.int64(column + 1)] ?? "", key: select.int64(column)))
                        }
                    case .none, .toMany:
                        values[slot] = .null
                    }
                }
                if let base {
                    // Every plain attribute into the object's slots (the row's values of them are left as
                    // they were: see `fetch(_:objects:each:)`), the rest into the row.
                    entity.directLoads.withUnsafeBufferPointer { loads in
                        for load in loads {
                            SlotLoading.load(select, columnOffset + load.column, type: load.type, kind: load.kind, into: base + load.offset)
                        }
                    }
                    for load in entity.externalLoads {
                        SlotLoading.store(try attributeValue(columnOffset + load.column, type: load.type, external: true), into: base + load.offset)
                    }
                    for slot in entity.description.slotsNotPlain { try decode(slot) }
                } else {
                    for slot in 0..<values.count { try decode(slot) }
                }
            }
            row.version = select.int64(columnOffset + 2)
            row.hasToManyValues = false
            return (object, base != nil)
        }
    }

    // MARK: Fetching

    /// The statement counter of the store's configuration (tests).
    var statementCounterForTests: StatementCounter? { pool.configuration.statementCounter }

    /// SQLite's `EXPLAIN QUERY PLAN` of the query's SQL (`SEARCH Item USING INDEX …`, `SCAN Item`), or
    /// what the translation to SQL could not express.
    public func queryPlan(_ query: StoreQuery) throws -> QueryPlan {
        try reads { try $0.queryPlan(query) }
    }

    public func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool {
        try fetch(query, objects: nil) { row, _, _ in try body(row) }
    }

    /// `fetch(_:each:)` that loads objects from the statement itself: for each row, before it is decoded,
    /// `objects` gives the row's object and whether the row loads it; such an object's plain stored
    /// attributes are written straight into its slots, and `body` gets the object and whether that
    /// happened (`plainLoaded`). Then the row's values of those attributes are not the record's (stale,
    /// from an earlier row, not cleared): `body` reads only its other values. A
    /// fetch of 100,000 objects thereby makes no row value of each attribute only to copy it into a slot.
    func fetch(_ query: StoreQuery, objects: ((ObjectID) -> (object: ManagedObject, loadsHere: Bool))?,
               each body: (StoreRow, _ object: ManagedObject?, _ plainLoaded: Bool) throws -> Void) throws -> Bool {
        try reading { connection in
            guard let sql = try layout.translated(query, { try $0.select() }) else { return false }
            let select = try connection.statement(sql.text)
            select.bind(sql.bindings.map(SQLiteDialect.value))
            defer { select.reset() }
            var row = Self.reusableRow()
            var entities = EntityLookup(layout: layout)
            while try select.step() {
                let (object, plainLoaded) = try decodeRow(select, columnOffset: 0, into: &row, entities: &entities, objects: objects)
                try body(row, object, plainLoaded)
            }
            return true
        }
    }

    public func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? {
        try reads { try $0.fetchIDs(query) }
    }

    public func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        try reading(snapshot: true) { connection in
            // The keys by table; the entity looked up only when the name changes (IDs come grouped).
            var keysByTable: [(table: String, keys: [Int64])] = []
            var lastName: String?, lastGroup = 0
            for id in ids {
                if id.entityName != lastName {
                    guard let entity = layout.entities[id.entityName] else { continue }
                    lastName = id.entityName
                    if let group = keysByTable.firstIndex(where: { $0.table == entity.table }) {
                        lastGroup = group
                    } else {
                        keysByTable.append((entity.table, []))
                        lastGroup = keysByTable.count - 1
                    }
                }
                keysByTable[lastGroup].keys.append(id.key)
            }
            var rows: [StoreRow] = []
            rows.reserveCapacity(ids.count)
            var row = Self.reusableRow()
            var entities = EntityLookup(layout: layout)
            for (name, keys) in keysByTable.sorted(by: { $0.table < $1.table }) {
                guard let table = layout.tables[name] else { continue }
                try Self.forEachRow(ofKeyLists: keys, connection, sql: { table.selectSQL + " WHERE \"Z_PK\" \($0)" }) { select in
                    try decodeRow(select, columnOffset: 0, into: &row, entities: &entities)
                    rows.append(row)
                }
            }
            return rows
        }
    }

    public func count(_ query: StoreQuery) throws -> Int? {
        try reads { try $0.count(query) }
    }

    // MARK: Saving

    public func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        var driver: SQLiteDriver?
        let directory = externalDirectory
        do {
            var committed: ChangeSet?
            return try pool.writeTransaction({ connection in
                let writer = SQLiteDriver(connection, store: self)
                driver = writer
                let result = try SQLSave(layout: layout, model: model, changes: changes, driver: writer,
                                         checksVersions: !Self.testingSkipsVersionCheck.load(ordering: .relaxed)).run()
                if !changes.writesNothing {
                    let changeSet = ChangeSet(committed: changes, result: result)
                    try writeHistory(changeSet, author: changes.author, connection)
                    committed = changeSet
                }
                stage?(changes.inserted.count + changes.updated.count + changes.deleted.count)
                return result
            }, committed: { _ in
                if let committed { changes.published?(committed) }
            }, afterCommit: {
                // Once no read that began before this save is in progress (its snapshot may name them).
                for file in driver?.unreferencedFiles ?? [] { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file)) }
            })
        } catch {
            for file in driver?.writtenFiles ?? [] { try? FileManager.default.removeItem(at: directory.appendingPathComponent(file)) }
            throw error
        }
    }

    // MARK: External storage

    func readExternal(_ file: String) throws -> Data {
        try Data(contentsOf: externalDirectory.appendingPathComponent(file))
    }

    func writeExternal(_ data: Data, _ file: String) throws {
        let target = externalDirectory.appendingPathComponent(file)
        let descriptor = open(target.path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path]) }
        defer { close(descriptor) }
        let ok = data.withUnsafeBytes { bytes -> Bool in
            var offset = 0
            while offset < bytes.count {
                let n = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if n <= 0 { return false }
                offset += n
            }
            return true
        }
        guard ok, fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path]) }
    }

    /// Removes files of the external directory no record refers to (left by a save that failed or was
    /// killed). Holds the write lock, so no other save is between writing its files and committing.
    private func collectUnreferencedExternalFiles() throws {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: externalDirectory.path), !files.isEmpty else { return }
        try pool.writeTransaction { connection in
            var referenced: Set<String> = []
            for entity in layout.entities.values {
                for case .attribute(let column, _, true) in entity.storage {
                    let select = try connection.statement("SELECT \(SQLSchemaPlanner.quote(column)) FROM \(SQLSchemaPlanner.quote(entity.table)) WHERE typeof(\(SQLSchemaPlanner.quote(column))) = 'text'")
                    while try select.step() { referenced.insert(select.text(0)) }
                }
            }
            for file in files where !referenced.contains(file) {
                try? FileManager.default.removeItem(at: externalDirectory.appendingPathComponent(file))
            }
        }
    }
}
