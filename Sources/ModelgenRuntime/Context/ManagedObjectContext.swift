import Foundation

/// A scratchpad of managed objects: inserts, changes and deletes stay here until
/// `save()` writes them to the store at once, or `rollback()` drops them.
/// A context and its objects are not Sendable: use them where they were made, and
/// pass `ObjectID`s between contexts.
public final class ManagedObjectContext {
    /// The container the context saves to. Contexts keep their container alive, except the main context,
    /// which the container holds (a context and its container never keep each other alive).
    public var container: ManagedContainer { strongContainer ?? unownedContainer }
    private let strongContainer: ManagedContainer?
    private unowned(unsafe) let unownedContainer: ManagedContainer
    /// Whether the container merges other contexts' and processes' saves into this context as they
    /// happen (`mergeChanges(_:)`). Read for the container's `mainContext` (on by default; set it false to
    /// merge by hand). Other contexts live in isolations the container cannot enter: they merge when
    /// their code calls `mergeChanges(_:)`, and a `ModelActor` can start `mergeChangesAutomatically()`.
    public var automaticallyMergesChanges = false
    /// Live results of this context, updated after its saves and merges.
    var liveResults: [WeakChangeSetObserver] = []
    /// The isolation the context was made for (checked in debug builds).
    var isolation = ContextIsolation.unchecked
    /// What to do when a save meets a newer save of the same records.
    public var mergePolicy: MergePolicy = .error
    /// What a save checks of what other saves did since this context read (`.changedRecords`, or
    /// `.serializable` to rule out read skew and write skew too).
    public var saveIsolation: SaveIsolation = .changedRecords
    /// Whether changes are recorded for `undo()` (on by default).
    @exclusivity(unchecked) public var isUndoEnabled = true
    /// Whether this context's objects register reads with observation tracking (see `ObservationMode`).
    public let observationMode: ObservationMode

    /// Bumped when an undo group ends, and by save, rollback, undo, redo and reset:
    /// an object registers its next change once per epoch.
    @exclusivity(unchecked) @usableFromInline var _epoch: UInt64 = 1
    // The registry and the change lists are touched once or twice per object by every fetch and save;
    // the runtime's own code never overlaps its accesses to them, so dynamic exclusivity checks
    // (swift_beginAccess, a thread-local access set) would only cost time.
    let registered = ObjectRegistry()
    /// The entity of the last fault made (one of `model`'s entities, which the model keeps alive).
    @exclusivity(unchecked) private var lastEntityOfObject: Unmanaged<EntityDescription>?
    /// The class `insertableEntity(for:)` answered last, and its entity (the model keeps it alive).
    @exclusivity(unchecked) private var lastInsertable: (type: ObjectIdentifier, entity: Unmanaged<EntityDescription>)?
    @exclusivity(unchecked) var inserted = ObjectList()
    @exclusivity(unchecked) var updated = ObjectList()
    @exclusivity(unchecked) var deleted = ObjectList()
    /// The undo and redo groups, and the group changes are recorded in now.
    let undoHistory = UndoHistory()
    var changeProcessingSuspended = 0
    /// What faults load from without asking the store, and which faults wait to load together.
    let faults = FaultLoader()
    var nextTemporaryKey: Int64 = -1
    /// For a child context: the link to the context it saves into (nil: it saves to the store).
    var parentLink: ParentLink?
    /// Where fetches and saves go: the container's store, or, for a child, its parent context.
    private var childStore: (any PersistentStore)?
    /// Temporary IDs this context replaced with permanent ones on save, kept once it has had a child
    /// (a child's objects keep the temporary IDs its save gave the parent; see `resolvedID(_:)`).
    var savedTemporaryIDs: [ObjectID: ObjectID] = [:]
    /// True once a child context was made from this one.
    var hasChildren = false

    init(container: ManagedContainer, observationMode: ObservationMode = .observable, retainsContainer: Bool = true) {
        strongContainer = retainsContainer ? container : nil
        unownedContainer = container
        self.observationMode = observationMode
    }

    deinit {
        // The objects go away with the context: tell them, and break relationship cycles.
        registered.drain { object in
            object.turnIntoFaultForTeardown()
            object._context = nil
        }
        for object in inserted where !object._isRegistered { object._context = nil }
    }

    /// The model of the container.
    public var model: ManagedObjectModel { container.model }
    var store: any PersistentStore { childStore ?? container.store }
    /// The store when it runs queries itself (see `QueryingStore`).
    var queryingStore: (any QueryingStore)? { store as? any QueryingStore }

    /// Makes this new context the child of `link.parent`: it reads through the parent and saves into it.
    func becomeChild(of link: ParentLink) {
        parentLink = link
        childStore = link.store
        link.parent.hasChildren = true
        // A block of temporary keys of its own, so that its new objects keep their IDs in the parent.
        nextTemporaryKey = TemporaryKeyBlocks.next()
    }

    // MARK: Change sets

    /// Objects inserted since the last save.
    public var insertedObjects: [ManagedObject] { inserted.objects }
    /// Objects changed since the last save (with values that differ from the saved ones).
    public var updatedObjects: [ManagedObject] { updated.objects.filter { !$0.changedValues().isEmpty } }
    /// Objects deleted since the last save.
    public var deletedObjects: [ManagedObject] { deleted.objects }
    /// True when a save would write something.
    public var hasChanges: Bool { !inserted.isEmpty || !deleted.isEmpty || !updatedObjects.isEmpty }
    /// Every object the context holds (faults included).
    public var registeredObjects: [ManagedObject] { registered.objects }

    // MARK: Inserting

    func nextTemporaryID(for entity: EntityDescription) -> ObjectID {
        defer { nextTemporaryKey -= 1 }
        return ObjectID(entityName: entity.name, key: nextTemporaryKey)
    }

    func insertableEntity(for type: ManagedObject.Type) throws -> EntityDescription {
        // Objects of one class are usually inserted together: its entity stays at hand.
        if let last = lastInsertable, last.type == ObjectIdentifier(type) { return last.entity.takeUnretainedValue() }
        guard let entity = model.entity(for: type) else {
            throw RuntimeError.unknownEntity("\(type) is not the class of an entity of model '\(model.name)'")
        }
        if entity.isAbstract { throw RuntimeError.abstractEntity(entity.name) }
        lastInsertable = (ObjectIdentifier(type), Unmanaged.passUnretained(entity))
        return entity
    }

    /// Creates and inserts an object of a named entity; throws for unknown or abstract entities.
    @discardableResult
    public func insertObject(entityName: String) throws -> ManagedObject {
        guard let entity = model.entity(named: entityName) else { throw RuntimeError.unknownEntity(entityName) }
        if entity.isAbstract { throw RuntimeError.abstractEntity(entity.name) }
        let object = entity.managedClass.init(entity: entity, objectID: nextTemporaryID(for: entity), context: self, isFault: false)
        register(inserted: object)
        return object
    }

    func register(inserted object: ManagedObject) {
        checkIsolation()
        recordUndoImage(of: object)
        object._isRegistered = true
        object._isInserted = true
        registered[object.objectID] = object
        inserted.appendNew(object)   // a new object: never in the list
        object._trackedEpoch = _epoch
        if !object._hasAwokenFromInsert {
            object._hasAwokenFromInsert = true
            object.awakeFromInsert()
        }
    }

    // MARK: Tracking

    /// Registers an object's first change in the current epoch (nothing while change processing is off).
    func objectWillChange(_ object: ManagedObject) {
        if changeProcessingSuspended > 0 { return }
        // The undo image and the committed values are taken whole: every relationship loaded first.
        object.loadAllPendingToMany()
        recordUndoImage(of: object)
        if !object._isInserted && !object._isDeleted && !object._isUpdated && object._isRegistered {
            object._isUpdated = true
            updated.appendNew(object)   // not flagged updated: not in the list
        }
        if !object._isInserted && object.committedSlots == nil {
            object.committedSlots = object._slots.array
        }
    }

    /// Runs `body` with change tracking off (`awakeFromFetch`): changes made there do not dirty objects.
    func withoutChangeProcessing(_ body: () throws -> Void) rethrows {
        changeProcessingSuspended += 1
        _epoch &+= 1
        defer {
            changeProcessingSuspended -= 1
            _epoch &+= 1
        }
        try body()
    }

    // MARK: Deleting

    /// Marks an object deleted and applies delete rules (cascade now; nullify now; deny checked at save).
    /// A deleted object stays in the context until `save()`.
    public func delete(_ object: ManagedObject) {
        checkIsolation()
        guard object._context === self, !object._isDeleted, object._isRegistered || object._isInserted else { return }
        object.fireFaultIfNeeded()
        recordUndoImage(of: object)
        object._isDeleted = true
        if object._isInserted {
            // Never saved: it simply leaves the context.
            object._isInserted = false
            object._isRegistered = false
            inserted.remove(object)
            registered.removeValue(forKey: object.objectID)
        } else {
            if object._isUpdated { object._isUpdated = false; updated.remove(object) }
            if object.committedSlots == nil { object.committedSlots = object._slots.array }
            deleted.append(object)
        }
        for (slot, property) in object.entity.properties.enumerated() {
            guard case .relationship(let relationship) = property else { continue }
            let related = object.objects(inSlot: slot)
            switch relationship.deleteRule {
            case .nullify:
                if let inverse = object.entity.destination(ofSlot: slot).inverseSlot {
                    for other in related where !other._isDeleted { other.unlinkRaw(inverse, from: object) }
                }
            case .cascade:
                for other in related { delete(other) }
            case .deny, .noAction:
                break
            }
        }
    }

    // MARK: Objects by ID

    /// The object for an ID: the registered one, or a fault that loads on first access (not checked against the store).
    public func object(with id: ObjectID) -> ManagedObject {
        // One hash and probe: the registry's entry is found, or made with a new fault, in one access.
        registered.object(for: id, orMake: newFault)
    }

    /// A registered-to-be fault for an ID of this context's model (the caller puts it in the registry).
    private func newFault(_ id: ObjectID) -> ManagedObject {
        // Rows of one entity come in runs: compare one name instead of hashing it.
        if lastEntityOfObject?._withUnsafeGuaranteedRef({ $0.name == id.entityName }) != true {
            guard let found = model.entity(named: id.entityName) else {
                preconditionFailure("ModelgenRuntime: \(id) names no entity of model '\(model.name)'")
            }
            lastEntityOfObject = Unmanaged.passUnretained(found)
        }
        // The entity borrowed, not retained and released around each object (the object's own
        // reference is its one retain): two atomic operations fewer per object of a large fetch.
        let object = lastEntityOfObject.unsafelyUnwrapped._withUnsafeGuaranteedRef { entity in
            entity.managedClass.init(entity: entity, objectID: id, context: self, isFault: true)
        }
        object._isRegistered = true
        return object
    }

    /// The object for an ID, loaded; throws when the store has no such record.
    public func existingObject(with id: ObjectID) throws -> ManagedObject {
        if let object = registered[id], !object._isFault { return object }
        guard model.entity(named: id.entityName) != nil else { throw RuntimeError.unknownEntity(id.entityName) }
        guard try store.row(for: id) != nil else { throw RuntimeError.objectNotFound(id) }
        let object = self.object(with: id)
        try fulfillFault(object)
        return object
    }

    /// The object for an ID as its class, loaded: `try context.existingObject(with: id, as: Book.self)`
    /// (or with the type inferred: `let book: Book = try context.existingObject(with: id)`). Throws
    /// `RuntimeError.objectNotFound` when the store has no such record and `RuntimeError.typeMismatch`
    /// when the record's entity is not of that class (nor one of its subclasses).
    public func existingObject<Object: ManagedObject>(with id: ObjectID, as type: Object.Type = Object.self) throws -> Object {
        let object = try existingObject(with: id)
        guard let typed = object as? Object else {
            throw RuntimeError.typeMismatch(expected: "\(Object.self)", found: "\(Swift.type(of: object)) (\(id))")
        }
        return typed
    }

    /// Loads a fault's values from the store, then calls `awakeFromFetch` with change processing off.
    func fulfillFault(_ object: ManagedObject) throws {
        guard object._isFault else { return }
        if let batch = faults.batches.removeValue(forKey: object.objectID) { try loadRows(of: batch.ids) }
        // The row alone (`rows(for:)`): its to-many relationships load when first used, not with the object.
        guard let row = try faults.rowCache.removeValue(forKey: object.objectID) ?? store.rows(for: [object.objectID]).first else {
            throw RuntimeError.objectNotFound(object.objectID)
        }
        try fulfillFault(object, from: row)
    }

    /// Loads a fault's values from a row the store gave, then calls `awakeFromFetch` with change processing off.
    func fulfillFault(_ object: ManagedObject, from row: StoreRow) throws {
        try loadFetched(row, intoFault: object)
        withoutChangeProcessing { object.awakeFromFetch() }
    }

    /// Loads a fault's values from a row whose to-many relationships are there (or that has none);
    /// the caller runs `awakeFromFetch`.
    func load(_ row: StoreRow, intoFault object: ManagedObject, plainLoaded: Bool = false) throws {
        try load(row, into: object, plainLoaded: plainLoaded)
        object.committedVersion = row.version
        object.committedSlots = nil
        object._isFault = false
    }

    /// Runs `awakeFromFetch` of freshly loaded objects, in order, with change processing off; the
    /// positions in `skipping` (ascending) are objects that were not loaded. Objects whose class cannot
    /// have one of its own (`_awakesFromFetch`) are passed over.
    func awakeFromFetch(_ objects: [ManagedObject], skipping: [Int] = []) {
        if objects.count == skipping.count { return }
        withoutChangeProcessing {
            var skipped = skipping.makeIterator()
            var nextSkipped = skipped.next()
            for (position, object) in objects.enumerated() {
                if position == nextSkipped { nextSkipped = skipped.next(); continue }
                if object.entity.awakesFromFetch { object.awakeFromFetch() }
            }
        }
    }

    func slots(from row: StoreRow, entity: EntityDescription) throws -> [SlotValue] {
        try entity.properties.indices.map { try slotValue(row, at: $0, entity: entity) }
    }

    /// Writes a row's values into an object's slots (checked first: a refused value leaves the object as it
    /// was). With `plainLoaded`, the plain stored attributes are in the slots already (see
    /// `DirectLoadingStore.fetch(_:objects:each:)`), which only happens for an entity without `needsCheckedLoad`.
    private func load(_ row: StoreRow, into object: ManagedObject, plainLoaded: Bool = false) throws {
        let entity = object.entity
        if entity.needsCheckedLoad {
            object._replaceSlots(with: try slots(from: row, entity: entity))
            return
        }
        let slots = object._slots
        if plainLoaded {
            for index in entity.slotsNotPlain { slots[index] = try slotValue(row, at: index, entity: entity) }
            return
        }
        let plain = entity.isPlainStoredAttribute
        let values = row.values
        for index in plain.indices {
            if plain[index] && index < values.count {
                slots[index] = SlotValue(values[index])
            } else {
                slots[index] = try slotValue(row, at: index, entity: entity)
            }
        }
    }

    /// A row's value for a slot: transients get their default, transformables are decoded, raw values
    /// checked against their Swift type, relationships become objects (faults where not registered).
    func slotValue(_ row: StoreRow, at index: Int, entity: EntityDescription) throws -> SlotValue {
        try slotValue(index < row.values.count ? row.values[index] : .null, at: index, entity: entity)
    }

    /// A stored value as slot `index` of `entity` holds it (see `slotValue(_:at:entity:)` for a row's).
    func slotValue(_ value: StoreValue, at index: Int, entity: EntityDescription) throws -> SlotValue {
        switch entity.properties[index] {
        case .attribute(let a):
            if a.isTransient { return entity.initialSlots[index] }
            if a.type == .transformable, case .data(let data) = value, let codec = a.codec {
                return .transformable(TransformableBox(try codec.decode(data)))
            }
            if let accepts = a.acceptsRawValue, !value.isNull, !accepts(value) {
                throw RuntimeError.invalidStoredValue(entity: entity.name, key: a.name, value: "\(value)", swiftType: a.swiftTypeName ?? "the attribute's type")
            }
            return SlotValue(value)
        case .relationship(let r):
            switch value {
            case .reference(let id?): return .object(object(with: id))
            case .references(let ids): return .objects(ObjectList(ids.map { object(with: $0) }))
            default: return r.isToMany ? .objects(ObjectList()) : .null
            }
        }
    }

    // MARK: Refreshing

    /// Turns an object back into a fault. With `mergeChanges: false` its unsaved changes are dropped;
    /// with `true` an unchanged object becomes a fault and a changed one keeps its changes over fresh store values.
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        guard object._context === self, !object._isInserted, object._loadState != .fault else { return }
        if mergeChanges && object._isUpdated && !object.changedValues().isEmpty {
            guard let row = try? store.row(for: object.objectID), let fresh = try? slots(from: row, entity: object.entity) else { return }
            let old = object.committedSlots ?? object._slots.array
            for slot in fresh.indices {
                let current = object._slots[slot]
                if old[slot].isSame(as: current) {
                    object.storeSlot(slot, fresh[slot])
                } else if case .relationship(let r) = object.entity.properties[slot], r.isToMany {
                    // This context's additions and removals, over the members the store has now: members
                    // another save removed (or deleted) are gone, and the next save adds only its own.
                    let delta = toManyDelta(from: old[slot], to: current, ordered: r.isOrdered)
                    let known = Dictionary((fresh[slot].relatedObjects + current.relatedObjects).map { ($0.objectID, $0) }) { first, _ in first }
                    let members = delta.applied(to: fresh[slot].relatedObjects.map(\.objectID)).compactMap { known[$0] }
                    object.storeSlot(slot, .objects(ObjectList(members)))
                }
            }
            object.committedSlots = fresh
            object.committedVersion = row.version
            return
        }
        if object._isUpdated { updated.remove(object) }
        if object._isDeleted { deleted.remove(object); object._isDeleted = false }
        faults.rowCache[object.objectID] = nil
        faults.batches[object.objectID] = nil
        // Observers are told now, not when someone next reads: an observed object loads its fresh values
        // at once and its observers hear of those that differ from what they read (a record gone from
        // the store leaves a fault, as it would unobserved).
        let before = object._isObserved ? object._slots.array : nil
        object.turnIntoFault()
        _epoch &+= 1
        if let before, (try? fulfillFault(object)) != nil {
            let after = object._slots
            object.notifyChanged(before.indices.filter { !before[$0].isSame(as: after[$0]) })
        }
    }

    /// Drops every object and change: all objects turn into faults and leave the context.
    public func reset() {
        // The registry is emptied first: a `didTurnIntoFault` may use the context.
        let objects = ObjectRegistry()
        objects.take(from: registered)
        objects.forEach { _, object in
            object.turnIntoFault()
            object._context = nil
            object._isRegistered = false
        }
        faults.rowCache = [:]
        faults.batches = [:]
        faults.pendingToMany = [:]
        inserted = ObjectList()
        updated = ObjectList()
        deleted = ObjectList()
        clearUndo()
    }

    /// Drops every unsaved change: inserted objects leave, changed and deleted ones get their saved values back.
    public func rollback() {
        endUndoGroup()
        for object in inserted {
            object._isInserted = false
            object._isRegistered = false
            object._isDeleted = true
            registered.removeValue(forKey: object.objectID)
        }
        for object in updated.objects + deleted.objects {
            if let committed = object.committedSlots { object._replaceSlots(with: committed) }
            object.committedSlots = nil
            object._isUpdated = false
            object._isDeleted = false
        }
        // Objects whose inverse side changed without their own change being registered keep consistency via their snapshots.
        inserted = ObjectList()
        updated = ObjectList()
        deleted = ObjectList()
        clearUndo()
    }
}
