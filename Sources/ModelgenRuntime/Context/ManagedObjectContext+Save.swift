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
        var operation = SaveOperation(self)
        try operation.run()
    }

    /// Lets each new object take over its saved record, then gives the objects to write: the ones
    /// still inserted, and the changed ones (objects the takeovers changed, such as a record's former
    /// partner, first get their derived attributes and `willSave`; `written`, the objects to write
    /// before the first takeover, had theirs).
    func takeOver(_ takeovers: [(object: ManagedObject, record: StoreRow)],
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
    func finishSave(_ result: StoreCommitResult, inserted insertedObjects: [ManagedObject],
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
            write.toMany[slot] = toManyDelta(from: old, to: new, ordered: relationship.isOrdered)
        }
        return write
    }

    /// How a to-many relationship's members changed from `old` to `new` (objects compared by identity).
    func toManyDelta(from old: SlotValue, to new: SlotValue, ordered: Bool) -> ToManyDelta {
        let before = old.relatedObjects, after = new.relatedObjects
        let had = Set(before.map(ObjectIdentifier.init)), has = Set(after.map(ObjectIdentifier.init))
        var delta = ToManyDelta(added: after.filter { !had.contains(ObjectIdentifier($0)) }.map(\.objectID),
                                removed: before.filter { !has.contains(ObjectIdentifier($0)) }.map(\.objectID))
        if ordered { delta.order = after.map(\.objectID) }
        return delta
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
