#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// Batch deletes and updates as set-based statements, as on SQLite: the matching keys in a
/// temporary table (rows dropped at commit), then one statement per table over them, in one
/// transaction with a history row and its notification.
extension PostgreSQLStore {
    public func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? {
        guard model.allowsSetBasedDeletion(of: query.entityNames),
              let matching = try layout.translated(query, { try $0.matching() }) else { return nil }
        let keys = matching.keys
        let doomed = "pg_temp.\"modelgen.doomed\""
        let steps = try SetBasedDeletionSteps(model: model, layout: layout, entityNames: query.entityNames, doomed: doomed) {
            "INSERT INTO \(doomed) (\"t\", \"k\") " + $0 + " ON CONFLICT DO NOTHING"
        }
        // The keys are gathered first when other tables need them after the rows are gone.
        let gathered = !steps.isSingleDelete
        return try transaction { connection, history in
            if gathered {
                try connection.execute("CREATE TEMP TABLE IF NOT EXISTS \"modelgen.doomed\" (\"t\" TEXT, \"k\" BIGINT, PRIMARY KEY (\"t\", \"k\")) ON COMMIT DELETE ROWS")
                // In a migration stage, earlier batches of the stage's transaction left their keys.
                if stage != nil { try connection.execute("DELETE FROM \(doomed)") }
                _ = try connection.rows(steps.gatherSQL(keys.text), try PostgreSQLDialect.bindings(keys.bindings))
            }
            let changes = try steps.run(matching: matching, names: layout.namesByCode, execute: { try connection.rowsChanged(by: $0) }) { sql, bindsMatching, row in
                for returned in try connection.rows(sql, bindsMatching ? try PostgreSQLDialect.bindings(keys.bindings) : PostgresBindings()) {
                    let cells = returned.makeRandomAccess()
                    try row { (try? cells[$0].decode(Int64?.self)) ?? nil }
                }
            }
            if !changes.isEmpty { history = HistoryEntry(changes: changes, author: author) }
            return changes
        }
    }

    public func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? {
        let entities = try query.entityNames.map { try entity($0) }
        guard !values.isEmpty, let keys = try layout.translated(query, { try $0.matching().keys }) else { return nil }
        var bindings = try PostgreSQLDialect.bindings(keys.bindings)
        var assignments: [String] = []
        var names: Set<String> = []
        for (slot, value) in values.sorted(by: { $0.key < $1.key }) {
            guard case .attribute(let column, let type, _) = entities[0].storage[slot] else { return nil }
            let name = entities[0].description.properties[slot].name
            try PostgreSQLSQL.bind(value, type: type, into: &bindings, entity: entities[0].description.name, key: name)
            assignments.append("\(PostgreSQLSQL.quote(column)) = $\(keys.bindings.count + assignments.count + 1)")
            names.insert(name)
        }
        let sql = "UPDATE \(PostgreSQLSQL.quote(entities[0].table)) SET \(assignments.joined(separator: ", ")), \"Z_OPT\" = \"Z_OPT\" + 1 "
            + "WHERE \"Z_PK\" IN (\(keys.text)) RETURNING CAST(\"Z_PK\" AS BIGINT), CAST(\"Z_ENT\" AS BIGINT)"
        return try transaction { connection, history in
            var changes = ChangeSet()
            for row in try connection.rows(sql, bindings) {
                let cells = row.makeRandomAccess()
                guard let name = layout.namesByCode[try cells[1].decode(Int64.self)] else { continue }
                changes.updated[ObjectID(entityName: name, key: try cells[0].decode(Int64.self))] = names
            }
            if !changes.isEmpty { history = HistoryEntry(changes: changes, author: author) }
            return changes
        }
    }
}
#endif
