import Foundation

/// Merging the saves of other contexts (Core Data's `mergeChanges(fromContextDidSave:)`).
extension ManagedObjectContext {
    /// Brings another context's save into this one. Objects this context holds that the save updated
    /// take the saved values of the properties this context has not changed (unsaved edits stay, and
    /// the next save settles conflicts by `mergePolicy`; a changed to-many relationship keeps its own
    /// additions and removals over the members the store has now); their observers hear of each
    /// property whose value changes. Objects the save deleted leave this context (their observers are
    /// told that every property changed, so views drop them). Inserted records need nothing: fetches
    /// see them.
    public func mergeChanges(_ changes: ChangeSet) {
        let cachesRows = !faults.rowCache.isEmpty
        // The updated objects are looked up first, in a loop of lookups alone: a context holding many
        // objects finds them in memory out of the cache, and the lookups then overlap.
        let lookedUp = changes.updated.map { (id: $0.key, keys: $0.value, object: registered.mayHold($0.key.entityName) ? registered[$0.key] : nil) }
        for (id, keys, object) in lookedUp {
            guard let object, object._loadState != .fault else {
                if cachesRows { faults.rowCache[id] = nil }   // a cached row is stale now
                continue
            }
            if holdsNothingChanged(object, keys) { continue }
            refresh(object, mergeChanges: true)
        }
        for id in changes.deleted {
            if cachesRows { faults.rowCache[id] = nil }
            guard registered.mayHold(id.entityName), let object = registered[id] else { continue }
            if object._isDeleted { deleted.remove(object) }
            if object._isUpdated { updated.remove(object) }
            registered.removeValue(forKey: id)
            object._isRegistered = false
            object._isDeleted = true
            object.notifyChanged(Array(object.entity.properties.indices))
            object.turnIntoFault()
            object._context = nil
        }
        updateLiveResults(changes)
    }

    /// Whether a save that changed the properties `keys` of `object` left it holding nothing stale: each
    /// is a to-many relationship the object has not loaded yet (pending), and it has no unsaved
    /// changes. A change of to-many relationships alone leaves a record's row and version as they were
    /// (see `RecordWrite.isMembershipOnly`), so its loaded values stay and it need not turn into a fault.
    private func holdsNothingChanged(_ object: ManagedObject, _ keys: Set<String>) -> Bool {
        guard !keys.isEmpty, !object._isUpdated, !object._isDeleted else { return false }
        let entity = object.entity
        for key in keys {
            guard let slot = entity.slotsByName[key], case .relationship(let relationship) = entity.properties[slot],
                  relationship.isToMany, object.isPendingToMany(slot) else { return false }
        }
        return true
    }
}
