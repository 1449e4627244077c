import Foundation

/// Settling a save's conflicts by `mergePolicy` (Core Data's merge policies): objects this context
/// changed or deleted that another save changed or deleted since they were read. Each conflicting
/// object is compared, property by property, with the record as it is stored now.
extension ManagedObjectContext {
    /// A slot as a store keeps it, unordered to-many relationships in key order (so that two reads of
    /// one set compare equal).
    private func comparable(_ value: SlotValue, _ property: PropertyDescription) -> StoreValue {
        comparable(storeValue(value, of: property), property)
    }

    private func comparable(_ value: StoreValue, _ property: PropertyDescription) -> StoreValue {
        if case .relationship(let r) = property, r.isToMany, !r.isOrdered, case .references(let ids) = value {
            return .references(ids.sorted { $0.key < $1.key })
        }
        return value
    }

    /// What a `MergeConflictError` says of one object: every property this context or another save
    /// changed since the context read it.
    func objectConflict(_ object: ManagedObject, stored row: StoreRow?) -> ObjectConflict {
        let entity = object.entity
        let now = object._slots
        let read = object.committedSlots ?? now.array
        var properties: [PropertyConflict] = []
        for (slot, property) in entity.properties.enumerated() where !property.isTransient {
            let readValue = comparable(read[slot], property), newValue = comparable(now[slot], property)
            let storedValue = row.map { comparable(slot < $0.values.count ? $0.values[slot] : .null, property) }
            if readValue != newValue || (storedValue != nil && storedValue != readValue) {
                properties.append(PropertyConflict(key: property.name, readValue: readValue, newValue: newValue, storedValue: storedValue))
            }
        }
        return ObjectConflict(id: object.objectID, deletedHere: object._isDeleted, deletedInStore: row == nil, properties: properties)
    }

    /// Settles each conflicting object as `mergePolicy` says (never `.error`: that throws before), and
    /// updates `changes` to what is to be written: versions of the records as just read, their
    /// writes recomputed from the merged objects. Objects merged by property are validated again
    /// (`validateForUpdate` on the merged values); failures are thrown as one `ValidationError`.
    func resolveConflicts(_ objects: [ManagedObject], stored: [ObjectID: StoreRow], changes: inout StoreChanges,
                          changedObjects: inout [ManagedObject], outcome: inout ConflictOutcome) throws {
        var dropped: Set<ObjectID> = []
        var undeleted: Set<ObjectID> = []
        var settled: [ObjectID: [StoreValue]] = [:]   // objects whose changes the store's values replaced, as they end
        var failures: [ValidationError.Failure] = []
        for object in objects {
            let id = object.objectID
            let row = stored[id]
            if object._isDeleted {
                // This context deleted it; another save changed it (a record deleted twice is no conflict).
                guard let row else { continue }
                switch mergePolicy {
                case .mergeByPropertyObjectTrump, .overwrite, .error:
                    if let index = changes.deleted.firstIndex(where: { $0.id == id }) { changes.deleted[index].version = row.version }
                case .mergeByPropertyStoreTrump, .rollback:
                    // The stored update wins: the object stays, with the stored values.
                    changes.deleted.removeAll { $0.id == id }
                    undeleted.insert(id)
                    refresh(object, mergeChanges: false)
                }
                continue
            }
            guard let row else {
                // This context changed it; another save deleted it: the deletion stands (a deleted
                // record is never written again, under any policy).
                dropped.insert(id)
                outcome.gone.append(id)
                continue
            }
            switch mergePolicy {
            case .overwrite:
                changes.writes[id] = nil               // every property, as this context has it
                if let index = changes.updated.firstIndex(where: { $0.id == id }) { changes.updated[index].version = row.version }
            case .rollback:
                dropped.insert(id)
                settled[id] = row.values
                refresh(object, mergeChanges: false)
            case .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .error:
                try merge(object, with: row)
                if mergePolicy == .mergeByPropertyStoreTrump { settled[id] = storeValues(of: object) }
                failures += ValidationError.failures(of: object) { try object.validateForUpdate() }
                let write = recordWrite(of: object)
                if write.columns.isEmpty && write.toMany.isEmpty {
                    dropped.insert(id)                 // nothing of its own left to write
                    continue
                }
                changes.writes[id] = write
                if let index = changes.updated.firstIndex(where: { $0.id == id }) {
                    changes.updated[index] = StoreRow(id: id, version: row.version, values: storeValues(of: object))
                }
                changes.changedKeys[id] = Set(object.changedValues().keys)
            }
        }
        if !failures.isEmpty {
            endUndoGroup()
            throw ValidationError(failures)
        }
        if !undeleted.isEmpty { keepLinks(to: undeleted, in: &changes, outcome: &outcome) }
        if !settled.isEmpty { reconcileInverses(of: settled, in: &changes, outcome: &outcome) }
        guard !dropped.isEmpty else { return }
        // A record this save no longer writes must not be named by what it still writes.
        for id in dropped where outcome.gone.contains(id) {
            let referenced = changes.inserted.contains { $0.values.contains { $0.names(id) } }
                || changes.updated.contains { !dropped.contains($0.id) && $0.values.contains { $0.names(id) } }
            if referenced {
                var conflict = MergeConflictError(conflicts: [StoreConflict(id: id, expectedVersion: registered[id]?.committedVersion ?? 0, currentVersion: nil)])
                conflict.objects = objects.filter { $0.objectID == id }.map { objectConflict($0, stored: nil) }
                throw conflict
            }
        }
        changes.updated.removeAll { dropped.contains($0.id) }
        for id in dropped {
            changes.writes[id] = nil
            changes.changedKeys[id] = nil
        }
        changedObjects.removeAll { dropped.contains($0.objectID) }
    }

    /// A deletion this save no longer makes: the links its delete rules removed from other records
    /// (their to-many deltas, their to-one columns set to nil) are not written either, and those objects
    /// are refreshed after the save. (Objects its cascade deleted stay deleted.)
    private func keepLinks(to undeleted: Set<ObjectID>, in changes: inout StoreChanges, outcome: inout ConflictOutcome) {
        for row in changes.updated {
            guard var write = changes.writes[row.id], let object = registered[row.id] else { continue }
            var touched = false
            for (slot, delta) in write.toMany where delta.removed.contains(where: undeleted.contains) {
                var kept = delta
                kept.removed.removeAll(where: undeleted.contains)
                write.toMany[slot] = kept.added.isEmpty && kept.removed.isEmpty && kept.order == nil ? nil : kept
                touched = true
            }
            write.columns.removeAll { slot in
                guard case .reference(nil) = row.values[slot], case .object(let previous)? = object.committedSlots?[slot],
                      undeleted.contains(previous.objectID) else { return false }
                touched = true
                return true
            }
            if touched {
                changes.writes[row.id] = write
                outcome.refreshAfterSave.append(object)
            }
        }
    }

    /// Objects whose relationship changes the store's values replaced: the inverse sides this save
    /// would write for them (another record's to-many gaining or losing the object) follow the object
    /// as it ends, so both sides of each link agree; those objects are refreshed after the save.
    private func reconcileInverses(of settled: [ObjectID: [StoreValue]], in changes: inout StoreChanges, outcome: inout ConflictOutcome) {
        for row in changes.updated where settled[row.id] == nil {
            guard var write = changes.writes[row.id], let entity = model.entity(named: row.id.entityName), let object = registered[row.id] else { continue }
            var touched = false
            for (slot, delta) in write.toMany {
                guard let inverse = entity.destination(ofSlot: slot).inverseSlot else { continue }
                var kept = delta
                for (id, values) in settled where delta.added.contains(id) || delta.removed.contains(id) {
                    let linked = inverse < values.count && values[inverse].names(row.id)
                    if linked { kept.removed.removeAll { $0 == id } } else { kept.added.removeAll { $0 == id } }
                }
                if kept != delta {
                    write.toMany[slot] = kept
                    touched = true
                }
            }
            if touched {
                changes.writes[row.id] = write
                outcome.refreshAfterSave.append(object)
            }
        }
    }

    /// Merges the stored record into a changed object, property by property: properties this context
    /// did not change take the stored values; those it changed keep its values
    /// (`.mergeByPropertyObjectTrump`), or take the stored ones where another save changed them too
    /// (`.mergeByPropertyStoreTrump`). To-many relationships take the stored members with this context's
    /// additions and removals applied. The stored record becomes what the object was read as.
    private func merge(_ object: ManagedObject, with row: StoreRow) throws {
        let entity = object.entity
        let fresh = try slots(from: row, entity: entity)
        let read = object.committedSlots ?? object._slots.array
        let storeWins = mergePolicy == .mergeByPropertyStoreTrump
        for (slot, property) in entity.properties.enumerated() where !property.isTransient {
            let current = object._slots[slot]
            let changedHere = !read[slot].isSame(as: current)
            let changedThere = !read[slot].isSame(as: fresh[slot])
            guard changedThere else { continue }
            if case .relationship(let r) = property, r.isToMany {
                guard changedHere else {
                    object.storeSlot(slot, fresh[slot])
                    continue
                }
                // This context's additions and removals, on the stored members.
                let before = Set(read[slot].relatedObjects.map(ObjectIdentifier.init))
                let after = current.relatedObjects
                let kept = Set(after.map(ObjectIdentifier.init))
                let added = after.filter { !before.contains(ObjectIdentifier($0)) }
                var merged = fresh[slot].relatedObjects.filter { !before.contains(ObjectIdentifier($0)) || kept.contains(ObjectIdentifier($0)) }
                var present = Set(merged.map(ObjectIdentifier.init))
                for member in added where present.insert(ObjectIdentifier(member)).inserted { merged.append(member) }
                object.storeSlot(slot, .objects(ObjectList(merged)))
                continue
            }
            if !changedHere || storeWins { object.storeSlot(slot, fresh[slot]) }
        }
        object.committedSlots = fresh
        object.committedVersion = row.version
    }
}

/// What settling conflicts leaves for after the save: records another save deleted whose deletion
/// stood (they leave this context), and objects whose state this context refreshes from the store.
struct ConflictOutcome {
    var gone: [ObjectID] = []
    var refreshAfterSave: [ManagedObject] = []
}

extension StoreValue {
    /// The records a relationship value refers to (none for other values).
    var referencedIDs: [ObjectID] {
        switch self {
        case .reference(let id?): return [id]
        case .references(let ids): return ids
        default: return []
        }
    }

    /// Whether this value refers to the record (a to-one reference, or a member of a to-many one).
    func names(_ id: ObjectID) -> Bool {
        switch self {
        case .reference(let target?): return target == id
        case .references(let ids): return ids.contains(id)
        default: return false
        }
    }
}
