import Foundation
import ModelgenPredicate

extension ManagedObjectContext {
    /// Writes every insert, change and delete to the store in one all-or-nothing commit.
    ///
    /// First derived attributes are recomputed and `willSave` runs; then every inserted,
    /// changed and deleted object is validated (model constraints, uniqueness, custom
    /// hooks) and all failures are thrown together as one `ValidationError`, with nothing
    /// written. Conflicts with newer saves follow `mergePolicy`: records changed since this
    /// context read them (`MergeConflictError` under `.error`), and new objects whose
    /// uniqueness-constraint values a saved record has (under every policy but `.error` the
    /// new object takes that record over; see `ManagedObjectContext+Uniqueness.swift`). When
    /// another connection saves the same unique values between the check and the commit, the
    /// store refuses the commit and the context checks and decides again.
    public func save() throws {
        checkIsolation()
        endUndoGroup()
        var changedObjects = updated.objects.filter { !$0.changedValues().isEmpty }
        var insertedObjects = inserted.objects
        let deletedObjects = deleted.objects
        let serializable = saveIsolation == .serializable && parentLink == nil
        guard !insertedObjects.isEmpty || !changedObjects.isEmpty || !deletedObjects.isEmpty else {
            if serializable { try verifyReads() }
            return
        }

        // What writing them reads, loaded first, so that a store that cannot answer fails the save.
        for object in changedObjects { try object.loadAllPendingToManyIfNeeded() }
        // The lists one after the other, not concatenated: a copy retains every object (a cache miss
        // each when a save writes 100,000 of them).
        for objects in [insertedObjects, changedObjects] {
            for object in objects {
                try recomputeDerivedAttributes(of: object)
                object.willSave()
            }
        }
        for object in deletedObjects { object.willSave() }

        var failures: [ValidationError.Failure] = []
        func collect(_ body: () throws -> Void, object: ManagedObject) {
            do { try body() } catch let error as ValidationError {
                failures += error.failures
            } catch let failure as ValidationError.Failure {
                failures.append(failure)
            } catch {
                failures.append(.init(object: object, key: nil, message: "\(error)"))
            }
        }
        for object in insertedObjects { collect({ try object.validateForInsert() }, object: object) }
        for object in changedObjects { collect({ try object.validateForUpdate() }, object: object) }
        for object in deletedObjects { collect({ try object.validateForDelete() }, object: object) }
        let uniqueness = try resolve(try uniquenessConflicts(insertedObjects, changedObjects))
        failures += uniqueness.failures
        if !failures.isEmpty {
            endUndoGroup()
            throw ValidationError(failures)
        }
        // Objects that had their derived attributes and willSave: known only when a takeover changes others.
        var prepared: Set<ObjectIdentifier> = []
        if !uniqueness.takeovers.isEmpty {
            (insertedObjects, changedObjects) = try takeOver(uniqueness.takeovers, written: insertedObjects + changedObjects, prepared: &prepared)
        }

        var changes: StoreChanges
        let result: StoreCommitResult
        let publication = SavePublication()
        var uniquenessChecks = 1
        var outcome = ConflictOutcome()   // what settling conflicts by the merge policy leaves for after the save
        while true {
            changes = StoreChanges()
            changes.author = container.historyAuthor
            // What it read, before writing loads the changed objects' pending relationships.
            if serializable { changes.reads = readSet() }
            if parentLink == nil { changes.published = publication.publisher(container: container, origin: ObjectIdentifier(self)) }
            // What the history, other contexts and `container.changes` hear of this save (after derived
            // attributes and willSave, so their changes count).
            for object in changedObjects { changes.changedKeys[object.objectID] = Set(object.changedValues().keys) }
            changes.inserted = insertedObjects.map { StoreRow(id: $0.objectID, version: 0, values: storeValues(of: $0)) }
            changes.updated = changedObjects.map { StoreRow(id: $0.objectID, version: $0.committedVersion, values: storeValues(of: $0)) }
            for object in changedObjects { changes.writes[object.objectID] = recordWrite(of: object) }
            changes.deleted = deletedObjects.map { ($0.objectID, $0.committedVersion) }
            do {
                result = try commit(&changes, changedObjects: &changedObjects, deletedObjects: deletedObjects, outcome: &outcome)
                break
            } catch let violation as UniquenessViolationError {
                // Another connection saved the same unique values after the check: check and decide again.
                let conflicts = try uniquenessConflicts(insertedObjects, changedObjects)
                uniquenessChecks += 1
                guard !conflicts.isEmpty, uniquenessChecks <= 4 else { throw violation }
                let again = try resolve(conflicts)
                if !again.failures.isEmpty {
                    endUndoGroup()
                    throw ValidationError(again.failures)
                }
                (insertedObjects, changedObjects) = try takeOver(again.takeovers, written: insertedObjects + changedObjects, prepared: &prepared)
            }
        }
        finishSave(result, inserted: insertedObjects, changed: changedObjects, deleted: deletedObjects.filter { $0._isDeleted })
        if !outcome.gone.isEmpty {
            var deletion = ChangeSet()
            deletion.deleted = outcome.gone
            mergeChanges(deletion)
        }
        for object in outcome.refreshAfterSave { refresh(object, mergeChanges: false) }
        // The changes as committed (a policy that drops this context's changes leaves those records out).
        let changeSet = ChangeSet(committed: changes, result: result)
        if !changeSet.isEmpty {
            updateLiveResults(changeSet)
            // A child's save went into its parent, not the store: nobody else hears of it yet. A store
            // that publishes in commit order has published it.
            if parentLink == nil && !publication.done { container.didSave(changeSet, from: ObjectIdentifier(self)) }
        }
    }

    /// Commits, letting `mergePolicy` decide the objects that newer saves changed or deleted since this
    /// context read them (see `MergePolicy` and `resolveConflicts`): `.error` throws the
    /// `MergeConflictError` with each clashing property; the other policies settle each object, and the
    /// commit is tried again against the versions just read (another save may come in between: then
    /// again, a few times).
    private func commit(_ changes: inout StoreChanges, changedObjects: inout [ManagedObject],
                        deletedObjects: [ManagedObject], outcome: inout ConflictOutcome) throws -> StoreCommitResult {
        var attempts = 0
        while true {
            do {
                return try store.commit(changes)
            } catch var conflict as MergeConflictError {
                attempts += 1
                let ids = Set(conflict.conflicts.map(\.id))
                let objects = (changedObjects + deletedObjects).filter { ids.contains($0.objectID) }
                var rows = try store.rows(for: objects.map(\.objectID))
                try fillToMany(&rows)
                let stored = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                guard mergePolicy != .error, attempts <= 8 else {
                    conflict.objects = objects.map { objectConflict($0, stored: stored[$0.objectID]) }
                    throw conflict
                }
                try resolveConflicts(objects, stored: stored, changes: &changes, changedObjects: &changedObjects, outcome: &outcome)
            }
        }
    }

    /// Lets each new object take over its saved record, then gives the objects to write: the ones
    /// still inserted, and the changed ones (objects the takeovers changed, such as a record's former
    /// partner, first get their derived attributes and `willSave`; `written`, the objects to write
    /// before the first takeover, had theirs).
    private func takeOver(_ takeovers: [(object: ManagedObject, record: StoreRow)],
                          written: [ManagedObject], prepared: inout Set<ObjectIdentifier>) throws -> (inserted: [ManagedObject], changed: [ManagedObject]) {
        if prepared.isEmpty { prepared = Set(written.map(ObjectIdentifier.init)) }
        for (object, record) in takeovers { try takeOver(record, by: object) }
        let changed = updated.objects.filter { !$0.changedValues().isEmpty }
        for object in changed where prepared.insert(ObjectIdentifier(object)).inserted {
            try recomputeDerivedAttributes(of: object)
            object.willSave()
        }
        // A merged to-many may change what a taken-over object derives (`posts.@count`).
        for (object, _) in takeovers { try recomputeDerivedAttributes(of: object) }
        return (inserted.objects, changed)
    }

    /// Records a commit in the objects: permanent IDs and versions (the result's arrays are in the
    /// order of `inserted` and `changed`), clean state, `didSave`.
    private func finishSave(_ result: StoreCommitResult, inserted insertedObjects: [ManagedObject],
                            changed: [ManagedObject], deleted deletedObjects: [ManagedObject]) {
        precondition(result.insertedIDs.count == insertedObjects.count && result.updatedVersions.count == changed.count,
                     "ModelgenRuntime: the store's commit result does not match the changes")
        // Re-keying the registry: one removal and one insertion per inserted object, or, when they are
        // most of it (a bulk insert), one pass building it afresh at its final size.
        // (Not in a child: its saved objects keep their temporary IDs, which a rebuild would drop.)
        let rebuild = insertedObjects.count > registered.count / 2 && parentLink == nil
        if hasChildren {
            for (object, permanent) in zip(insertedObjects, result.insertedIDs) where object.objectID != permanent {
                savedTemporaryIDs[object.objectID] = permanent
            }
        }
        for (object, permanent) in zip(insertedObjects, result.insertedIDs) {
            if !rebuild { registered.removeValue(forKey: object.objectID) }
            object.objectID = permanent
            if !rebuild { registered[permanent] = object }
            object._isInserted = false
            object.committedVersion = 1
            object.committedSlots = nil
        }
        if rebuild {
            // Temporary IDs in the registry are exactly the inserted objects': the others keep their keys,
            // the inserted ones come in under their permanent IDs, in insertion order (no object is read
            // for its ID: at 100,000 objects those reads are cache misses).
            let rekeyed = ObjectRegistry(minimumCapacity: registered.count)
            var temporary = 0
            registered.forEach { key, object in
                if key < 0 { temporary += 1 } else { rekeyed.insertTaken(object, key: key) }
            }
            assert(temporary == insertedObjects.count, "ModelgenRuntime: registered temporary IDs are not the inserted objects")
            for (object, permanent) in zip(insertedObjects, result.insertedIDs) { rekeyed.insert(object, for: permanent) }
            registered.take(from: rekeyed)
        }
        for (object, version) in zip(changed, result.updatedVersions) {
            object._isUpdated = false
            object.committedVersion = version
            object.committedSlots = nil
        }
        // Objects registered as updated whose values ended up unchanged are clean again.
        for object in updated where object._isUpdated {
            object._isUpdated = false
            object.committedSlots = nil
        }
        for object in deletedObjects {
            registered.removeValue(forKey: object.objectID)
            object._isRegistered = false
            object.turnIntoFault()
        }
        inserted = ObjectList()
        updated = ObjectList()
        deleted = ObjectList()
        clearUndo()
        for object in insertedObjects { object.didSave() }
        for object in changed { object.didSave() }
        for object in deletedObjects {
            object.didSave()
            object._context = nil
        }
    }

    /// What a save writes of a changed object: the columns of the stored properties whose values differ
    /// from those it read, and its to-many relationships' added and removed members (see `RecordWrite`).
    func recordWrite(of object: ManagedObject) -> RecordWrite {
        let entity = object.entity
        let slots = object._slots
        let committed = object.committedSlots ?? slots.array
        var write = RecordWrite()
        for (slot, property) in entity.properties.enumerated() where !property.isTransient {
            let old = committed[slot], new = slots[slot]
            if old.isSame(as: new) { continue }
            guard case .relationship(let relationship) = property, relationship.isToMany else {
                write.columns.append(slot)
                continue
            }
            let before = old.relatedObjects, after = new.relatedObjects
            let had = Set(before.map(ObjectIdentifier.init)), has = Set(after.map(ObjectIdentifier.init))
            var delta = ToManyDelta(added: after.filter { !had.contains(ObjectIdentifier($0)) }.map(\.objectID),
                                    removed: before.filter { !has.contains(ObjectIdentifier($0)) }.map(\.objectID))
            if relationship.isOrdered { delta.order = after.map(\.objectID) }
            write.toMany[slot] = delta
        }
        return write
    }

    /// A row of stored values: transient properties left out, transformables encoded, relationships as IDs.
    func storeValues(of object: ManagedObject) -> [StoreValue] {
        let entity = object.entity
        object.loadAllPendingToMany()
        let slots = object._slots
        let plain = entity.isPlainStoredAttribute   // stored as they are: no property to look at
        var values: [StoreValue] = []
        values.reserveCapacity(plain.count)
        for slot in plain.indices {
            values.append(plain[slot] ? StoreValue(attribute: slots[slot]) : storeValue(slots[slot], of: entity.properties[slot]))
        }
        return values
    }

    /// The stored value of one slot of an object (what `storeValues(of:)` holds at that slot).
    func storeValue(of object: ManagedObject, at slot: Int) -> StoreValue {
        if object._pendingToMany != 0 { object.loadPendingToMany(slot) }
        let value = object._slots[slot]
        return object.entity.isPlainStoredAttribute[slot] ? StoreValue(attribute: value) : storeValue(value, of: object.entity.properties[slot])
    }

    func storeValue(_ value: SlotValue, of property: PropertyDescription) -> StoreValue {
        if property.isTransient { return .null }
        switch value {
        case .null:
            if case .relationship(let r) = property { return r.isToMany ? .references([]) : .reference(nil) }
            return .null
        case .transformable(let box):
            guard case .attribute(let a) = property, let codec = a.codec, let data = try? codec.encode(box.value) else { return .null }
            return .data(data)
        case .object(let o): return .reference(o.objectID)
        case .objects(let list): return .references(list.objects.map(\.objectID))
        default: return StoreValue(attribute: value)
        }
    }

    /// Recomputes derived attributes (`posts.@count`, `lowercase:(title)`, `now()`) into their slots.
    func recomputeDerivedAttributes(of object: ManagedObject) throws {
        if object.entity.derivations.isEmpty { return }
        let evaluator = PredicateEvaluator(variables: [:])
        for (slot, expression) in object.entity.derivations.sorted(by: { $0.key < $1.key }) {
            guard case .attribute(let a) = object.entity.properties[slot] else { continue }
            func outOfRange(_ value: String) -> RuntimeError {
                .valueOutOfRange(entity: object.entity.name, key: a.name, value: value, type: a.type.rawValue)
            }
            let value = try evaluator.value(expression, on: object)
            let slotValue: SlotValue
            switch (value, a.type) {
            case (.null, _): slotValue = .null
            case (.int(let v), .double), (.int(let v), .float): slotValue = .double(Double(v))
            case (.int(let v), .decimal): slotValue = .decimal(Decimal(v))
            case (.double(let v), let t) where t.isInteger:
                guard let whole = t.integerValue(truncating: v) else { throw outOfRange("\(v)") }
                slotValue = .int(whole)
            // now() into a double: seconds since 2001-01-01 GMT, what Core Data stores for a date.
            case (.date(let v), .double), (.date(let v), .float): slotValue = .double(v.timeIntervalSinceReferenceDate)
            case (.int(let v), let t) where t.isInteger:
                guard let fitting = t.integerValue(exactly: v) else { throw outOfRange("\(v)") }
                slotValue = .int(fitting)
            case (.int(let v), _): slotValue = .int(v)
            case (.double(let v), _): slotValue = .double(v)
            case (.decimal(let v), _): slotValue = .decimal(v)
            case (.string(let v), _): slotValue = .string(v)
            case (.date(let v), _): slotValue = .date(v)
            case (.bool(let v), _): slotValue = .bool(v)
            default: slotValue = .null
            }
            if !slotValue.isSame(as: object._slots[slot]) {
                object._willWrite()
                object.storeSlot(slot, slotValue)
            }
        }
    }
}

/// Whether the store published a save's change set itself (`StoreChanges.published`).
final class SavePublication: @unchecked Sendable {
    // @unchecked: `done` is set by the store's call, on the saving thread, during `commit`, and read
    // by the context after `commit` returns.
    private(set) var done = false

    /// The closure the store calls: publishes through the container and notes that it did.
    func publisher(container: ManagedContainer, origin: ObjectIdentifier) -> @Sendable (ChangeSet) -> Void {
        { [self] changes in
            done = true
            container.didSave(changes, from: origin)
        }
    }
}
