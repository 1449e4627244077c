import Foundation

/// Batch deletes and updates as set-based statements (`SetBasedDeletionSteps`, `SetBasedUpdate`), in
/// one write transaction with a history row.
extension SQLiteStore {
    public func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? {
        guard model.allowsSetBasedDeletion(of: query.entityNames), let closure = model.cascadeClosure(of: query.entityNames) else { return nil }
        // Externally stored binaries are files to remove: the record-at-a-time path knows them.
        for entity in try closure.map({ try layout.entity($0.name) }) {
            if entity.columnKinds.contains(where: { if case .attribute(_, true) = $0 { return true } else { return false } }) { return nil }
        }
        guard let matching = try layout.translated(query, { try $0.matching() }) else { return nil }
        let steps = try deletionSteps.value(for: query.entityNames) {
            try SetBasedDeletionSteps(model: model, layout: layout, entityNames: query.entityNames)
        }
        return try pool.writeTransaction { connection in
            let changes = try steps.run(matching: matching, names: layout.namesByCode, executor: SQLiteDriver(connection, store: self))
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
