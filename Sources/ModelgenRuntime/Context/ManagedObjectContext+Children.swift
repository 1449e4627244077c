import Foundation

/// Child contexts (Core Data's `parent` context): a scratchpad over another context, for an edit the
/// user may still throw away. A child reads its parent as it is, unsaved changes included; its `save()`
/// validates as a store save does (model constraints, uniqueness against what the parent holds, delete
/// rules, custom hooks) and then pushes its changes into the parent, never into the store: the parent
/// holds them as its own unsaved changes (its observers and live results hear of them) until the
/// parent saves. Dropping a child, or `rollback()`, leaves the parent as it was. Children nest.
extension ManagedObjectContext {
    /// The context this one saves into; nil for a context that saves to the store.
    public var parent: ManagedObjectContext? { parentLink?.parent }

    /// A child context in this context's isolation (the main context's child is for the main actor,
    /// an editing sheet's): use it where this context is used. Its objects are observed as this
    /// context's are unless `observation` says otherwise; it starts with this context's merge policy.
    ///
    /// New objects a child saves keep their temporary IDs in the parent until the parent saves; the
    /// child may go on using them (its later saves find them under their permanent IDs).
    public func newChildContext(observation: ObservationMode? = nil) -> ManagedObjectContext {
        checkIsolation()
        let child = ManagedObjectContext(container: container, observationMode: observation ?? observationMode)
        child.isolation = isolation
        child.mergePolicy = mergePolicy
        child.isUndoEnabled = isUndoEnabled
        child.becomeChild(of: ParentLink(parent: self, access: .direct))
        return child
    }

    /// Runs `body` on a child of this main-actor context isolated to a background actor, and returns
    /// its result: long work over the main context's objects (unsaved edits included) that does not
    /// hold up the UI. The child's reads and its `save()` enter the main actor for as long as they
    /// need the parent (the main actor is free meanwhile: this function is awaiting), so a save in
    /// `body` has reached the parent when it returns. Managed objects stay inside: return IDs or values.
    @MainActor
    public func performChildTask<Result: Sendable>(
        _ body: @escaping @Sendable (ManagedObjectContext) throws -> Result
    ) async throws -> Result {
        checkIsolation()
        DispatchQueue.main.setSpecific(key: mainQueueKey, value: true)
        let actor = BackgroundContext(childOf: ParentLink(parent: self, access: .mainQueue))
        return try await actor.perform(body)
    }

    /// Applies a child's save to this context's objects: new objects are inserted (under the IDs the
    /// child gave them; `awakeFromInsert` ran in the child), changed properties take the child's values
    /// (only those the child changed: the child wins where both changed one, the rest stays as this
    /// context has it; a to-many relationship gains and loses the members the child added and removed,
    /// and an ordered one takes the child's order), deleted objects are deleted (delete rules apply
    /// here too). Every record the save names is looked up first, so a save naming one that is gone
    /// (deleted here, or from the store, since the child read it) throws `RuntimeError.objectNotFound`
    /// with nothing applied; members the child only kept or removed do not count, and those gone are
    /// left out. This context's live results hear of the changes; its undo manager records them as one group.
    func applyChildSave(_ changes: StoreChanges) throws {
        checkIsolation()
        let insertedIDs = Set(changes.inserted.map(\.id))
        // Look-ups first: the updated and deleted records, and every record a row refers to.
        var found: [ObjectID: ManagedObject] = [:]
        var inStore: Set<ObjectID> = []
        var missing: [ObjectID] = []
        // Members the child only kept (in an ordered relationship's order) or removed: left out when gone.
        var tolerated: Set<ObjectID> = []
        func note(_ id: ObjectID, required: Bool = true) {
            let id = resolvedID(id)
            guard found[id] == nil, !inStore.contains(id), !insertedIDs.contains(id) else { return }
            if !required { tolerated.insert(id) }
            if let object = registered[id] {
                if object._isDeleted { missing.append(id) } else { found[id] = object }
                if object._isFault { inStore.insert(id) }   // held as a fault: its record must still be there
            } else if id.isTemporaryID {
                missing.append(id)   // inserted here and deleted again before it was saved
            } else {
                inStore.insert(id)   // checked against the store below
            }
        }
        for row in changes.updated { note(row.id) }
        for (id, _) in changes.deleted { note(id) }
        for row in changes.inserted + changes.updated {
            guard let write = changes.writes[row.id] else {
                for value in row.values { value.referencedIDs.forEach { note($0) } }
                continue
            }
            for slot in write.columns where slot < row.values.count { row.values[slot].referencedIDs.forEach { note($0) } }
            for delta in write.toMany.values { delta.added.forEach { note($0) } }
        }
        for delta in changes.writes.values.flatMap(\.toMany.values) {
            for id in delta.removed + (delta.order ?? []) { note(id, required: false) }
        }
        // Records this context does not hold yet must be in the store: read in one batch, kept for their faults.
        var storeRows: [StoreRow] = []
        if !inStore.isEmpty {
            storeRows = try store.rows(for: Array(inStore))
            try fillToMany(&storeRows)   // their to-many relationships too, one call per relationship
            let present = Set(storeRows.map(\.id))
            missing += inStore.filter { !present.contains($0) }
        }
        let gone = Set(missing.filter(tolerated.contains))
        if let first = missing.filter({ !gone.contains($0) }).min(by: { $0.key < $1.key }) { throw RuntimeError.objectNotFound(first) }
        for row in storeRows where registered[row.id].map({ $0._isFault }) ?? true {
            faults.rowCache[row.id] = row   // the fault fires from it, without another query
            found[row.id] = object(with: row.id)
        }

        endUndoGroup()
        defer { endUndoGroup() }
        let before = Set((updated.objects + deleted.objects).map(ObjectIdentifier.init))
        func resolved(_ id: ObjectID) -> ManagedObject {
            let id = resolvedID(id)
            return found[id] ?? registered[id]!
        }
        func member(_ id: ObjectID) -> ManagedObject? { gone.contains(resolvedID(id)) ? nil : resolved(id) }
        var created: [(ManagedObject, StoreRow)] = []
        for row in changes.inserted {
            guard let entity = model.entity(named: row.id.entityName) else { throw RuntimeError.unknownEntity(row.id.entityName) }
            let object = entity.managedClass.init(entity: entity, objectID: row.id, context: self, isFault: false)
            object._hasAwokenFromInsert = true
            register(inserted: object)
            created.append((object, row))
        }
        for (object, row) in created { try assign(row, to: object, keys: nil, write: nil, resolve: resolved, member: member) }
        for row in changes.updated {
            let object = resolved(row.id)
            try object.loadIfFault()
            try assign(row, to: object, keys: changes.changedKeys[row.id], write: changes.writes[row.id], resolve: resolved, member: member)
        }
        var changeSet = ChangeSet()
        changeSet.inserted = changes.inserted.map(\.id)
        for row in changes.updated { changeSet.updated[resolvedID(row.id), default: []].formUnion(changes.changedKeys[row.id] ?? []) }
        for (id, _) in changes.deleted {
            let object = resolved(id)
            changeSet.deleted.append(object.objectID)
            delete(object)
        }
        // What the changes did here besides: inverse sides, cascades.
        for object in updated.objects where !before.contains(ObjectIdentifier(object)) && changeSet.updated[object.objectID] == nil {
            changeSet.updated[object.objectID] = Set(object.changedValues().keys)
        }
        for object in deleted.objects where !before.contains(ObjectIdentifier(object)) && !changeSet.deleted.contains(object.objectID) {
            changeSet.deleted.append(object.objectID)
        }
        updateLiveResults(changeSet)
    }

    /// Gives an object a child's values for `keys` (all stored properties when nil), with change
    /// tracking, observation and inverse upkeep, as if set here; with the child's `write`, its to-many
    /// relationships change by the write's deltas (`member`: nil for one that is gone).
    private func assign(_ row: StoreRow, to object: ManagedObject, keys: Set<String>?, write: RecordWrite?,
                        resolve: (ObjectID) -> ManagedObject, member: (ObjectID) -> ManagedObject?) throws {
        let entity = object.entity
        for (slot, property) in entity.properties.enumerated() where !property.isTransient && slot < row.values.count {
            if let keys, !keys.contains(property.name) { continue }
            if let write, case .relationship(let relationship) = property, relationship.isToMany {
                if let delta = write.toMany[slot] { apply(delta, to: object, at: slot, resolve: resolve, member: member) }
                continue
            }
            switch property {
            case .attribute:
                let value = try slotValue(row, at: slot, entity: entity)
                if !value.isSame(as: object._slots[slot]) {
                    object._willWrite()
                    object.storeSlot(slot, value)
                }
            case .relationship(let relationship):
                switch row.values[slot] {
                case .reference(let id):
                    object.setRelatedObject(id.map(resolve), at: slot)
                case .references(let ids):
                    object.setRelatedObjects(ids.map(resolve), at: slot)
                default:
                    if relationship.isToMany { object.setRelatedObjects([], at: slot) } else { object.setRelatedObject(nil, at: slot) }
                }
            }
        }
    }

    /// Adds and removes the members a child added and removed; an ordered relationship then takes the
    /// child's order, members this context added meanwhile staying at the end.
    private func apply(_ delta: ToManyDelta, to object: ManagedObject, at slot: Int,
                       resolve: (ObjectID) -> ManagedObject, member: (ObjectID) -> ManagedObject?) {
        for id in delta.removed { if let removed = member(id) { object.removeRelatedObject(removed, at: slot) } }
        for id in delta.added { object.addRelatedObject(resolve(id), at: slot) }
        guard let order = delta.order else { return }
        let members = object.objects(inSlot: slot)
        let held = Set(members.map(ObjectIdentifier.init))
        let ordered = order.compactMap(member).filter { held.contains(ObjectIdentifier($0)) }
        let placed = Set(ordered.map(ObjectIdentifier.init))
        object.setRelatedObjects(ordered + members.filter { !placed.contains(ObjectIdentifier($0)) }, at: slot)
    }
}
