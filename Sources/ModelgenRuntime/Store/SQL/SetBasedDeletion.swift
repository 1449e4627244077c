/// When a batch delete can run as set-based statements in a SQL store (`DELETE … WHERE`, the related
/// records' columns and join rows cleared with one statement each) with the outcome of deleting the
/// records one by one: what each relationship of the deleted records asks of the related records
/// must be something a statement can do without reading them.
extension ManagedObjectModel {
    /// The entities whose records a delete of `entityNames`'s records reaches (themselves, and through
    /// `cascade` rules the destinations with their subentities, again and again), in the order first
    /// reached; nil when a name is unknown.
    package func cascadeClosure(of entityNames: [String]) -> [EntityDescription]? {
        var closure: [EntityDescription] = []
        var seen: Set<String> = []
        var queue: [EntityDescription] = []
        for name in entityNames {
            guard let entity = entity(named: name) else { return nil }
            queue.append(entity)
        }
        while let entity = queue.first {
            queue.removeFirst()
            guard seen.insert(entity.name).inserted else { continue }
            closure.append(entity)
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, !r.isTransient, r.deleteRule == .cascade else { continue }
                queue += entity.destination(ofSlot: slot).entity.selfAndDescendants
            }
        }
        return closure
    }

    /// Whether the records of these entities (an entity and its subentities) can be deleted set-based,
    /// with the records their `cascade` rules reach: no relationship of those is one-to-one (the other
    /// record's own column would change), and where a related record stays (`nullify`, `noAction`) its
    /// relationship has no minimum or maximum count and is not required (losing a member must not
    /// need a check) and its entity derives no attribute (a derived count would go stale). `cascade`
    /// adds the related records to the delete and `deny` refuses the whole batch when one exists, both
    /// in SQL. Otherwise a batch delete reads the records and commits their deletion as a save does.
    package func allowsSetBasedDeletion(of entityNames: [String]) -> Bool {
        guard let closure = cascadeClosure(of: entityNames) else { return false }
        for entity in closure {
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, !r.isTransient else { continue }
                let (destination, inverseSlot) = entity.destination(ofSlot: slot)
                guard let inverseSlot, case .relationship(let inverse) = destination.properties[inverseSlot] else { continue }
                if !r.isToMany && !inverse.isToMany { return false }
                if r.deleteRule == .cascade || r.deleteRule == .deny { continue }   // the related records go, or must not exist
                if inverse.minCount != nil || inverse.maxCount != nil || !inverse.isOptional { return false }
                if destination.selfAndDescendants.contains(where: { !$0.derivations.isEmpty }) { return false }
            }
        }
        return true
    }
}

/// The steps of a set-based delete with its cascades and denials (shared by the SQL stores): the
/// matching records' keys are put in a temporary table of doomed records (table name, key); each
/// `cascade` relationship's statement adds the records it reaches, run in rounds until a round adds
/// none (cycles end: the table only grows); each `deny` relationship's query lists the records that
/// would keep pointing at a doomed one (any row refuses the batch); then each table's
/// `SetBasedDeletionPlan` deletes its doomed rows and clears what pointed at them.
package struct SetBasedDeletionSteps {
    /// The temporary table's name as statements write it (`temp."modelgen.doomed"`, `pg_temp."modelgen.doomed"`).
    package let doomed: String
    /// Statements that add the records the cascade rules reach from the doomed ones (run in rounds).
    package var cascades: [String] = []
    /// Queries returning (doomed record's key, its entity code, related record's key, its entity code)
    /// for each link a `deny` rule forbids, with the relationship's name.
    package var denials: [(sql: String, relationship: String)] = []
    /// Each table with records to delete, and its plan.
    package var tables: [(table: String, plan: SetBasedDeletionPlan)] = []

    /// The doomed keys of one table, as a subquery.
    package func keys(of table: String) -> String { "(" + keysSQL(of: table) + ")" }

    /// The `SELECT` of the doomed keys of one table.
    package func keysSQL(of table: String) -> String {
        "SELECT \"k\" FROM \(doomed) WHERE \"t\" = \(SQLSchemaPlanner.literal(table))"
    }

    /// The `INSERT` of the matching records' keys (`matchingKeys`, a `SELECT` of one key column) into the doomed table.
    package func gatherSQL(_ matchingKeys: String) -> String {
        "INSERT INTO \(doomed) (\"t\", \"k\") SELECT \(SQLSchemaPlanner.literal(tables[0].table)), matched.\"Z_PK\" FROM (\(matchingKeys)) AS matched"
    }

    /// Whether one `DELETE` of the matching keys is the whole batch: nothing cascades or denies, and
    /// nothing else changes (the keys need no gathering).
    package var isSingleDelete: Bool {
        cascades.isEmpty && denials.isEmpty && tables.count == 1 && tables[0].plan.statements.isEmpty
    }

    /// The steps for deleting records of `entityNames` (one root table), in `layout`'s dialect.
    package init(model: ManagedObjectModel, layout: SQLLayout, entityNames: [String]) throws {
        let doomed = layout.dialect.doomedTable.name
        self.doomed = doomed
        let insertIgnoring = { layout.dialect.insertSkippingDuplicates(into: doomed, $0) }
        guard let closure = model.cascadeClosure(of: entityNames) else { return }
        let q = SQLSchemaPlanner.quote
        var entitiesByTable: [(table: String, names: [String])] = []
        for entity in closure {
            let stored = try layout.entity(entity.name)
            if let index = entitiesByTable.firstIndex(where: { $0.table == stored.table }) {
                entitiesByTable[index].names.append(entity.name)
            } else {
                entitiesByTable.append((stored.table, [entity.name]))
            }
            for (slot, storage) in stored.storage.enumerated() {
                guard case .relationship(let r) = entity.properties[slot], !r.isTransient,
                      r.deleteRule == .cascade || r.deleteRule == .deny else { continue }
                let destinationTable = try layout.entity(entity.destination(ofSlot: slot).entity.name).table
                let mine = keys(of: stored.table), theirs = keys(of: destinationTable)
                let literal = SQLSchemaPlanner.literal(destinationTable)
                switch (storage, r.deleteRule) {
                case (.toOne(let column), .cascade):
                    cascades.append(insertIgnoring("SELECT \(literal), \(q(column)) FROM \(q(stored.table)) WHERE \"Z_PK\" IN \(mine) AND \(q(column)) IS NOT NULL"))
                case (.toOne(let column), _):
                    denials.append(("SELECT CAST(\"Z_PK\" AS BIGINT), CAST(\"Z_ENT\" AS BIGINT), CAST(\(q(column)) AS BIGINT), CAST(\(q(column + ".entity")) AS BIGINT) "
                                    + "FROM \(q(stored.table)) WHERE \"Z_PK\" IN \(mine) AND \(q(column)) IS NOT NULL AND \(q(column)) NOT IN \(theirs)", r.name))
                case (.toManyByInverse(let table, let column, _), .cascade):
                    cascades.append(insertIgnoring("SELECT \(literal), \"Z_PK\" FROM \(q(table)) WHERE \(q(column)) IN \(mine)"))
                case (.toManyByInverse(let table, let column, _), _):
                    denials.append(("SELECT CAST(\(q(column)) AS BIGINT), CAST(\(q(column + ".entity")) AS BIGINT), CAST(\"Z_PK\" AS BIGINT), CAST(\"Z_ENT\" AS BIGINT) "
                                    + "FROM \(q(table)) WHERE \(q(column)) IN \(mine) AND \"Z_PK\" NOT IN \(theirs)", r.name))
                case (.toManyByJoin(let join), .cascade):
                    cascades.append(insertIgnoring("SELECT \(literal), \(join.target) FROM \(join.t) WHERE \(join.source) IN \(mine)"))
                case (.toManyByJoin(let join), _):
                    denials.append(("SELECT CAST(j.\(join.source) AS BIGINT), CAST(o.\"Z_ENT\" AS BIGINT), CAST(j.\(join.target) AS BIGINT), CAST(j.\(join.targetEntity) AS BIGINT) "
                                    + "FROM \(join.t) AS j JOIN \(q(stored.table)) AS o ON o.\"Z_PK\" = j.\(join.source) "
                                    + "WHERE j.\(join.source) IN \(mine) AND j.\(join.target) NOT IN \(theirs)", r.name))
                default:
                    continue
                }
            }
        }
        // An entity and its subentities share the relationships they inherit: each statement once.
        var seen: Set<String> = []
        cascades = cascades.filter { seen.insert($0).inserted }
        denials = denials.filter { seen.insert($0.sql).inserted }
        tables = try entitiesByTable.map { table, names in
            (table, try SetBasedDeletionPlan(layout: layout, entityNames: names, matched: keys(of: table)))
        }
    }

    /// Runs the steps on `executor`'s connection, in its transaction, and returns what changed; throws
    /// the denial's `ValidationError` before anything is deleted. Unless `isSingleDelete` (the delete
    /// then selects the rows itself, with `matching`'s condition, or its keys when the query has a
    /// window), the matching keys are gathered in the doomed table first, emptied of an earlier batch's
    /// (one of a migration stage's transaction, or, on SQLite, the connection's last) in the same trip.
    package func run<Executor: SQLExecutor>(matching: SQLQueryTranslator.Matching, names: [Int64: String], executor: Executor) throws -> ChangeSet {
        /// Calls `body` with a reader of the integer columns (nil for NULL) of each row `sql` returns.
        func select(_ sql: String, bindsMatching: Bool, _ body: ((Int) throws -> Int64?) throws -> Void) throws {
            try executor.query(SQLQueryTranslator.SQL(text: sql, bindings: bindsMatching ? matching.keys.bindings : [])) { row in
                try body { try row.isNull($0) ? nil : try row.int64($0) }
            }
        }
        let gathered = !isSingleDelete
        if gathered {
            try executor.run(executor.dialect.doomedTable.create, [])
            try executor.run("DELETE FROM \(doomed)", [])
            try select(gatherSQL(matching.keys.text), bindsMatching: true) { _ in }
        }
        // Cascades, in rounds until one adds no record.
        while !cascades.isEmpty {
            var added = 0
            for sql in cascades { added += try executor.rowsChanged(by: sql) }
            if added == 0 { break }
        }
        var denied: [(deleted: ObjectID, relationship: String, related: ObjectID)] = []
        for (sql, relationship) in denials {
            try select(sql, bindsMatching: false) { column in
                guard let deleted = try column(0), let deletedName = try column(1).flatMap({ names[$0] }),
                      let related = try column(2), let relatedName = try column(3).flatMap({ names[$0] }) else { return }
                denied.append((ObjectID(entityName: deletedName, key: deleted), relationship, ObjectID(entityName: relatedName, key: related)))
            }
        }
        if !denied.isEmpty { throw Self.denied(denied) }
        var changes = ChangeSet()
        for (_, plan) in tables {
            let sql = gathered ? plan.deleteSQL(keys: keysSQL(of: plan.table)) : plan.deleteSQL(matching: matching)
            try select(sql, bindsMatching: !gathered) { column in
                try plan.record(deletedRow: column, names: names, into: &changes)
            }
            for (sql, name) in plan.statements {
                let inverse: Set<String>? = name.map { [$0] }
                try select(sql, bindsMatching: false) { column in
                    guard let inverse, let key = try column(0), let related = try column(1).flatMap({ names[$0] }) else { return }
                    changes.noteUpdate(of: ObjectID(entityName: related, key: key), inverse)
                }
            }
        }
        SetBasedDeletionPlan.finish(&changes)
        return changes
    }

    /// The validation error for the rows the denial queries returned: each doomed record with the
    /// records still related to it, as a record-by-record delete words it.
    package static func denied(_ links: [(deleted: ObjectID, relationship: String, related: ObjectID)]) -> ValidationError {
        var grouped: [(id: ObjectID, relationship: String, related: [ObjectID])] = []
        for link in links.sorted(by: { ($0.deleted.key, $0.deleted.entityName, $0.relationship, $0.related.key) < ($1.deleted.key, $1.deleted.entityName, $1.relationship, $1.related.key) }) {
            if let last = grouped.last, last.id == link.deleted, last.relationship == link.relationship {
                grouped[grouped.count - 1].related.append(link.related)
            } else {
                grouped.append((link.deleted, link.relationship, [link.related]))
            }
        }
        return ValidationError(grouped.map { .init(objectID: $0.id, key: $0.relationship, message: "delete denied: still related to \($0.related.map(\.description).joined(separator: ", "))") })
    }
}

/// The statements of a set-based delete over a SQL layout (shared by the SQL stores): the `DELETE` of
/// the matching rows, returning their key and entity code and the to-one references whose records
/// lose them; then, per relationship, one statement over the deleted keys (`matched`: a subquery
/// of the store's temporary table) that clears the other records' column or deletes join rows,
/// returning the related records (key, entity code) to report with the relationship's name.
package struct SetBasedDeletionPlan {
    /// The table of the deleted records.
    package var table: String
    /// The columns the `DELETE` returns after key and entity code (each to-one key, then its entity code).
    package var returnedColumns: [String] = []
    /// By entity code: which returned column (index counted from 0 after key and code… plus 2) names a
    /// record that loses the deleted one, and the name of its relationship that does (alone, as the
    /// change set notes it).
    package var lost: [Int64: [(column: Int, inverse: String, names: Set<String>)]] = [:]
    /// The statements after the `DELETE`, each with the relationship name to report its returned rows under (nil: none).
    package var statements: [(sql: String, inverse: String?)] = []

    /// The `DELETE` of the rows whose keys `keys` selects (a subquery), returning what `lost` reads.
    package func deleteSQL(keys: String) -> String {
        "DELETE FROM \(SQLSchemaPlanner.quote(table)) WHERE \"Z_PK\" IN (\(keys)) RETURNING \(returning)"
    }

    /// The `DELETE` of the rows that meet `condition` (over the alias `t0`), returning what `lost` reads:
    /// one pass over the table (a subquery of keys would make PostgreSQL plan a semi-join).
    package func deleteSQL(condition: String) -> String {
        "DELETE FROM \(SQLSchemaPlanner.quote(table)) AS t0 WHERE \(condition) RETURNING \(returning)"
    }

    /// The `DELETE` of the rows `matching` selects: by its condition, or by its keys when the query has a window.
    package func deleteSQL(matching: SQLQueryTranslator.Matching) -> String {
        matching.condition.map(deleteSQL(condition:)) ?? deleteSQL(keys: matching.keys.text)
    }

    private var returning: String {
        let q = SQLSchemaPlanner.quote
        return (["\"Z_PK\"", "\"Z_ENT\""] + returnedColumns.map(q)).map { "CAST(\($0) AS BIGINT)" }.joined(separator: ", ")
    }

    /// The plan for the records of `entityNames` (one root table); `matched` is the subquery of the
    /// deleted keys the statements after the `DELETE` use.
    package init(layout: SQLLayout, entityNames: [String], matched: String) throws {
        let q = SQLSchemaPlanner.quote
        let entities = try entityNames.map { try layout.entity($0) }
        table = entities[0].table
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
                    lost[entity.code, default: []].append((index! + 2, inverse.name, [inverse.name]))
                case .toManyByInverse(let table, let column, let order):
                    guard r.deleteRule == .nullify, let inverse, seenTables.insert("\(table).\(column)").inserted else { continue }
                    let orderClear = order.map { ", \(q($0)) = NULL" } ?? ""
                    statements.append(("UPDATE \(q(table)) SET \(q(column)) = NULL, \(q(column + ".entity")) = NULL\(orderClear), \"Z_OPT\" = \"Z_OPT\" + 1 "
                                       + "WHERE \(q(column)) IN \(matched) RETURNING CAST(\"Z_PK\" AS BIGINT), CAST(\"Z_ENT\" AS BIGINT)", inverse.name))
                case .toManyByJoin(let join):
                    // Per side: a pair's table holds both sides' links, each side's owner in its own column.
                    guard seenTables.insert("\(join.table).\(join.columns.source)").inserted else { continue }
                    let reported = r.deleteRule == .nullify ? inverse : nil
                    statements.append(("DELETE FROM \(join.t) WHERE \(join.source) IN \(matched) RETURNING CAST(\(join.target) AS BIGINT), CAST(\(join.targetEntity) AS BIGINT)", reported?.name))
                    if !join.isPaired, reported != nil, let inverseSlot, let other = layout.entities[destination.name],
                       case .toManyByJoin(let inverseJoin) = other.storage[inverseSlot], seenTables.insert("\(inverseJoin.table).\(inverseJoin.columns.target)").inserted {
                        statements.append(("DELETE FROM \(inverseJoin.t) WHERE \(inverseJoin.target) IN \(matched)", nil))
                    }
                default:
                    continue
                }
            }
        }
    }

    /// Adds to `changes` what one returned row of the `DELETE` says (`value(i)`: its i-th column, nil when NULL).
    package func record(deletedRow value: (Int) throws -> Int64?, names: [Int64: String], into changes: inout ChangeSet) rethrows {
        try Self.record(deletedRow: value, lost: { lost[$0] ?? [] }, names: names, into: &changes)
    }

    /// `record(deletedRow:names:into:)` with the lost columns of each entity code given by `lost`.
    package static func record(deletedRow value: (Int) throws -> Int64?, lost: (Int64) -> [(column: Int, inverse: String, names: Set<String>)],
                               names: [Int64: String], into changes: inout ChangeSet) rethrows {
        guard let key = try value(0), let code = try value(1), let name = names[code] else { return }
        changes.deleted.append(ObjectID(entityName: name, key: key))
        for (column, _, inverse) in lost(code) {
            guard let related = try value(column), let relatedCode = try value(column + 1), let relatedName = names[relatedCode] else { continue }
            changes.noteUpdate(of: ObjectID(entityName: relatedName, key: related), inverse)
        }
    }

    /// Ends a batch's change set: a related record deleted by the same batch is only deleted; records in key order.
    package static func finish(_ changes: inout ChangeSet) {
        for id in changes.deleted { changes.updated[id] = nil }
        changes.deleted.sort { ($0.key, $0.entityName) < ($1.key, $1.entityName) }
    }
}
