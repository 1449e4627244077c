/// What a save checks, in its transaction, of what other saves did since its context read
/// (docs/concurrency.md, "Isolation, stated").
public enum SaveIsolation: Sendable, Hashable {
    /// The records the save changes or deletes are checked (and settled by `mergePolicy`); what the
    /// context only read is not: read skew and write skew can happen. The default (Core Data's).
    case changedRecords
    /// Also every record the context holds loaded, at the version it holds, and every to-many
    /// relationship it loaded, with the members it loaded: when any of them changed since, the save
    /// fails with `ReadConflictError` and writes nothing, whatever the merge policy. A save with
    /// nothing to write still verifies its reads (so a read-only unit of work learns whether what it
    /// read was one consistent state). Saves so checked are serializable with one another: no read
    /// skew, no write skew. The unit of work is the context's life since it was made or last reset
    /// or refreshed: make a context per unit of work and, on `ReadConflictError`, run it again in a
    /// new one. A child context's save into its parent is not checked (the parent's save to the
    /// store is).
    case serializable
}

extension ManagedObjectContext {
    /// What this context read, for a serializable save: every registered object that is loaded
    /// (not a fault, not inserted, not deleted here) at its committed version, and each of their
    /// loaded to-many relationships with its committed members.
    func readSet() -> StoreReadSet {
        var reads = StoreReadSet()
        registered.forEach { _, object in
            guard !object._isFault, !object._isInserted, !object._isDeleted else { return }
            reads.records.append((object.objectID, object.committedVersion))
            let entity = object.entity
            guard entity.hasToManyRelationships else { return }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property, relationship.isToMany, !relationship.isTransient else { continue }
                if slot < 32 && object._pendingToMany & (UInt32(1) << UInt32(slot)) != 0 { continue }   // never loaded
                let committed = object.committedSlots?[slot] ?? object._slots[slot]
                let members = committed.relatedObjects.map(\.objectID).filter { !$0.isTemporaryID }
                reads.toMany.append(.init(id: object.objectID, slot: slot, members: members, ordered: relationship.isOrdered))
            }
        }
        return reads
    }

    /// A serializable save with nothing to write: its reads verified in a transaction of their own.
    func verifyReads() throws {
        var changes = StoreChanges()
        changes.author = container.historyAuthor
        changes.reads = readSet()
        guard changes.reads?.isEmpty == false else { return }
        _ = try store.commit(changes)
    }
}
