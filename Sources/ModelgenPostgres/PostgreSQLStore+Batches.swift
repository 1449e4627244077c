#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// Batch deletes and updates as set-based statements (`SetBasedDeletionSteps`, `SetBasedUpdate`), as
/// on SQLite, in one transaction with a history row and its notification; a batch delete that is one
/// `DELETE` is one statement with its history row.
extension PostgreSQLStore {
    public func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? {
        guard model.allowsSetBasedDeletion(of: query.entityNames),
              let matching = try layout.translated(query, { try $0.matching() }) else { return nil }
        let steps = try deletionSteps.value(for: query.entityNames) {
            try SetBasedDeletionSteps(model: model, layout: layout, entityNames: query.entityNames)
        }
        if steps.isSingleDelete, stage == nil { return try deleteWithHistory(steps.tables[0].plan, matching: matching, author: author) }
        return try transaction { connection, history in
            let changes = try steps.run(matching: matching, names: layout.namesByCode, executor: PostgreSQLDriver(connection, store: self))
            if !changes.isEmpty { history = HistoryEntry(changes: changes, author: author) }
            return changes
        }
    }

    /// A batch delete that is one `DELETE` (`SetBasedDeletionSteps.isSingleDelete`) as one statement
    /// with its history row and notification, in one round trip: the deleted rows come back as one
    /// text value (`DeletedRows`: one row per deleted record would cost a message and a decode per
    /// value), and when there are any, `mg_record_history` writes the same text as the history row
    /// (format 3) under the history lock, as a save's history is written.
    private func deleteWithHistory(_ plan: SetBasedDeletionPlan, matching: SQLQueryTranslator.Matching, author: String) throws -> ChangeSet {
        let deleteSQL = plan.deleteSQL(matching: matching)
        let n = matching.keys.bindings.count
        let (sql, header) = deleteStatement(plan, deleteSQL: deleteSQL, bound: n)
        var (bindings, types) = try PostgreSQLDialect.typedBindings(matching.keys.bindings)
        bindings.append(author)
        bindings.append(Date().timeIntervalSinceReferenceDate)
        bindings.append(historyLockName)
        bindings.append(channel)
        types += [.text, .float8, .text, .text]
        // Prepared on each connection: the server parses the statement once per connection.
        let rows = try retryingDeadlocks { try pool.withConnection { try $0.rows(prepared: sql, types: types, bindings) } }
        var deleted = header
        deleted.rows = try rows.first.map { try $0.makeRandomAccess()[0].decode(String?.self) ?? "" } ?? ""
        do {
            return try deleted.changeSet()
        } catch {
            throw PostgreSQLStoreError.server(sqlState: "XX000", message: "the deleted rows came back unreadable: \(error)", statement: sql)
        }
    }

    /// The one statement of a batch delete whose `DELETE` is `deleteSQL` (with `bound` parameters),
    /// made once for each of the first 64 shapes, and the rows it returns without their text.
    private func deleteStatement(_ plan: SetBasedDeletionPlan, deleteSQL: String, bound: Int) -> (sql: String, header: DeletedRows) {
        if let made = deleteStatements.withLock({ $0[deleteSQL] }) { return made }
        let columns = (0..<(2 + plan.returnedColumns.count)).map { "c\($0)" }
        // The names of the entity codes the rows may hold: the table's, and those of the records that lose one.
        var codes = Set(layout.tables[plan.table]?.entityCodes ?? [])
        for (code, lost) in plan.lost {
            guard let entity = layout.namesByCode[code].flatMap({ layout.entities[$0] }) else { continue }
            for (column, _, _) in lost {
                guard let slot = entity.storage.firstIndex(where: { if case .toOne(plan.returnedColumns[column - 2]) = $0 { true } else { false } }) else { continue }
                for destination in entity.description.destination(ofSlot: slot).entity.selfAndDescendants {
                    if let stored = layout.entities[destination.name] { codes.insert(stored.code) }
                }
            }
        }
        let header = DeletedRows(plan: plan, names: layout.namesByCode.filter { codes.contains($0.key) })
        let literal = SQLSchemaPlanner.literal
        let rowText = columns.map { "coalesce(\($0)::text, '')" }.joined(separator: " || ',' || ")
        let sql = "WITH \"doomed\"(\(columns.joined(separator: ", "))) AS (\(deleteSQL)), "
            + "\"deleted\"(\"rows\") AS (SELECT string_agg(\(rowText), ';') FROM \"doomed\") "
            + "SELECT \"rows\", CASE WHEN \"rows\" IS NOT NULL THEN mg_record_history($\(bound + 1), $\(bound + 2), "
            + "convert_to(\(literal(header.historyPrefix)) || \"rows\" || '\"}', 'UTF8'), $\(bound + 3), $\(bound + 4)) END FROM \"deleted\""
        let made = (sql: sql, header: header)
        deleteStatements.withLock { if $0.count < 64 { $0[deleteSQL] = made } }
        return made
    }

    public func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? {
        guard let update = try SetBasedUpdate(query, set: values, layout: layout, keepsFiles: false) else { return nil }
        return try transaction { connection, history in
            let changes = try update.run(SQLReads(layout: layout, executor: PostgreSQLDriver(connection, store: self)))
            if !changes.isEmpty { history = HistoryEntry(changes: changes, author: author) }
            return changes
        }
    }
}
#endif
