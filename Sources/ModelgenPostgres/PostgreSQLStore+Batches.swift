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
        let steps = try deletionSteps.value(for: query.entityNames) {
            try SetBasedDeletionSteps(model: model, layout: layout, entityNames: query.entityNames, doomed: doomed) {
                "INSERT INTO \(doomed) (\"t\", \"k\") " + $0 + " ON CONFLICT DO NOTHING"
            }
        }
        // The keys are gathered first when other tables need them after the rows are gone.
        let gathered = !steps.isSingleDelete
        if !gathered, stage == nil { return try deleteWithHistory(steps.tables[0].plan, matching: matching, author: author) }
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

    /// A batch delete that is one `DELETE` (`SetBasedDeletionSteps.isSingleDelete`) as one statement
    /// with its history row and notification, in one round trip: the history row's change set is
    /// made by the statement from the deleted rows, as `ChangeSet.historyJSON()` writes it (a run per
    /// record), under the history lock (as `transaction` takes it), and only when a record was deleted.
    private func deleteWithHistory(_ plan: SetBasedDeletionPlan, matching: SQLQueryTranslator.Matching, author: String) throws -> ChangeSet {
        let literal = SQLSchemaPlanner.literal
        let deleteSQL = matching.condition.map(plan.deleteSQL(condition:)) ?? plan.deleteSQL(keys: matching.keys.text)
        let columns = (0..<(2 + plan.returnedColumns.count)).map { "c\($0)" }
        /// A name as a JSON string.
        func json(_ name: String) -> String { "\"" + name + "\"" }
        /// The name of the entity whose code `code` is (one of `codes`), as a JSON string.
        func name(_ code: String, of codes: [Int64]) -> String {
            let names = codes.sorted().map { ($0, literal(json(layout.namesByCode[$0] ?? ""))) }
            return names.count == 1 ? names[0].1 : "CASE \(code)" + names.map { " WHEN \($0.0) THEN \($0.1)" }.joined() + " END"
        }
        /// What follows a history run's count: JSON text the same for every record (`""`, `,["loans"]`),
        /// or a names list a column of the rows holds.
        enum Tail { case same(String), names(column: String) }
        /// History runs of one record each, `[entity,key,1<tail>]`, of the rows `from` selects, joined by
        /// commas ('' for none); `inKeyOrder`: in the order of their keys, as the change set lists deleted
        /// records (the keys of one table's rows are unique). Of one entity and the same tail, the keys
        /// are joined by `string_agg`'s separator, which carries the rest (one text value a row).
        func runs(entity: String, key: String, codes: [Int64], tail: Tail = .same(""), distinct: Bool = false, inKeyOrder: Bool = false,
                  from: String) -> String {
            let unique = distinct ? "DISTINCT " : "", order = inKeyOrder ? " ORDER BY \(key)" : ""
            switch tail {
            case .same(let after) where codes.count == 1:
                let start = "[" + json(layout.namesByCode[codes[0]] ?? "") + ",", end = ",1" + after + "]"
                return "coalesce((SELECT \(literal(start)) || string_agg(\(unique)\(key)::text, \(literal(end + "," + start))\(order)) || \(literal(end)) FROM \(from)), '')"
            case .same(let after):
                return "coalesce((SELECT string_agg(\(unique)'[' || \(name(entity, of: codes)) || ',' || \(key) || \(literal(",1" + after + "]")), ','\(order)) FROM \(from)), '')"
            case .names(let column):
                return "coalesce((SELECT string_agg(\(unique)'[' || \(name(entity, of: codes)) || ',' || \(key) || ',1,[' || \(column) || ']]', ',') FROM \(from)), '')"
            }
        }
        let deletedCodes = layout.tables[plan.table]?.entityCodes ?? []
        // The records that lost a deleted one: (entity code, key, relationship name), unless deleted too
        // (possible only when they are records of the same table).
        var lost: [(code: Int64, column: Int, inverse: String)] = [], lostCodes: Set<Int64> = [], inDeletedTable = false
        for (code, columns) in plan.lost.sorted(by: { $0.key < $1.key }) {
            guard let entity = layout.namesByCode[code].flatMap({ layout.entities[$0] }) else { continue }
            for (column, inverse, _) in columns {
                guard let slot = entity.storage.firstIndex(where: { if case .toOne(plan.returnedColumns[column - 2]) = $0 { true } else { false } }) else { continue }
                for destination in entity.description.destination(ofSlot: slot).entity.selfAndDescendants {
                    guard let stored = layout.entities[destination.name] else { continue }
                    lostCodes.insert(stored.code)
                    if stored.table == plan.table { inDeletedTable = true }
                }
                lost.append((code, column, inverse))
            }
        }
        /// The deleted rows of entity `lost.code` whose to-one in `lost.column` named a record.
        func losing(_ lost: (code: Int64, column: Int, inverse: String)) -> String {
            "\"doomed\" WHERE c1 = \(lost.code) AND c\(lost.column) IS NOT NULL"
        }
        let updated: String
        if lost.isEmpty {
            updated = "''"
        } else if lost.count == 1, !inDeletedTable {
            // One relationship lost members (the common case): each record once, with that one name.
            let only = lost[0]
            updated = runs(entity: "c\(only.column + 1)", key: "c\(only.column)", codes: Array(lostCodes), tail: .same(",[" + json(only.inverse) + "]"),
                           distinct: true, from: losing(only))
        } else {
            let kept = inDeletedTable ? "WHERE NOT EXISTS (SELECT 1 FROM \"doomed\" AS d WHERE d.c0 = l.k AND d.c1 = l.e) " : ""
            let links = lost.map { "SELECT c\($0.column + 1) AS e, c\($0.column) AS k, \(literal(json($0.inverse))) AS n FROM \(losing($0))" }
            updated = runs(entity: "u.e", key: "u.k", codes: Array(lostCodes), tail: .names(column: "u.names"),
                           from: "(SELECT l.e, l.k, string_agg(DISTINCT l.n, ',') AS names FROM (\(links.joined(separator: " UNION ALL "))) AS l \(kept)GROUP BY l.e, l.k) AS u")
        }
        let changes = """
            '{"format":2,"deleted":[' || \(runs(entity: "c1", key: "c0", codes: deletedCodes, inKeyOrder: true, from: "\"doomed\"")) \
            || '],"inserted":[],"updated":[' || \(updated) || ']}'
            """
        let n = matching.keys.bindings.count
        let sql = "WITH \"doomed\"(\(columns.joined(separator: ", "))) AS (\(deleteSQL)), "
            + "\"written\" AS (INSERT INTO \"modelgen.history\" (\"author\", \"timestamp\", \"changes\") "
            + "SELECT $\(n + 1), $\(n + 2), convert_to(\(changes), 'UTF8') FROM (SELECT pg_advisory_xact_lock(hashtext($\(n + 3))) OFFSET 0) AS \"locked\" "
            + "WHERE EXISTS (SELECT 1 FROM \"doomed\") RETURNING \"token\"), "
            + "\"notified\" AS (SELECT pg_notify($\(n + 4), \"token\"::text) FROM \"written\") "
            + "SELECT string_agg(\(columns.map { "coalesce(\($0)::text, '')" }.joined(separator: " || ',' || ")), ';'), "
            + "(SELECT count(*) FROM \"notified\") FROM \"doomed\""
        var (bindings, types) = try PostgreSQLDialect.typedBindings(matching.keys.bindings)
        bindings.append(author)
        bindings.append(Date().timeIntervalSinceReferenceDate)
        bindings.append(historyLockName)
        bindings.append(channel)
        types += [.text, .float8, .text, .text]
        // Prepared on each connection: the server parses the statement once per connection.
        // The deleted rows come back as one text value (one row per deleted record would cost a message
        // and a decode per value): rows separated by `;`, values by `,`, an empty value NULL.
        let rows = try retryingDeadlocks { try pool.withConnection { try $0.rows(prepared: sql, types: types, bindings) } }
        let text = try rows.first.map { try $0.makeRandomAccess()[0].decode(String?.self) } ?? nil
        var changeSet = ChangeSet()
        for row in text?.split(separator: ";") ?? [] {
            let values = row.split(separator: ",", omittingEmptySubsequences: false).map { Int64($0) }
            guard values.count == columns.count else {
                throw PostgreSQLStoreError.server(sqlState: "XX000", message: "a deleted row came back with \(values.count) values", statement: sql)
            }
            plan.record(deletedRow: { values[$0] }, names: layout.namesByCode, into: &changeSet)
        }
        SetBasedDeletionPlan.finish(&changeSet)
        return changeSet
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
