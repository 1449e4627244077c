/// When a batch delete can run as set-based statements in a SQL store (`DELETE … WHERE`, the related
/// records' columns and join rows cleared with one statement each) with the outcome of deleting the
/// records one by one: what each relationship of the deleted records asks of the related records
/// must be something a statement can do without reading them.
extension ManagedObjectModel {
    /// Whether the records of these entities (an entity and its subentities) can be deleted set-based:
    /// no relationship cascades or denies (those read the related records first), none is one-to-one
    /// (the other record's own column would change), no related record's relationship has a minimum
    /// or maximum count or is required (losing a member must not need a check), and no related entity
    /// derives attributes (a derived count would go stale). Otherwise a batch delete reads the records
    /// and commits their deletion as a save does.
    package func allowsSetBasedDeletion(of entityNames: [String]) -> Bool {
        for name in entityNames {
            guard let entity = entity(named: name) else { return false }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, !r.isTransient else { continue }
                if r.deleteRule == .cascade || r.deleteRule == .deny { return false }
                let (destination, inverseSlot) = entity.destination(ofSlot: slot)
                guard let inverseSlot, case .relationship(let inverse) = destination.properties[inverseSlot] else { continue }
                if !r.isToMany && !inverse.isToMany { return false }
                if inverse.minCount != nil || inverse.maxCount != nil || !inverse.isOptional { return false }
                if destination.selfAndDescendants.contains(where: { !$0.derivations.isEmpty }) { return false }
            }
        }
        return true
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
    /// record that loses the deleted one, and the name of its relationship that does.
    package var lost: [Int64: [(column: Int, inverse: String)]] = [:]
    /// The statements after the `DELETE`, each with the relationship name to report its returned rows under (nil: none).
    package var statements: [(sql: String, inverse: String?)] = []

    /// The `DELETE` of the rows whose keys `keys` selects (a subquery), returning what `lost` reads.
    package func deleteSQL(keys: String) -> String {
        let q = SQLiteSchemaPlanner.quote
        let returning = (["\"Z_PK\"", "\"Z_ENT\""] + returnedColumns.map(q)).map { "CAST(\($0) AS BIGINT)" }.joined(separator: ", ")
        return "DELETE FROM \(q(table)) WHERE \"Z_PK\" IN (\(keys)) RETURNING \(returning)"
    }

    /// The plan for the records of `entityNames` (one root table); `matched` is the subquery of the
    /// deleted keys the statements after the `DELETE` use.
    package init(layout: SQLiteLayout, entityNames: [String], matched: String) throws {
        let q = SQLiteSchemaPlanner.quote
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
                    lost[entity.code, default: []].append((index! + 2, inverse.name))
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
    package func record(deletedRow value: (Int) -> Int64?, names: [Int64: String], into changes: inout ChangeSet) {
        guard let key = value(0), let code = value(1), let name = names[code] else { return }
        changes.deleted.append(ObjectID(entityName: name, key: key))
        for (column, inverse) in lost[code] ?? [] {
            guard let related = value(column), let relatedCode = value(column + 1), let relatedName = names[relatedCode] else { continue }
            changes.updated[ObjectID(entityName: relatedName, key: related), default: []].insert(inverse)
        }
    }

    /// Ends a batch's change set: a related record deleted by the same batch is only deleted; records in key order.
    package static func finish(_ changes: inout ChangeSet) {
        for id in changes.deleted { changes.updated[id] = nil }
        changes.deleted.sort { ($0.key, $0.entityName) < ($1.key, $1.entityName) }
    }
}
