import Foundation

/// Batch deletes and updates as set-based statements (issue 41): the matching records' keys are
/// gathered in a temporary table by one `INSERT … SELECT` of the translated query, then each table is
/// changed with one statement over them, in one write transaction with a history row.
extension SQLiteStore {
    public func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? {
        guard model.allowsSetBasedDeletion(of: query.entityNames) else { return nil }
        let entities = try query.entityNames.map { try layout.entity($0) }
        // Externally stored binaries are files to remove: the record-at-a-time path knows them.
        if entities.contains(where: { $0.columnKinds.contains { if case .attribute(_, true) = $0 { return true } else { return false } } }) { return nil }
        guard let keys = try? SQLQueryTranslator(layout: layout, query: query, dialect: SQLiteDialect()).matchingKeys() else { return nil }
        let q = SQLiteSchemaPlanner.quote
        let matched = "(SELECT \"k\" FROM temp.\"modelgen.matched\")"
        // What the rows tell of the related records that lose them: to-one columns whose inverse is to-many.
        var returnedColumns: [String] = []
        var lost: [Int64: [(column: Int, inverse: String)]] = [:]   // by entity code: returned column index, inverse name
        // The related records' columns and join rows, one statement each.
        var statements: [(sql: String, inverse: String?)] = []
        var seenTables: Set<String> = []
        for entity in entities {
            for (slot, storage) in entity.storage.enumerated() {
                guard case .relationship(let r) = entity.description.properties[slot] else { continue }
                let (destination, inverseSlot) = entity.description.destination(ofSlot: slot)
                let inverse = inverseSlot.flatMap { slot -> RelationshipDescription? in
                    if case .relationship(let inverse) = destination.properties[slot] { return inverse } else { return nil }
                }
                switch storage {
                case .toOne(let column):
                    guard let inverse, inverse.isToMany else { continue }
                    var index = returnedColumns.firstIndex(of: column)
                    if index == nil {
                        returnedColumns += [column, column + ".entity"]
                        index = returnedColumns.count - 2
                    }
                    lost[entity.code, default: []].append((index! + 2, inverse.name))
                case .toManyByInverse(let table, let column, let order):
                    guard r.deleteRule == .nullify, let inverse, seenTables.insert("\(table).\(column)").inserted else { continue }
                    let orderClear = order.map { ", \(q($0)) = NULL" } ?? ""
                    statements.append(("UPDATE \(q(table)) SET \(q(column)) = NULL, \(q(column + ".entity")) = NULL\(orderClear), \"Z_OPT\" = \"Z_OPT\" + 1 "
                                       + "WHERE \(q(column)) IN \(matched) RETURNING \"Z_PK\", \"Z_ENT\"", inverse.name))
                case .toManyByJoin(let table):
                    guard seenTables.insert(table).inserted else { continue }
                    let reported = r.deleteRule == .nullify ? inverse : nil
                    statements.append(("DELETE FROM \(q(table)) WHERE \"source\" IN \(matched) RETURNING \"target\", \"target.entity\"", reported?.name))
                    if let reported, let inverseSlot, let other = layout.entities[destination.name],
                       case .toManyByJoin(let inverseTable) = other.storage[inverseSlot], seenTables.insert(inverseTable).inserted {
                        statements.append(("DELETE FROM \(q(inverseTable)) WHERE \"target\" IN \(matched)", nil))
                    }
                default:
                    continue
                }
            }
        }
        let table = entities[0].table
        return try pool.writeTransaction { connection in
            // The keys are gathered first when other tables need them after the rows are gone.
            if !statements.isEmpty {
                try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \"modelgen.matched\" (\"k\" INTEGER PRIMARY KEY); DELETE FROM temp.\"modelgen.matched\"")
                let gather = try connection.statement("INSERT INTO temp.\"modelgen.matched\" \(keys.text)")
                gather.bind(keys.bindings.map(SQLiteDialect.value))
                try gather.execute()
            }
            var changes = ChangeSet()
            let returning = ([q("Z_PK"), q("Z_ENT")] + returnedColumns.map(q)).joined(separator: ", ")
            let delete = try connection.statement("DELETE FROM \(q(table)) WHERE \"Z_PK\" IN \(statements.isEmpty ? "(\(keys.text))" : matched) RETURNING \(returning)")
            if statements.isEmpty { delete.bind(keys.bindings.map(SQLiteDialect.value)) }
            while try delete.step() {
                let code = delete.int64(1)
                guard let name = layout.namesByCode[code] else { throw unknownEntityCode(code) }
                changes.deleted.append(ObjectID(entityName: name, key: delete.int64(0)))
                for (column, inverse) in lost[code] ?? [] where !delete.isNull(Int32(column)) {
                    if let related = layout.namesByCode[delete.int64(Int32(column + 1))] {
                        changes.updated[ObjectID(entityName: related, key: delete.int64(Int32(column))), default: []].insert(inverse)
                    }
                }
            }
            delete.reset()
            for (sql, inverse) in statements {
                let statement = try connection.statement(sql)
                while try statement.step() {
                    guard let inverse, let related = layout.namesByCode[statement.int64(1)] else { continue }
                    changes.updated[ObjectID(entityName: related, key: statement.int64(0)), default: []].insert(inverse)
                }
                statement.reset()
            }
            if !statements.isEmpty { try connection.execute("DELETE FROM temp.\"modelgen.matched\"") }
            // A related record deleted by the same batch is only deleted.
            for id in changes.deleted { changes.updated[id] = nil }
            changes.deleted.sort { $0.key < $1.key }
            if !changes.isEmpty { try writeHistory(changes, author: author, connection) }
            return changes
        }
    }
}
