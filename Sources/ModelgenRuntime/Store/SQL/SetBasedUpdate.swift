/// A batch update as one statement over the matching records, written once for every SQL store in
/// its dialect: `UPDATE table SET columns, "Z_OPT" = "Z_OPT" + 1 WHERE "Z_PK" IN (the query's keys)
/// RETURNING` each updated record's key and entity code.
package struct SetBasedUpdate {
    /// The statement: the query's bindings, then the new values.
    private let sql: SQLQueryTranslator.SQL
    /// The names of the attributes it sets (each updated record's change).
    private let names: Set<String>

    /// The update of `values` (by slot) on what `query` matches; nil when it is not one statement: a
    /// value that is no attribute's, a binary the store may keep in a file (`keepsFiles`: its save
    /// writes them), or a query not expressible in SQL.
    package init?(_ query: StoreQuery, set values: [Int: StoreValue], layout: SQLLayout, keepsFiles: Bool) throws {
        let entity = try layout.entity(query.entityName)
        var assignments: [(column: String, binding: QueryBinding)] = []
        var names: Set<String> = []
        for (slot, value) in values.sorted(by: { $0.key < $1.key }) {
            guard case .attribute(let column, let type, let external) = entity.storage[slot], !(external && keepsFiles) else { return nil }
            assignments.append((column, QueryBinding(value: value, columnType: type, isStored: true)))
            names.insert(entity.description.properties[slot].name)
        }
        guard !assignments.isEmpty, var keys = try layout.translated(query, { try $0.matching().keys }) else { return nil }
        let q = SQLSchemaPlanner.quote
        let set = assignments.enumerated().map { "\(q($1.column)) = \(layout.dialect.placeholder(keys.bindings.count + $0 + 1))" }
        keys.text = "UPDATE \(q(entity.table)) SET \(set.joined(separator: ", ")), \"Z_OPT\" = \"Z_OPT\" + 1 "
            + "WHERE \"Z_PK\" IN (\(keys.text)) RETURNING CAST(\"Z_PK\" AS BIGINT), CAST(\"Z_ENT\" AS BIGINT)"
        keys.bindings += assignments.map(\.binding)
        sql = keys
        self.names = names
    }

    /// Runs the statement through `reads`' executor (in the store's write transaction) and returns
    /// what it changed.
    package func run<Executor: SQLExecutor>(_ reads: SQLReads<Executor>) throws -> ChangeSet {
        var changes = ChangeSet()
        try reads.executor.query(sql) { row in
            changes.updated[ObjectID(entityName: try reads.entityName(ofCode: try row.int64(1)), key: try row.int64(0))] = names
        }
        return changes
    }
}
