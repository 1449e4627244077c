/// A store that keeps rows in memory: the default for tests and the quick start.
/// Commits are atomic (checked first, applied whole) and safe across threads.
public final class InMemoryStore: PersistentStore {
    public let model: ManagedObjectModel
    private struct State {
        var rows: [ObjectID: StoreRow] = [:]
        var idsByEntity: [String: [ObjectID]] = [:]
        var nextKey: Int64 = 1
    }
    private let state = Locked(State())

    /// An empty store for a model.
    public init(model: ManagedObjectModel) {
        self.model = model
    }

    public func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        state.withLock { state in
            entityNames.flatMap { state.idsByEntity[$0] ?? [] }.sorted { $0.key < $1.key }
        }
    }

    public func row(for id: ObjectID) throws -> StoreRow? {
        state.withLock { $0.rows[id] }
    }

    public func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        try state.withLock { state in
            // Check every update and delete against the current versions before changing anything.
            try changes.checkVersions { state.rows[$0]?.version }
            try changes.reads?.verify(model: model, version: { state.rows[$0]?.version }) { id, slot in
                guard let row = state.rows[id], slot < row.values.count, case .references(let members) = row.values[slot] else { return [] }
                return members
            }
            // Assign permanent IDs, then rewrite references to new records.
            var permanent: [ObjectID: ObjectID] = [:]
            var next = state.nextKey
            for row in changes.inserted {
                permanent[row.id] = ObjectID(entityName: row.id.entityName, key: next)
                next += 1
            }
            func resolve(_ value: StoreValue) -> StoreValue {
                switch value {
                case .reference(let id?): return .reference(permanent[id] ?? id)
                case .references(let ids): return .references(ids.map { permanent[$0] ?? $0 })
                default: return value
                }
            }
            var insertedIDs: [ObjectID] = []
            insertedIDs.reserveCapacity(changes.inserted.count)
            var updatedVersions: [Int64] = []
            var rows = state.rows
            var idsByEntity = state.idsByEntity
            for row in changes.inserted {
                let id = permanent[row.id]!
                rows[id] = StoreRow(id: id, version: 1, values: row.values.map(resolve))
                idsByEntity[id.entityName, default: []].append(id)
                insertedIDs.append(id)
            }
            // To-one relationships an update moves (record, slot, previous target): their inverse sides
            // follow below, as the SQL stores' foreign keys make them, whatever other saves did.
            var moved: [(id: ObjectID, slot: Int, from: ObjectID?)] = []
            func noteMoves(_ id: ObjectID, from old: StoreRow?, to new: StoreRow, slots: [Int]?) {
                for slot in slots ?? Array(new.values.indices) {
                    guard case .reference(let target) = new.values[slot] else { continue }
                    var previous: ObjectID?
                    if let old, slot < old.values.count, case .reference(let p) = old.values[slot] { previous = p }
                    if previous != target { moved.append((id, slot, previous)) }
                }
            }
            for row in changes.updated {
                // Property by property: the changed columns, and the to-many relationships' deltas.
                if let write = changes.writes[row.id], var stored = rows[row.id] {
                    let before = stored
                    for slot in write.columns { stored.values[slot] = resolve(row.values[slot]) }
                    noteMoves(row.id, from: before, to: stored, slots: write.columns)
                    for (slot, delta) in write.toMany {
                        guard case .references(let members) = stored.values[slot] else { continue }
                        stored.values[slot] = .references(delta.applied(to: members, key: { permanent[$0] ?? $0 }))
                    }
                    if !write.isMembershipOnly { stored.version += 1 }
                    rows[row.id] = stored
                    updatedVersions.append(write.isMembershipOnly ? row.version : stored.version)
                    continue
                }
                // Whole (or gone, and forced back by the merge policy: inserted again).
                let version = (rows[row.id]?.version ?? 0) + 1
                if rows[row.id] == nil { idsByEntity[row.id.entityName, default: []].append(row.id) }
                let whole = StoreRow(id: row.id, version: version, values: row.values.map(resolve))
                noteMoves(row.id, from: rows[row.id], to: whole, slots: nil)
                rows[row.id] = whole
                updatedVersions.append(version)
            }
            var deletedByEntity: [String: Set<ObjectID>] = [:]
            for (id, _) in changes.deleted where rows.removeValue(forKey: id) != nil {
                deletedByEntity[id.entityName, default: []].insert(id)
            }
            for (entity, ids) in deletedByEntity { idsByEntity[entity]?.removeAll { ids.contains($0) } }
            for (id, slot, previous) in moved {
                guard let entity = model.entity(named: id.entityName), case .reference(let target) = rows[id]?.values[slot],
                      let inverse = entity.destination(ofSlot: slot).inverseSlot else { continue }
                func relink(_ other: ObjectID?, adding: Bool) {
                    guard let other, var row = rows[other], inverse < row.values.count else { return }
                    switch row.values[inverse] {
                    case .references(var members):
                        members.removeAll { $0 == id }
                        if adding { members.append(id) }
                        row.values[inverse] = .references(members)
                    case .reference(let back):
                        if adding { row.values[inverse] = .reference(id) } else if back == id { row.values[inverse] = .reference(nil) }
                    default:
                        return
                    }
                    rows[other] = row
                }
                relink(previous, adding: false)
                if case .references(let members)? = target.flatMap({ rows[$0]?.values[inverse] }), members.contains(id) { continue }
                relink(target, adding: true)
            }
            try changes.checkConstraintsSpanningRows(model: model, members: { id, slot in
                guard case .references(let members)? = rows[id]?.values[slot] else { return 0 }
                return members.count
            }, referrers: { id, slot in
                guard let entity = model.entity(named: id.entityName), let inverse = entity.destination(ofSlot: slot).inverseSlot else { return 0 }
                return entity.destination(ofSlot: slot).entity.selfAndDescendants.flatMap { idsByEntity[$0.name] ?? [] }
                    .filter { other in rows[other].map { inverse < $0.values.count && $0.values[inverse].names(id) } ?? false }.count
            })
            let written = Set(changes.inserted.map(\.id.entityName) + changes.updated.map(\.id.entityName))
            if let violation = uniquenessViolation(rows: rows, idsByEntity: idsByEntity, writtenEntities: written) { throw violation }
            state.rows = rows
            state.idsByEntity = idsByEntity
            state.nextKey = next
            let result = StoreCommitResult(insertedIDs: insertedIDs, updatedVersions: updatedVersions)
            // Under the lock: the next commit waits, so saves are heard in commit order.
            if !changes.writesNothing { changes.published?(ChangeSet(committed: changes, result: result)) }
            return result
        }
    }

    /// The first uniqueness constraint the rows would break, as the SQL stores' unique indexes refuse
    /// them (NULLs never collide); only constraints of entities the save wrote records of are looked at.
    private func uniquenessViolation(rows: [ObjectID: StoreRow], idsByEntity: [String: [ObjectID]],
                                     writtenEntities: Set<String>) -> UniquenessViolationError? {
        for entity in model.entities where !entity.uniquenessConstraints.isEmpty {
            let kinds = entity.selfAndDescendants.map(\.name)
            guard kinds.contains(where: writtenEntities.contains) else { continue }
            for constraint in entity.uniquenessConstraints {
                let slots = constraint.compactMap { entity.slot(of: $0) }
                guard slots.count == constraint.count else { continue }
                var seen: Set<[StoreValue]> = []
                for id in kinds.flatMap({ idsByEntity[$0] ?? [] }) {
                    guard let row = rows[id] else { continue }
                    let key = slots.map { row.values[$0] }
                    if key.contains(where: \.isNull) { continue }
                    if !seen.insert(key).inserted {
                        return UniquenessViolationError(entityName: entity.name, constraint: constraint,
                                                        message: "two records would have \(zip(constraint, key).map { "\($0)=\($1.readableText)" }.joined(separator: ", "))")
                    }
                }
            }
        }
        return nil
    }
}
