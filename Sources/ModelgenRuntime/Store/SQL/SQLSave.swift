/// One save of a change set to a SQL store, in the committing transaction: every step and its order,
/// written once for every SQL engine over the shared layout, each statement in the driver's dialect;
/// the driver (`SQLSaveDriver`) runs them.
///
/// 1. The versions of the records it updates or deletes (and of those a serializable save read) are
///    read, under row locks where the engine takes them, in one order (table, then key), and checked
///    (`StoreChanges.checkVersions`), and a serializable save's reads verified.
/// 2. New records get keys (ascending in insertion order per table); references to them, made with
///    temporary IDs, are resolved.
/// 3. Deleted records' rows go, with the links of join tables only they own; links a many-to-many
///    pair shares go after step 6, so that a deny rule still sees a link another save added.
/// 4. New records' rows are inserted, by entity.
/// 5. Changed records are updated, by entity and set of changed columns; a record changed only in its
///    to-many relationships keeps its row and version; one gone and forced back is inserted again.
/// 6. To-many relationships: a property-level save's deltas (other saves' members stay), or whole
///    lists; ordered ones renumbered. Then the constraints that span rows (`checkConstraintsSpanningRows`).
package struct SQLSave<Driver: SQLSaveDriver> {
    let layout: SQLLayout
    let model: ManagedObjectModel
    let changes: StoreChanges
    let driver: Driver
    /// False only in a deliberately broken store for testing the anomaly checker.
    var checksVersions = true

    package init(layout: SQLLayout, model: ManagedObjectModel, changes: StoreChanges, driver: Driver, checksVersions: Bool = true) {
        self.layout = layout
        self.model = model
        self.changes = changes
        self.driver = driver
        self.checksVersions = checksVersions
    }

    private var dialect: any SQLDialect { driver.dialect }
    private func p(_ index: Int) -> String { dialect.placeholder(index) }
    private func q(_ name: String) -> String { SQLSchemaPlanner.quote(name) }

    /// Runs the save; returns the new records' IDs and the changed records' new versions.
    package func run() throws -> StoreCommitResult {
        let reads = SQLReads(layout: layout, executor: driver)
        let versions = try lockedVersions()
        func version(_ id: ObjectID) throws -> Int64? { versions[try layout.entity(id.entityName).table]?[id.key] }
        if checksVersions { try changes.checkVersions(current: version) }
        try changes.reads?.verify(model: model, version: version) { id, slot in
            try reads.members(of: id, storage: layout.entity(id.entityName).storage[slot])
        }
        let inserts = try Self.grouped(changes.inserted.indices, of: changes.inserted, layout: layout)
        let insertedIDs = try permanentIDs(inserts)
        var permanentByTemporaryKey: [Int64: ObjectID]?
        func resolve(_ id: ObjectID) -> ObjectID {
            guard id.isTemporaryID else { return id }
            if permanentByTemporaryKey == nil {
                var map: [Int64: ObjectID] = [:]
                map.reserveCapacity(insertedIDs.count)
                for (row, permanent) in zip(changes.inserted, insertedIDs) { map[row.id.key] = permanent }
                permanentByTemporaryKey = map
            }
            return permanentByTemporaryKey?[id.key] ?? id
        }
        let sharedLinks = try deleteRecords()
        for group in inserts {
            try driver.insert(changes.inserted, group, keys: group.indices.map { insertedIDs[$0].key }, resolve: resolve)
        }
        let updatedVersions = try updateRecords(version: version, resolve: resolve)
        // Only the records of entities with to-many storage outside their rows are visited.
        for group in inserts where group.entity.hasToManyStorage {
            for index in group.indices {
                try writeToMany(changes.inserted[index], insertedIDs[index], group.entity, deltas: nil, isNew: true, reads: reads, resolve: resolve)
            }
        }
        var entities = EntityLookup(layout: layout)
        var insertedKeys: Set<ObjectID>?
        for index in changes.updated.indices {
            let id = changes.updated[index].id
            let entity = try entities[id.entityName]
            guard entity.hasToManyStorage else { continue }
            if insertedKeys == nil { insertedKeys = Set(insertedIDs) }
            try writeToMany(changes.updated[index], id, entity, deltas: changes.writes[id]?.toMany, isNew: insertedKeys!.contains(id),
                            reads: reads, resolve: resolve)
        }
        try driver.flush()
        try changes.checkConstraintsSpanningRows(model: model,
            members: { id, slot in try reads.count(layout.memberCountSQL(try layout.entity(id.entityName), slot: slot), key: id.key) },
            referrers: { id, slot in try reads.count(layout.referrerCountSQL(try layout.entity(id.entityName), slot: slot), key: id.key) })
        for (join, keys) in sharedLinks {
            try driver.run("DELETE FROM \(join.t) WHERE \(join.source) \(dialect.inKeys(p(1)))", [.integers(keys)])
        }
        try driver.flush()
        return StoreCommitResult(insertedIDs: insertedIDs, updatedVersions: updatedVersions)
    }

    /// The current versions of the records the save changes or deletes (and a serializable save read),
    /// by table and key: one statement per table, rows locked in key order where the engine locks.
    private func lockedVersions() throws -> [String: [Int64: Int64]] {
        var keysByTable: [String: Set<Int64>] = [:]
        func add(_ id: ObjectID) throws { keysByTable[try layout.entity(id.entityName).table, default: []].insert(id.key) }
        for row in changes.updated { try add(row.id) }
        for (id, _) in changes.deleted { try add(id) }
        for record in changes.reads?.records ?? [] { try add(record.id) }
        var versions: [String: [Int64: Int64]] = [:]
        for (table, keys) in keysByTable.sorted(by: { $0.key < $1.key }) {
            var found: [Int64: Int64] = [:]
            found.reserveCapacity(keys.count)
            try driver.query("SELECT \"Z_PK\", \"Z_OPT\" FROM \(q(table)) WHERE \"Z_PK\" \(dialect.inKeys(p(1))) ORDER BY \"Z_PK\"\(dialect.lockingRows)",
                             [.integers(keys.sorted())]) { row in found[try row.int64(0)] = try row.int64(1) }
            versions[table] = found
        }
        return versions
    }

    /// The new records' permanent IDs, in the order of `changes.inserted`: keys drawn per table and
    /// given in insertion order.
    private func permanentIDs(_ groups: [SQLRowGroup]) throws -> [ObjectID] {
        var counts: [(table: String, count: Int)] = []
        for group in groups {
            if let index = counts.firstIndex(where: { $0.table == group.entity.table }) {
                counts[index].count += group.indices.count
            } else {
                counts.append((group.entity.table, group.indices.count))
            }
        }
        guard !counts.isEmpty else { return [] }
        let drawn = try driver.drawKeys(counts, inserting: changes.inserted, groups)
        let keys = counts.map { drawn[$0.table] ?? [] }
        var next = [Int](repeating: 0, count: counts.count)
        var ids: [ObjectID] = []
        ids.reserveCapacity(changes.inserted.count)
        var entities = EntityLookup(layout: layout)
        var last: (entity: SQLLayout.Entity, table: Int)?
        // By index, reading the IDs only (copying a row would retain its values); a run of one entity's
        // records looks its table up once.
        for index in changes.inserted.indices {
            let name = changes.inserted[index].id.entityName
            let entity = try entities[name]
            if last?.entity !== entity { last = (entity, counts.firstIndex { $0.table == entity.table }!) }
            let table = last!.table
            ids.append(ObjectID(entityName: name, key: keys[table][next[table]]))
            next[table] += 1
        }
        return ids
    }

    /// Deletes the deleted records' rows and the links only they own; returns the links a pair shares,
    /// by join table, for after the constraint checks.
    private func deleteRecords() throws -> [(join: SQLLayout.JoinTable, keys: [Int64])] {
        var shared: [(join: SQLLayout.JoinTable, keys: [Int64])] = []
        var byEntity: [(entity: SQLLayout.Entity, keys: [Int64])] = []
        for (id, _) in changes.deleted {
            let entity = try layout.entity(id.entityName)
            if let index = byEntity.firstIndex(where: { $0.entity === entity }) {
                byEntity[index].keys.append(id.key)
            } else {
                byEntity.append((entity, [id.key]))
            }
        }
        for (entity, keys) in byEntity {
            try driver.willDelete(keys: keys, of: entity)
            try driver.run("DELETE FROM \(q(entity.table)) WHERE \"Z_PK\" \(dialect.inKeys(p(1))) AND \"Z_ENT\" = \(p(2))",
                           [.integers(keys), .integer(entity.code)])
            for case .toManyByJoin(let join) in entity.storage {
                if join.isPaired { shared.append((join, keys)); continue }
                try driver.run("DELETE FROM \(join.t) WHERE \(join.source) \(dialect.inKeys(p(1)))", [.integers(keys)])
            }
        }
        return shared
    }

    /// Updates the changed records' rows; returns their new versions in the order of `changes.updated`.
    private func updateRecords(version: (ObjectID) throws -> Int64?, resolve: (ObjectID) -> ObjectID) throws -> [Int64] {
        var versions = [Int64?](repeating: nil, count: changes.updated.count)
        var written: [Int] = []
        for (index, row) in changes.updated.enumerated() {
            // Changed only in its to-many relationships: its row is not written and keeps its version
            // (that it still exists was checked with the versions, unless the save is forced).
            if let write = changes.writes[row.id], write.isMembershipOnly, try !changes.force || version(row.id) != nil {
                versions[index] = row.version
            } else {
                written.append(index)
            }
        }
        let groups = try Self.grouped(written, of: changes.updated, layout: layout) { id in
            changes.writes[id].map { $0.isMembershipOnly ? "*" : $0.columns.map(String.init).joined(separator: ",") } ?? "*"
        }
        var answers: [(group: SQLRowGroup, versions: () throws -> [Int64?])] = []
        for group in groups {
            let write = changes.writes[changes.updated[group.indices[0]].id]
            let slots = write.flatMap { $0.isMembershipOnly ? nil : $0.columns }
            answers.append((group, try driver.update(changes.updated, group, slots: slots, resolve: resolve)))
        }
        for (group, answer) in answers {
            for (index, version) in zip(group.indices, try answer()) {
                if let version {
                    versions[index] = version
                } else {
                    // Deleted by another save and forced back by the merge policy: inserted again.
                    try driver.insert(changes.updated, SQLRowGroup(entity: group.entity, indices: [index]),
                                      keys: [changes.updated[index].id.key], resolve: resolve)
                    versions[index] = 1
                }
            }
        }
        return versions.map { $0! }
    }

    /// Writes a record's to-many relationships: the deltas of a property-level save, or else the
    /// row's whole lists.
    private func writeToMany(_ row: StoreRow, _ id: ObjectID, _ entity: SQLLayout.Entity, deltas: [Int: ToManyDelta]?, isNew: Bool,
                             reads: SQLReads<Driver>, resolve: (ObjectID) -> ObjectID) throws {
        for (slot, storage) in entity.storage.enumerated() {
            if let deltas {
                if let delta = deltas[slot] {
                    try apply(ToManyDelta(added: delta.added.map(resolve), removed: delta.removed.map(resolve), order: delta.order?.map(resolve)),
                              of: id, entity, storage, reads: reads)
                }
                continue
            }
            guard slot < row.values.count, case .references(let targets) = row.values[slot] else { continue }
            let members = targets.map(resolve)
            switch storage {
            case .toManyByJoin(let join):
                // A pair's table: the other side's links and order stay; this side's list is made so.
                if !isNew {
                    let unlisted = join.isPaired ? " AND NOT (\(join.target) \(dialect.inKeys(p(2))))" : ""
                    try driver.run("DELETE FROM \(join.t) WHERE \(join.source) = \(p(1))\(unlisted)",
                                   join.isPaired ? [.integer(id.key), .integers(members.map(\.key))] : [.integer(id.key)])
                }
                guard !members.isEmpty else { continue }
                try insertLinks(members, of: id, entity, join, positioned: true)
                if join.isPaired { try setPositions(members.map(\.key), of: id, storage) }
            case .toManyByInverse(_, _, _?):
                guard !members.isEmpty else { continue }
                try setPositions(members.map(\.key), of: id, storage)
            default:
                break
            }
        }
    }

    /// One relationship's delta (its IDs resolved): links added and removed; an ordered relationship's
    /// positions set from the saving context's order, members another save added meanwhile after them.
    private func apply(_ delta: ToManyDelta, of id: ObjectID, _ entity: SQLLayout.Entity, _ storage: SQLLayout.Storage,
                       reads: SQLReads<Driver>) throws {
        switch storage {
        case .toManyByJoin(let join):
            if !delta.removed.isEmpty {
                try driver.run("DELETE FROM \(join.t) WHERE \(join.source) = \(p(1)) AND \(join.target) \(dialect.inKeys(p(2)))",
                               [.integer(id.key), .integers(delta.removed.map(\.key))])
            }
            if !delta.added.isEmpty { try insertLinks(delta.added, of: id, entity, join, positioned: false) }
        case .toManyByInverse(_, _, _?):
            break   // membership is the members' own column (their rows carry it); the order is set below
        default:
            return
        }
        guard delta.order != nil else { return }
        var stored: [Int64] = []
        try reads.forEachMember(of: id.key, storage: storage) { key, _ in stored.append(key) }
        try setPositions(delta.applied(to: stored, key: \.key), of: id, storage)
    }

    /// Inserts links from `id` to `members` unless there (the other side of a pair may have written
    /// them in the same save): at their positions in `members` when `positioned`, else after the
    /// owner's last; a pair's other side gets each link after its last.
    private func insertLinks(_ members: [ObjectID], of id: ObjectID, _ entity: SQLLayout.Entity, _ join: SQLLayout.JoinTable, positioned: Bool) throws {
        let (t, source, target) = (join.t, join.source, join.target)
        let position = positioned ? "u.mg_i" : "(SELECT coalesce(max(\(join.position)) + 1, 0) FROM \(t) WHERE \(source) = \(p(1))) + u.mg_i"
        let pairColumns = join.isPaired ? ", \(join.sourceEntity), \(join.otherPosition)" : ""
        let pairValues = join.isPaired ? ", \(p(4)), (SELECT coalesce(max(\(join.otherPosition)) + 1, 0) FROM \(t) WHERE \(target) = u.mg_c0)" : ""
        try driver.run("INSERT INTO \(t) (\(source), \(target), \(join.targetEntity), \(join.position)\(pairColumns)) "
                       + "SELECT \(p(1)), u.mg_c0, u.mg_c1, \(position)\(pairValues) FROM \(dialect.keyRows([p(2), p(3)])) AS u "
                       + "WHERE NOT EXISTS (SELECT 1 FROM \(t) WHERE \(source) = \(p(1)) AND \(target) = u.mg_c0)",
                       [.integer(id.key), .integers(members.map(\.key)), .integers(members.map { layout.entities[$0.entityName]?.code ?? 0 }),
                        .integer(entity.code)])
    }

    /// Numbers the members (`keys`, in their new order) of an ordered relationship of `id` from 0.
    private func setPositions(_ keys: [Int64], of id: ObjectID, _ storage: SQLLayout.Storage) throws {
        let sql: String
        switch storage {
        case .toManyByJoin(let join):
            sql = "UPDATE \(join.t) SET \(join.position) = u.mg_i FROM \(dialect.keyRows([p(2)])) AS u WHERE \(join.source) = \(p(1)) AND \(join.target) = u.mg_c0"
        case .toManyByInverse(let table, let inverse, let order?):
            sql = "UPDATE \(q(table)) SET \(q(order)) = u.mg_i FROM \(dialect.keyRows([p(2)])) AS u WHERE \(q(inverse)) = \(p(1)) AND \"Z_PK\" = u.mg_c0"
        default:
            return
        }
        try driver.run(sql, [.integer(id.key), .integers(keys)])
    }

    /// The positions `indices` of `rows` grouped by entity and, when given, by `kind` of each record's
    /// ID, groups in order of first appearance. Rows of one entity usually come in runs: each is
    /// compared with the last one's before any hashing. Only the rows' IDs are read.
    static func grouped(_ indices: some Sequence<Int>, of rows: [StoreRow], layout: SQLLayout,
                        kind: ((ObjectID) -> String)? = nil) throws -> [SQLRowGroup] {
        var groups: [SQLRowGroup] = []
        var groupOfKey: [String: Int] = [:]
        var last = -1, lastKey = ""
        var entities = EntityLookup(layout: layout)
        for index in indices {
            let name = rows[index].id.entityName
            let key = kind.map { name + "|" + $0(rows[index].id) } ?? name
            if last < 0 || lastKey != key {
                if let existing = groupOfKey[key] {
                    last = existing
                } else {
                    groups.append(SQLRowGroup(entity: try entities[name], indices: []))
                    last = groups.count - 1
                    groupOfKey[key] = last
                }
                lastKey = key
            }
            groups[last].indices.append(index)
        }
        return groups
    }
}
