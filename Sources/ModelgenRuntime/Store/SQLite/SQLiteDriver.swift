import CSQLite
import Foundation

/// SQLite's driver: runs the shared statements (`SQLReads`, `SQLSave`) on one connection, statement by
/// statement, and writes records' rows with one prepared statement a row, binding values straight from
/// the rows. Binaries of `externalStorage` attributes at or above the store's threshold go to files;
/// the driver remembers the files it wrote (removed if the save fails) and those no record refers to
/// any more (removed after the commit).
final class SQLiteDriver: SQLSaveDriver {
    let connection: SQLiteConnection
    let store: SQLiteStore
    private(set) var writtenFiles: [String] = []
    private(set) var unreferencedFiles: Set<String> = []

    init(_ connection: SQLiteConnection, store: SQLiteStore) {
        self.connection = connection
        self.store = store
    }

    var dialect: any SQLDialect { SQLiteDialect() }

    func unknownEntityCode(_ code: Int64) -> any Error { store.unknownEntityCode(code) }

    func storeRow(_ row: SQLiteStatement, from column: Int) throws -> StoreRow { try store.decodeRow(row, columnOffset: Int32(column)) }

    func run(_ sql: String, _ parameters: [SQLParameter]) throws {
        let statement = try prepared(sql, parameters)
        try statement.execute()
    }

    func query(_ sql: String, _ parameters: [SQLParameter], row: (SQLiteStatement) throws -> Void) throws {
        let statement = try prepared(sql, parameters)
        defer { statement.reset() }
        while try statement.step() { try row(statement) }
    }

    func query(_ translated: SQLQueryTranslator.SQL, row: (SQLiteStatement) throws -> Void) throws {
        let statement = try connection.statement(translated.text)
        statement.bind(translated.bindings.map(SQLiteDialect.value))
        defer { statement.reset() }
        while try statement.step() { try row(statement) }
    }

    func rowsChanged(by sql: String) throws -> Int {
        try connection.execute(sql)
        return connection.changes
    }

    func flush() throws {}

    private func prepared(_ sql: String, _ parameters: [SQLParameter]) throws -> SQLiteStatement {
        let statement = try connection.statement(sql)
        for (offset, parameter) in parameters.enumerated() {
            let index = Int32(offset + 1)
            switch parameter {
            case .integer(let value): sqlite3_bind_int64(statement.handle, index, value)
            case .text(let value): statement.bind(.text(value), at: index)
            case .integers(let keys):
                // A JSON array, which `json_each` reads as a table.
                var text = "["
                text.reserveCapacity(keys.count * 8 + 2)
                for (position, key) in keys.enumerated() {
                    if position > 0 { text += "," }
                    text += String(key)
                }
                statement.bind(.text(text + "]"), at: index)
            }
        }
        return statement
    }

    // MARK: Writing rows

    /// Keys never given before in each table (the write lock is held): `modelgen.keys` remembers each
    /// table's last key, so a key of a deleted record never names another record, even when the
    /// deleted one had the largest key.
    func drawKeys(_ counts: [(table: String, count: Int)], inserting rows: [StoreRow], _ groups: [SQLRowGroup]) throws -> [String: [Int64]] {
        var keys: [String: [Int64]] = [:]
        for (table, count) in counts {
            var last = Int64(count)
            try query(Self.drawKeysSQL(table), [.text(table), .integer(Int64(count))]) { last = $0.int64(0) }
            keys[table] = Array((last - Int64(count) + 1)...last)
        }
        return keys
    }

    /// The last key given in each table. A store made before this table existed has no row for a
    /// table yet; its largest stored key stands in.
    static let createKeysTable = """
        CREATE TABLE IF NOT EXISTS "modelgen.keys" ("table" TEXT PRIMARY KEY, "last" INTEGER NOT NULL)
        """

    /// Moves `table`'s last key on by the count (parameter 2) and returns it: the keys drawn end there.
    static func drawKeysSQL(_ table: String) -> String {
        let largest = "(SELECT coalesce(max(\"Z_PK\"), 0) FROM \(SQLSchemaPlanner.quote(table)))"
        return "INSERT INTO \"modelgen.keys\" (\"table\", \"last\") VALUES (?1, \(largest) + ?2) "
            + "ON CONFLICT (\"table\") DO UPDATE SET \"last\" = max(\"last\", \(largest)) + ?2 RETURNING \"last\""
    }

    func insert(_ rows: [StoreRow], _ group: SQLRowGroup, keys: [Int64], resolve: (ObjectID) -> ObjectID) throws {
        let entity = group.entity
        let statement = try connection.statement(entity.insertSQL)
        for (index, key) in zip(group.indices, keys) {
            statement.bind(.integer(key), at: 1)
            statement.bind(.integer(entity.code), at: 2)
            _ = try bindColumns(rows[index], entity, resolve, to: statement, from: 3, previous: [:])
            try statement.execute()
        }
    }

    func update(_ rows: [StoreRow], _ group: SQLRowGroup, slots: [Int]?, resolve: (ObjectID) -> ObjectID) throws -> () throws -> [Int64?] {
        let entity = group.entity
        let update = try connection.statement(slots.map(entity.updateSQL(slots:)) ?? entity.updateSQL)
        var versions: [Int64?] = []
        versions.reserveCapacity(group.indices.count)
        for index in group.indices {
            let row = rows[index]
            let previousFiles = try externalFiles(of: row.id.key, entity).filter { slots?.contains($0.key) ?? true }
            let bound = try bindColumns(row, entity, resolve, to: update, from: 1, slots: slots, previous: previousFiles)
            update.bind(.integer(row.id.key), at: bound.next)
            update.bind(.integer(entity.code), at: bound.next + 1)
            versions.append(try update.step() ? update.int64(0) : nil)
            update.reset()
            let kept = Set(bound.files.values)
            unreferencedFiles.formUnion(previousFiles.values.filter { !kept.contains($0) })
        }
        return { versions }
    }

    func willDelete(keys: [Int64], of entity: SQLLayout.Entity) throws {
        for key in keys { unreferencedFiles.formUnion(try externalFiles(of: key, entity).values) }
    }

    /// Binds the column values of a row's attributes and to-one relationships, in the layout's slot
    /// order (as `insertSQL` and `updateSQL` name them; only those of `slots` when given, as
    /// `updateSQL(slots:)` names them), to `statement` from parameter `first`; large external binaries
    /// are written to files (reusing a previous file with the same bytes). Returns the next free
    /// parameter and the external files bound, by slot.
    private func bindColumns(_ row: StoreRow, _ entity: SQLLayout.Entity, _ resolve: (ObjectID) -> ObjectID,
                             to statement: SQLiteStatement, from first: Int32, slots: [Int]? = nil,
                             previous: [Int: String]) throws -> (next: Int32, files: [Int: String]) {
        var parameter = first
        var files: [Int: String] = [:]
        let kinds = entity.columnKinds, values = row.values
        statement.beginRow()   // every parameter is bound for each row
        func bind(_ slot: Int) throws {
            let value = slot < values.count ? values[slot] : .null
            switch kinds[slot] {
            case .attribute(let type, let external):
                // The common values are bound directly (no `SQLiteValue` in between: one copy fewer a column).
                switch value {
                case .int(let v) where type != .double && type != .float:
                    sqlite3_bind_int64(statement.handle, parameter, v)
                    parameter += 1
                    return
                case .double(let v) where !v.isNaN && !type.isInteger:
                    sqlite3_bind_double(statement.handle, parameter, v)
                    parameter += 1
                    return
                case .date(let v):
                    sqlite3_bind_double(statement.handle, parameter, v.timeIntervalSinceReferenceDate)
                    parameter += 1
                    return
                case .bool(let v):
                    sqlite3_bind_int64(statement.handle, parameter, v ? 1 : 0)
                    parameter += 1
                    return
                case .null:
                    sqlite3_bind_null(statement.handle, parameter)
                    parameter += 1
                    return
                case .string(let v):
                    statement.bindRowText(v, at: parameter)
                    parameter += 1
                    return
                default: break
                }
                if case .double(let number) = value, number.isNaN {
                    throw SQLiteStoreError.unstorableValue(entity: entity.description.name, key: entity.description.properties[slot].name,
                                                           record: row.id.description, reason: "NaN cannot be stored in SQLite (it would read back as NULL)")
                }
                if external, case .data(let data) = value, data.count >= store.externalStorageThreshold {
                    let file: String
                    if let old = previous[slot], (try? store.readExternal(old)) == data {
                        file = old
                    } else {
                        file = UUID().uuidString
                        try FileManager.default.createDirectory(at: store.externalDirectory, withIntermediateDirectories: true)
                        writtenFiles.append(file)
                        try store.writeExternal(data, file)
                    }
                    files[slot] = file
                    statement.bind(.text(file), at: parameter)
                } else {
                    statement.bind(SQLiteValueCodec.sqlValue(value, type: type), at: parameter)
                }
                parameter += 1
            case .toOne:
                if case .reference(let target?) = value {
                    let target = resolve(target)
                    statement.bind(.integer(target.key), at: parameter)
                    statement.bind(.integer(store.layout.entities[target.entityName]?.code ?? 0), at: parameter + 1)
                } else {
                    statement.bind(.null, at: parameter)
                    statement.bind(.null, at: parameter + 1)
                }
                parameter += 2
            case .none, .toMany:
                break
            }
        }
        if let slots {
            for slot in slots { try bind(slot) }
        } else {
            for slot in kinds.indices { try bind(slot) }
        }
        return (parameter, files)
    }

    /// The external files a record refers to, by slot.
    private func externalFiles(of key: Int64, _ entity: SQLLayout.Entity) throws -> [Int: String] {
        var files: [Int: String] = [:]
        for (slot, storage) in entity.storage.enumerated() {
            guard case .attribute(let name, _, true) = storage else { continue }
            let column = SQLSchemaPlanner.quote(name)
            try query("SELECT \(column) FROM \(SQLSchemaPlanner.quote(entity.table)) WHERE \"Z_PK\" = ?1 AND typeof(\(column)) = 'text'",
                      [.integer(key)]) { files[slot] = $0.text(0) }
        }
        return files
    }
}

extension SQLiteStatement: SQLResultRow {
    func int64(_ column: Int) -> Int64 { int64(Int32(column)) }
    func isNull(_ column: Int) -> Bool { isNull(Int32(column)) }
    var columnCount: Int { Int(sqlite3_column_count(handle)) }
    func value(_ column: Int, type: AttributeType) -> StoreValue { SQLiteValueCodec.storeValue(self, Int32(column), type: type) }
    func keys(_ column: Int) -> [Int64] { preconditionFailure("SQLite returns no arrays (SQLiteDialect.keyArray is nil)") }
}
