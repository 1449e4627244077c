import Foundation

/// Merging the saves of other contexts (Core Data's `mergeChanges(fromContextDidSave:)`).
extension ManagedObjectContext {
    /// Brings another context's save into this one. Objects this context holds that the save updated
    /// take the saved values of the properties this context has not changed (unsaved edits stay, and
    /// the next save settles conflicts by `mergePolicy`); their observers hear of each property whose
    /// value changes. Objects the save deleted leave this context (their observers are told that every
    /// property changed, so views drop them). Inserted records need nothing: fetches see them.
    public func mergeChanges(_ changes: ChangeSet) {
        for (id, _) in changes.updated {
            guard let object = registered[id], object._loadState != .fault else {
                faults.rowCache[id] = nil   // a cached row is stale now
                continue
            }
            refresh(object, mergeChanges: true)
        }
        for id in changes.deleted {
            faults.rowCache[id] = nil
            guard let object = registered[id] else { continue }
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
}
