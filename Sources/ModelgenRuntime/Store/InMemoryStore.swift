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
            if !changes.force {
                var conflicts: [StoreConflict] = []
                for row in changes.updated where state.rows[row.id]?.version != row.version {
                    conflicts.append(StoreConflict(id: row.id, expectedVersion: row.version, currentVersion: state.rows[row.id]?.version))
                }
                for (id, version) in changes.deleted where state.rows[id] != nil && state.rows[id]?.version != version {
                    conflicts.append(StoreConflict(id: id, expectedVersion: version, currentVersion: state.rows[id]?.version))
                }
                if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
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
            for row in changes.updated {
                let version = (rows[row.id]?.version ?? 0) + 1
                if rows[row.id] == nil { idsByEntity[row.id.entityName, default: []].append(row.id) }
                rows[row.id] = StoreRow(id: row.id, version: version, values: row.values.map(resolve))
                updatedVersions.append(version)
            }
            var deletedByEntity: [String: Set<ObjectID>] = [:]
            for (id, _) in changes.deleted where rows.removeValue(forKey: id) != nil {
                deletedByEntity[id.entityName, default: []].insert(id)
            }
            for (entity, ids) in deletedByEntity { idsByEntity[entity]?.removeAll { ids.contains($0) } }
            state.rows = rows
            state.idsByEntity = idsByEntity
            state.nextKey = next
            return StoreCommitResult(insertedIDs: insertedIDs, updatedVersions: updatedVersions)
        }
    }
}
