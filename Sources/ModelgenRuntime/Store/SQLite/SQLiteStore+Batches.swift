import Foundation

/// Batch deletes and updates as set-based statements: the matching records' keys are
/// gathered in a temporary table by one `INSERT … SELECT` of the translated query, then each table is
/// changed with one statement over them, in one write transaction with a history row.
extension SQLiteStore {
    public func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? {
        guard model.allowsSetBasedDeletion(of: query.entityNames), let closure = model.cascadeClosure(of: query.entityNames) else { return nil }
        // Externally stored binaries are files to remove: the record-at-a-time path knows them.
        for entity in try closure.map({ try layout.entity($0.name) }) {
            if entity.columnKinds.contains(where: { if case .attribute(_, true) = $0 { return true } else { return false } }) { return nil }
        }
        guard let matching = try layout.translated(query, { try $0.matching() }) else { return nil }
        let keys = matching.keys
        let steps = try deletionSteps.value(for: query.entityNames) {
            try SetBasedDeletionSteps(model: model, layout: layout, entityNames: query.entityNames, doomed: "temp.\"modelgen.doomed\"") {
                "INSERT OR IGNORE INTO temp.\"modelgen.doomed\" (\"t\", \"k\") " + $0
            }
        }
        // The keys are gathered first when other tables need them after the rows are gone.
        let gathered = !steps.isSingleDelete
        return try pool.writeTransaction { connection in
            defer { if gathered { try? connection.execute("DELETE FROM temp.\"modelgen.doomed\"") } }
            if gathered {
                try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \"modelgen.doomed\" (\"t\" TEXT, \"k\" INTEGER, PRIMARY KEY (\"t\", \"k\")); DELETE FROM temp.\"modelgen.doomed\"")
                let gather = try connection.statement(steps.gatherSQL(keys.text))
                gather.bind(keys.bindings.map(SQLiteDialect.value))
                try gather.execute()
            }
            let changes = try steps.run(matching: matching, names: layout.namesByCode, execute: { sql in
                try connection.execute(sql)
                return connection.changes
            }, select: { sql, bindsMatching, row in
                let statement = try connection.statement(sql)
                if bindsMatching { statement.bind(keys.bindings.map(SQLiteDialect.value)) }
                defer { statement.reset() }
                while try statement.step() { try row { statement.isNull(Int32($0)) ? nil : statement.int64(Int32($0)) } }
            })
            if !changes.isEmpty { try writeHistory(changes, author: author, connection) }
            return changes
        }
    }
}

extension SQLiteStore {
    public func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? {
        let entities = try query.entityNames.map { try layout.entity($0) }
        var assignments: [(column: String, value: SQLiteValue, name: String)] = []
        for (slot, value) in values.sorted(by: { $0.key < $1.key }) {
            // Externally stored binaries are written as files: the record-at-a-time path does that.
            guard case .attribute(let column, let type, false) = entities[0].storage[slot] else { return nil }
            if case .double(let number) = value, number.isNaN { return nil }   // refused by the save path, with its message
            assignments.append((column, SQLiteValueCodec.sqlValue(value, type: type), entities[0].description.properties[slot].name))
        }
        guard !assignments.isEmpty, let keys = try layout.translated(query, { try $0.matching().keys }) else { return nil }
        let q = SQLSchemaPlanner.quote
        // The query's parameters are numbered ?1…?n; the new values follow them.
        let set = assignments.enumerated().map { "\(q($1.column)) = ?\(keys.bindings.count + $0 + 1)" }.joined(separator: ", ")
        let names = Set(assignments.map(\.name))
        return try pool.writeTransaction { connection in
            let update = try connection.statement("UPDATE \(q(entities[0].table)) SET \(set), \"Z_OPT\" = \"Z_OPT\" + 1 WHERE \"Z_PK\" IN (\(keys.text)) RETURNING \"Z_PK\", \"Z_ENT\"")
            update.bind(keys.bindings.map(SQLiteDialect.value) + assignments.map(\.value))
            var changes = ChangeSet()
            do {
                while try update.step() {
                    changes.updated[ObjectID(entityName: try entityName(ofCode: update.int64(1)), key: update.int64(0))] = names
                }
                update.reset()
            } catch {
                update.reset()
                throw error
            }
            if !changes.isEmpty { try writeHistory(changes, author: author, connection) }
            return changes
        }
    }
}
