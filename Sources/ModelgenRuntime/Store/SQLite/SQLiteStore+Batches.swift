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
        // SQLite keeps no NaN: the save path refuses one, with its message.
        if values.values.contains(where: { if case .double(let number) = $0 { number.isNaN } else { false } }) { return nil }
        guard let update = try SetBasedUpdate(query, set: values, layout: layout, keepsFiles: true) else { return nil }
        return try pool.writeTransaction { connection in
            let changes = try update.run(SQLReads(layout: layout, executor: SQLiteDriver(connection, store: self)))
            if !changes.isEmpty { try writeHistory(changes, author: author, connection) }
            return changes
        }
    }
}
