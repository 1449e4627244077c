import Foundation

/// The reads every SQL store answers alike, written once over the shared layout in the executor's
/// dialect: records and their rows, record IDs, to-many members, counts, aggregate rows, query plans
/// and the history. A record's row is decoded by the driver (`SQLExecutor.storeRow`): that is where
/// engines' value types differ.
package struct SQLReads<Executor: SQLExecutor> {
    package let layout: SQLLayout
    package let executor: Executor

    package init(layout: SQLLayout, executor: Executor) {
        self.layout = layout
        self.executor = executor
    }

    private var dialect: any SQLDialect { executor.dialect }
    private func q(_ name: String) -> String { SQLSchemaPlanner.quote(name) }

    /// The name of the entity a record's code stands for; an error naming the code when the model has none.
    package func entityName(ofCode code: Int64) throws -> String {
        guard let name = layout.namesByCode[code] else { throw executor.unknownEntityCode(code) }
        return name
    }

    /// The IDs of every record of the entities, by table and then key.
    package func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        var codesByTable: [String: [Int64]] = [:]
        for name in entityNames {
            let entity = try layout.entity(name)
            codesByTable[entity.table, default: []].append(entity.code)
        }
        var ids: [ObjectID] = []
        for (table, codes) in codesByTable.sorted(by: { $0.key < $1.key }) {
            try executor.query("SELECT \"Z_PK\", \"Z_ENT\" FROM \(q(table)) WHERE \"Z_ENT\" \(dialect.inKeys(dialect.placeholder(1))) ORDER BY \"Z_PK\"",
                               [.integers(codes)]) { row in
                ids.append(ObjectID(entityName: try entityName(ofCode: try row.int64(1)), key: try row.int64(0)))
            }
        }
        return ids
    }

    /// Calls `member` with the key and entity code of each member of one record's to-many relationship
    /// kept as `storage`, in the relationship's order.
    package func forEachMember(of key: Int64, storage: SQLLayout.Storage, _ member: (Int64, Int64) throws -> Void) throws {
        guard let sql = layout.membersSQL(storage, owners: "= " + dialect.placeholder(1)) else { return }
        try executor.query(sql, [.integer(key)]) { row in try member(try row.int64(1), try row.int64(2)) }
    }

    /// The members of one record's to-many relationship kept as `storage`, in its order.
    package func members(of id: ObjectID, storage: SQLLayout.Storage) throws -> [ObjectID] {
        var ids: [ObjectID] = []
        try forEachMember(of: id.key, storage: storage) { key, code in ids.append(ObjectID(entityName: try entityName(ofCode: code), key: key)) }
        return ids
    }

    /// The row of a record with its to-many relationships; nil when there is none.
    package func row(for id: ObjectID) throws -> StoreRow? {
        guard let entity = layout.entities[id.entityName], let table = layout.tables[entity.table] else { return nil }
        var row: StoreRow?
        try executor.query(table.selectByKeySQL, [.integer(id.key), .integer(entity.code)]) { row = try executor.storeRow($0, from: 0) }
        guard var row else { return nil }
        try addToManyMembers(to: &row)
        return row
    }

    /// The rows of the given records (those that are gone left out), one statement per table.
    package func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        var keysByTable: [String: [Int64]] = [:]
        for id in ids {
            guard let entity = layout.entities[id.entityName] else { continue }
            keysByTable[entity.table, default: []].append(id.key)
        }
        var rows: [StoreRow] = []
        rows.reserveCapacity(ids.count)
        for (name, keys) in keysByTable.sorted(by: { $0.key < $1.key }) {
            guard let table = layout.tables[name] else { continue }
            try executor.query(table.selectSQL + " WHERE \"Z_PK\" " + dialect.inKeys(dialect.placeholder(1)), [.integers(keys)]) {
                rows.append(try executor.storeRow($0, from: 0))
            }
        }
        return rows
    }

    /// The members of one to-many relationship of several records of one table, in one statement.
    package func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] {
        guard let first = ids.first else { return [:] }
        var members = MemberLists(ids)
        guard let sql = layout.membersSQL(try layout.entity(first.entityName), slot: slot, owners: dialect.inKeys(dialect.placeholder(1))) else {
            return members.lists
        }
        try executor.query(sql, [.integers(members.ownerKeys)]) { row in
            members.add(ObjectID(entityName: try entityName(ofCode: try row.int64(2)), key: try row.int64(1)), toOwnerKey: try row.int64(0))
        }
        return members.lists
    }

    /// The member lists and the members' rows in one statement (`membersWithRowsSQL`, through join
    /// tables too: a member shared by several owners comes once per link, its row decoded once); the
    /// lists alone (rows nil) for a slot whose members are not read so.
    package func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?) {
        guard let first = ids.first else { return ([:], []) }
        guard let sql = layout.membersWithRowsSQL(try layout.entity(first.entityName), slot: slot,
                                                  owners: dialect.inKeys(dialect.placeholder(1))) else {
            return (try toManyIDs(of: ids, relationship: slot), nil)
        }
        var members = MemberLists(ids)
        var rows: [StoreRow] = []
        var decoded: Set<RecordKey> = []
        try executor.query(sql, [.integers(members.ownerKeys)]) { found in
            let owner = try found.int64(0)
            if let member = try found.memberWithoutRow(decoded: &decoded, entityName: entityName(ofCode:)) {
                return members.add(member, toOwnerKey: owner)   // a gone one is left a fault
            }
            let row = try executor.storeRow(found, from: 1)
            members.add(row.id, toOwnerKey: owner)
            rows.append(row)
        }
        return (members.lists, rows)
    }

    /// Calls `body` with each record a query matches, in order; false when it is not expressible in SQL.
    /// The members of `query.toManySlotsWithRows` come in the rows where the engine returns arrays.
    package func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool {
        let entity = try layout.entity(query.entityName)
        let withRows = query.toManySlotsWithRows.compactMap { slot -> (slot: Int, sql: String, members: String)? in
            guard let sql = layout.memberKeysSQL(entity, slot: slot, owner: "t0.\"Z_PK\"").flatMap(dialect.keyArray) else { return nil }
            return (slot, sql, entity.description.destination(ofSlot: slot).entity.name)
        }
        guard let sql = try layout.translated(query, { try $0.select(adding: withRows.map(\.sql)) }) else { return false }
        let first = layout.tables[entity.table]!.columns.count
        try executor.query(sql) { result in
            var row = try executor.storeRow(result, from: 0)
            for (index, members) in withRows.enumerated() where members.slot < row.values.count {
                row.values[members.slot] = .references(try result.keys(first + index).map { ObjectID(entityName: members.members, key: $0) })
            }
            try body(row)
        }
        return true
    }

    /// Fills the to-many slots of `row` (a record's row as its table holds it) with their members.
    package func addToManyMembers(to row: inout StoreRow) throws {
        let entity = try layout.entity(row.id.entityName)
        for (slot, storage) in entity.storage.enumerated() {
            switch storage {
            case .toManyByInverse, .toManyByJoin: row.values[slot] = .references(try members(of: row.id, storage: storage))
            default: break
            }
        }
        row.hasToManyValues = true
    }

    /// The number a `SELECT count(*)` statement with one parameter, `key`, answers; 0 without a statement.
    package func count(_ sql: String?, key: Int64) throws -> Int {
        guard let sql else { return 0 }
        var count = 0
        try executor.query(sql, [.integer(key)]) { row in count = Int(try row.int64(0)) }
        return count
    }

    /// The IDs of the records a query matches, in its order; nil when it is not expressible in SQL.
    package func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? {
        guard let sql = try layout.translated(query, { try $0.select(onlyIDs: true) }) else { return nil }
        var ids = ObjectIDList()
        try executor.query(sql) { row in ids.append(key: try row.int64(0), entityName: try entityName(ofCode: try row.int64(1))) }
        return ids
    }

    /// How many records a query matches; nil when it is not expressible in SQL.
    package func count(_ query: StoreQuery) throws -> Int? {
        guard let sql = try layout.translated(query, { try $0.count() }) else { return nil }
        var count = 0
        try executor.query(sql) { row in count = Int(try row.int64(0)) }
        return count
    }

    /// The rows of an aggregate query: a value column each, an object as its key and entity code; nil
    /// when it is not expressible in SQL.
    package func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? {
        guard let (sql, outputs) = try layout.translated(query, { try $0.aggregate(groupBy: groupBy, columns: columns) }) else { return nil }
        let names = groupBy + columns.map(\.name)
        var rows: [AggregateRow] = []
        try executor.query(sql) { row in
            rows.append(AggregateRow(values: Dictionary(uniqueKeysWithValues: zip(names, try values(of: row, outputs, from: 0)))))
        }
        return rows
    }

    /// The rows of a projection (each record's key and entity code, then its values); nil when it is
    /// not expressible in SQL.
    package func project(_ query: StoreQuery, properties: [ProjectedProperty]) throws -> [ProjectedRow]? {
        guard let (sql, outputs) = try layout.translated(query, { try $0.project(properties) }) else { return nil }
        let names = properties.map(\.name)
        var rows: [ProjectedRow] = []
        try executor.query(sql) { row in
            let id = ObjectID(entityName: try entityName(ofCode: try row.int64(1)), key: try row.int64(0))
            rows.append(ProjectedRow(objectID: id, names: names, values: try values(of: row, outputs, from: 2)))
        }
        return rows
    }

    /// The values of a row's output columns from `column` on: a value column each, a record as its key
    /// and entity code.
    private func values(of row: Executor.Row, _ outputs: [SQLQueryTranslator.Output], from column: Int) throws -> [StoreValue] {
        var column = column
        var values: [StoreValue] = []
        values.reserveCapacity(outputs.count)
        for output in outputs {
            switch output {
            case .value(let type):
                values.append(try row.value(column, type: type))
                column += 1
            case .object:
                values.append(try row.isNull(column) ? .reference(nil)
                    : .reference(ObjectID(entityName: try entityName(ofCode: try row.int64(column + 1)), key: try row.int64(column))))
                column += 2
            }
        }
        return values
    }

    /// The engine's plan of the query's SQL, or what the translation to SQL could not express.
    package func queryPlan(_ query: StoreQuery) throws -> QueryPlan {
        let sql: SQLQueryTranslator.SQL
        do {
            sql = try SQLQueryTranslator(layout: layout, query: query, dialect: dialect).select()
        } catch let unsupported as SQLQueryTranslator.Unsupported {
            return .inMemory(reason: unsupported.reason)
        }
        let (explain, column) = dialect.explain(sql.text)
        var lines: [String] = []
        try executor.query(SQLQueryTranslator.SQL(text: explain, bindings: sql.bindings)) { row in
            if case .string(let line) = try row.value(column, type: .string) { lines.append(line) }
        }
        return .sql(lines.joined(separator: "\n"))
    }

    /// The saves recorded in `modelgen.history` after `token`, in order.
    package func historyTransactions(after token: Int64) throws -> [HistoryTransaction] {
        var transactions: [HistoryTransaction] = []
        try executor.query("SELECT \"token\", \"author\", \"timestamp\", \"changes\" FROM \"modelgen.history\" WHERE \"token\" > \(dialect.placeholder(1)) ORDER BY \"token\"",
                           [.integer(token)]) { row in
            guard case .string(let author) = try row.value(1, type: .string), case .double(let timestamp) = try row.value(2, type: .double),
                  case .data(let changes) = try row.value(3, type: .binary) else { throw RuntimeError.invalidModel("a history row of another shape") }
            transactions.append(HistoryTransaction(token: try row.int64(0), author: author, timestamp: Date(timeIntervalSinceReferenceDate: timestamp),
                                                   changes: try ChangeSet(history: changes)))
        }
        return transactions
    }

    /// The token of the last save `modelgen.history` records (0 for none).
    package func latestHistoryToken() throws -> Int64 {
        var token: Int64 = 0
        try executor.query("SELECT coalesce(max(\"token\"), 0) FROM \"modelgen.history\"", []) { token = try $0.int64(0) }
        return token
    }
}
