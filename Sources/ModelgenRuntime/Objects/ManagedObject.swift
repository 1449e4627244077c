import Foundation
import Observation

/// The base class of every managed object. Storage is owned by the runtime (one
/// typed slot per property, inherited properties first); generated properties read
/// and write slots through `@inlinable` accessors, so access costs a switch, not a
/// dictionary lookup or a cast.
///
/// Life-cycle hooks (`awakeFromInsert`, `awakeFromFetch`, `willSave`, `didSave`,
/// `didTurnIntoFault`, `validateFor…`, `validateValue(_:forKey:)`) are overridden in
/// the user's class; an override calls `super` first.
open class ManagedObject: Hashable, CustomStringConvertible {
    /// The object's entity.
    public final let entity: EntityDescription
    /// The object's identity: temporary until the first save, permanent after.
    @exclusivity(unchecked) public final internal(set) var objectID: ObjectID

    // The hot fields are only touched by the runtime's own accessors, which never overlap;
    // dynamic exclusivity checks (swift_beginAccess) would cost more than the access itself.
    /// One place per slot, at the entity's `slotOffsets`: a `SlotValue`, or for a scalar slot its
    /// `ScalarCell` (see `_cell(_:)`).
    @usableFromInline final let _base: UnsafeMutableRawPointer
    /// The plain cell of a scalar slot (integers, floating point, bools, dates): it is the slot's place
    /// in `_base` (16 bytes; a slot that is not scalar has a 24-byte place and holds a `SlotValue`).
    @inlinable @inline(__always)
    final func _cell(_ slot: Int) -> UnsafeMutablePointer<ScalarCell> { SlotAccess.cell(slot, in: _base, offsets: entity.slotOffsets) }
    /// The `SlotValue` of a slot that is not scalar.
    @inlinable @inline(__always)
    final func _value(_ slot: Int) -> UnsafeMutablePointer<SlotValue> { SlotAccess.value(slot, in: _base, offsets: entity.slotOffsets) }
    /// The number of slots (32 bits, so that `_pendingToMany` shares its word).
    @usableFromInline final let _slotCount: Int32
    /// To-many relationships not loaded yet, one bit per slot (slots 0–31): a fetched object's to-many
    /// slots hold empty lists until first used, when the context loads that relationship for a batch of
    /// its objects at once (`ManagedObjectContext.loadPendingToMany(of:slot:)`).
    @exclusivity(unchecked) final var _pendingToMany: UInt32 = 0
    /// The number of slots.
    @inlinable final var _count: Int { Int(_slotCount) }
    /// The context, unretained: the write path reads its epoch through `_withUnsafeGuaranteedRef`, which
    /// touches no reference count (a plain optional would be retained and released on every write).
    @exclusivity(unchecked) @usableFromInline final var _contextRef: Unmanaged<ManagedObjectContext>?
    /// The context (not retained: objects live as long as their context).
    @inlinable final var _context: ManagedObjectContext? {
        get { _contextRef?.takeUnretainedValue() }
        set { _contextRef = newValue.map { Unmanaged.passUnretained($0) } }
    }
    /// Equals the context's epoch once this object's change has been registered in the current undo group.
    @exclusivity(unchecked) @usableFromInline final var _trackedEpoch: UInt64 = 0
    /// Made the first time the object is read under observation tracking (see `ManagedObject+Observation`):
    /// until then an object pays these 8 bytes for Observation and nothing more. A box of ours, not an
    /// `ObservationRegistrar?` (that type's layout is resilient: testing it for nil copies it), held
    /// retained by hand (released in deinit) and used through guaranteed references: no reference
    /// counting on the read path.
    @exclusivity(unchecked) @usableFromInline final var _observationRef: Unmanaged<ObjectObservation>?
    // The flags sit together in one word after the last 8-byte fields: the base object is 112 bytes,
    // and each `@Managed` property adds two (its slot number): four fit malloc's 128-byte chunk, twelve
    // its 144-byte one (`SlotStorageTests.anObjectIsTheBaseClassAndTwoBytesAProperty`).
    /// How much of the object's values its slots hold (`LoadState`).
    @exclusivity(unchecked) @usableFromInline final var _loadState: LoadState
    /// Whether reads register with observation tracking (the context's `ObservationMode`).
    @exclusivity(unchecked) @usableFromInline final var _observesReads: Bool
    /// `_observation != nil`, as a flag the inlined write path tests without touching a reference count.
    @exclusivity(unchecked) @usableFromInline final var _isObserved = false

    // The runtime's bookkeeping, set once or twice per object by every fetch, save and teardown: its
    // accesses never overlap, and a dynamic exclusivity check each (swift_beginAccess, a thread-local
    // access set) cost a fetch of 100,000 objects about a millisecond.
    @exclusivity(unchecked) final var _isInserted = false
    @exclusivity(unchecked) final var _isDeleted = false
    @exclusivity(unchecked) final var _isUpdated = false
    @exclusivity(unchecked) final var _isRegistered = false
    @exclusivity(unchecked) final var _hasAwokenFromInsert = false
    /// The values as last saved or fetched (nil: not changed since, or never saved).
    @exclusivity(unchecked) final var committedSlots: [SlotValue]?
    /// The store's version of the record when last saved or fetched (optimistic locking).
    @exclusivity(unchecked) final var committedVersion: Int64 = 0

    /// Creates an object of an entity (runtime use: generated and user classes inherit it).
    public required init(entity: __shared EntityDescription, objectID: ObjectID, context: __shared ManagedObjectContext?, isFault: Bool) {
        self.entity = entity
        self.objectID = objectID
        self._contextRef = context.map { Unmanaged.passUnretained($0) }
        self._loadState = isFault ? .fault : .loaded
        self._observesReads = context?.observationMode != .unobserved
        let slotCount = entity.properties.count
        _slotCount = Int32(slotCount)
        // One place per slot: a `SlotValue`, or a scalar slot's cell (one malloc and free per object).
        // malloc, not `allocate(byteCount:alignment:)`: that takes the aligned-allocation path
        // (posix_memalign on Linux, slower) even for 8-byte alignment; malloc's 16 bytes suffice
        // (`EntityDescription.layOutSlots()` checks the places need no more).
        guard let raw = malloc(entity.slotBytes) else {
            fatalError("ModelgenRuntime: out of memory for the values of a \(entity.name)")
        }
        _base = raw
        // Every slot empty, copied from the entity's template of empty places (plain bits, no references).
        raw.copyMemory(from: entity.emptySlots, byteCount: entity.slotBytes)
        if !isFault { _replaceSlots(with: entity.initialSlots) }
    }

    deinit {
        _observationRef?.release()
        let kinds = entity.scalarKinds, offsets = entity.slotOffsets
        for slot in 0..<_count where kinds[slot] == ScalarKind.boxed.rawValue {
            SlotAccess.value(slot, in: _base, offsets: offsets).deinitialize(count: 1)
        }
        free(_base)   // a cell needs no deinitialization
    }

    /// The slots as `SlotValue`s, read and written one at a time (scalar slots are converted from their cells).
    @inlinable
    final var _slots: SlotAccess { SlotAccess(base: _base, kinds: entity.scalarKinds, offsets: entity.slotOffsets, count: _count) }

    /// Replaces every slot (loading a fault, undo, rollback); an empty array clears them (a fault's storage).
    /// Observers hear of the slots whose values differ (not of clearing a fault's storage: a fault's
    /// values are not what anyone reads).
    final func _replaceSlots(with values: [SlotValue]) {
        precondition(values.isEmpty || values.count == _count, "slot count does not match \(entity.name)")
        let slots = _slots
        if values.isEmpty {
            for slot in 0..<_count { slots.store(.null, at: slot) }
        } else if _isObserved && !_isFault {
            for slot in 0..<_count { storeSlot(slot, values[slot]) }
        } else {
            for slot in 0..<_count { slots.store(values[slot], at: slot) }
        }
    }

    /// Creates an object and inserts it into a context: `Post(context: context)`. Runs `awakeFromInsert` once.
    /// The class must belong to an entity of the context's model that is not abstract
    /// (use `context.insertObject(entityName:)` to get a thrown error instead of a stop).
    public convenience init(context: ManagedObjectContext) {
        let entity: EntityDescription
        do {
            entity = try context.insertableEntity(for: Self.self)
        } catch {
            preconditionFailure("ModelgenRuntime: cannot create \(Self.self): \(error)")
        }
        self.init(entity: entity, objectID: context.nextTemporaryID(for: entity), context: context, isFault: false)
        context.register(inserted: self)
    }

    static func initialSlot(_ property: PropertyDescription) -> SlotValue {
        switch property {
        case .attribute(let a): return SlotValue(a.defaultValue)
        case .relationship(let r): return r.isToMany ? .objects(ObjectList()) : .null
        }
    }

    // MARK: State

    /// The context the object lives in; nil once deleted and saved, or after its context is gone.
    public final var managedObjectContext: ManagedObjectContext? { _context }
    /// Inserted into its context and not yet saved.
    public final var isInserted: Bool { _isInserted }
    /// Changed since the last save (and not inserted or deleted).
    public final var isUpdated: Bool { _isUpdated }
    /// Deleted in its context, not yet saved.
    public final var isDeleted: Bool { _isDeleted }
    /// Its values are not loaded yet: reading any property loads them.
    public final var isFault: Bool { _loadState == .fault }
    /// Loaded in part, by a fetch with `propertiesToFetch`: reading one of those properties reads the
    /// slot; reading any other one, changing, deleting or validating the object loads the rest of its
    /// values first (for all the partial objects of that fetch, with one query). Not a fault.
    public final var isPartial: Bool { _loadState == .partial }
    /// Not loaded, or loaded in part: reads and writes take the slow path, which loads what they need.
    /// Compared by raw value: compared as enums, the inlined read paths retained and released the
    /// object around every property access.
    @inlinable final var _isFault: Bool {
        @inline(__always) get { _loadState.rawValue != LoadState.loaded.rawValue }
        set { _loadState = newValue ? .fault : .loaded }
    }
    /// Inserted, deleted, or changed.
    public final var hasChanges: Bool { _isInserted || _isDeleted || (_isUpdated && !changedValues().isEmpty) }

    /// The properties whose values differ from the last saved ones, with their current values.
    public final func changedValues() -> [String: Any?] {
        if _isFault { return [:] }
        var result: [String: Any?] = [:]
        let committed = committedSlots
        for (slot, property) in entity.properties.enumerated() {
            if let committed, committed[slot].isSame(as: _slots[slot]) { continue }
            if committed == nil && !_isInserted { continue }
            if _isInserted && _slots[slot].isSame(as: entity.initialSlots[slot]) { continue }
            result[property.name] = _slots[slot].anyValue
        }
        return result
    }

    /// The last saved values of the named properties (all properties when `keys` is nil).
    public final func committedValues(forKeys keys: [String]? = nil) -> [String: Any?] {
        if _isInserted { return [:] }
        fireFaultIfNeeded()
        loadAllPendingToMany()
        let source = committedSlots ?? _slots.array
        var result: [String: Any?] = [:]
        for (slot, property) in entity.properties.enumerated() where keys == nil || keys!.contains(property.name) {
            result[property.name] = source[slot].anyValue
        }
        return result
    }

    // MARK: Life-cycle hooks

    /// Called once in the object's lifetime, when it is inserted. Set defaults here; override calling `super` first.
    open func awakeFromInsert() {}
    /// Called when the object's values are loaded from the store. Changes made here do not dirty the object.
    open func awakeFromFetch() {}
    /// Called before a save writes the object.
    open func willSave() {}
    /// Called after a save wrote the object.
    open func didSave() {}
    /// Called when the object's values are dropped (refresh, reset, context teardown).
    open func didTurnIntoFault() {}

    /// Validates a newly inserted object before saving: model constraints, then `validateValue(_:forKey:)` per property.
    /// Throws one `ValidationError` listing every failure of the object.
    open func validateForInsert() throws { try validateProperties() }
    /// Validates a changed object before saving.
    open func validateForUpdate() throws { try validateProperties() }
    /// Validates an object about to be deleted: `deny` relationships must be empty.
    open func validateForDelete() throws { try validateDeleteRules() }
    /// Custom validation of one property's value; throw `ValidationError.Failure` (or any error) to refuse it.
    open func validateValue(_ value: Any?, forKey key: String) throws {}
    /// Whether objects of this class may have a `validateValue(_:forKey:)` of their own: a save calls
    /// it for every property of every object it validates only when true (the default). A class
    /// modelgen generates (class mode) whose superclasses it generated too, and that no class can
    /// inherit from (`final`), answers false: nothing can give it one, since an extension cannot
    /// override a method. Answer false yourself only for a class that never overrides it.
    @_spi(Generated) open class var _mayValidateValues: Bool { true }
    /// Whether objects of this class may have an `awakeFromFetch()` of their own: a fetch calls it for
    /// each object it loads only when true (the default). modelgen's final generated classes answer
    /// false, as they do `_mayValidateValues`: nothing can give them one. Answer false yourself only
    /// for a class that never overrides it.
    @_spi(Generated) open class var _awakesFromFetch: Bool { true }

    // MARK: Key-value access

    /// The slot of a property, or a thrown error naming the entity and key.
    public final func slot(forKey key: String) throws -> Int {
        guard let slot = entity.slotsByName[key] else { throw RuntimeError.unknownKey(entity: entity.name, key: key) }
        return slot
    }

    /// The value of a property (to-many relationships as `[ManagedObject]`). Throws
    /// `RuntimeError.objectNotFound` for a fault whose record another save deleted (a typed property
    /// read of such a fault stops the program, as Core Data's "could not fulfill a fault" does).
    public final func value(forKey key: String) throws -> Any? {
        let slot = try slot(forKey: key)
        if !hasLoaded(slot) { try fulfillFaultIfNeeded() }
        try loadPendingToManyIfNeeded(slot)
        observeAccess(slot: slot)
        return _slots[slot].anyValue
    }

    /// Sets a property with change tracking (and inverse upkeep for relationships).
    public final func setValue(_ value: Any?, forKey key: String) throws {
        let slot = try slot(forKey: key)
        try fulfillFaultIfNeeded()
        if case .relationship = entity.properties[slot] { try loadRelationshipSides(slot, newValue: value) }
        switch entity.properties[slot] {
        case .attribute(let attribute):
            let converted = try SlotValue(any: value, for: attribute, key: key, entity: entity.name)
            _willWrite()
            storeSlot(slot, converted)
        case .relationship(let relationship):
            if relationship.isToMany {
                let objects: [ManagedObject]
                if value == nil {
                    objects = []
                } else if let array = value as? [ManagedObject] {
                    objects = array
                } else if let set = value as? Set<ManagedObject> {
                    objects = Array(set)
                } else {
                    throw RuntimeError.typeMismatch(expected: "[ManagedObject] or Set<ManagedObject>", found: "\(type(of: value!))")
                }
                setRelatedObjects(objects, at: slot)
            } else {
                guard value == nil || value is ManagedObject else {
                    throw RuntimeError.typeMismatch(expected: "ManagedObject", found: "\(type(of: value!))")
                }
                setRelatedObject(value as? ManagedObject, at: slot)
            }
        }
    }

    /// The stored value of a property, without firing change tracking.
    public final func primitiveValue(forKey key: String) throws -> Any? {
        try value(forKey: key)
    }

    /// Sets a stored value without change tracking and without inverse upkeep (for use inside hooks).
    public final func setPrimitiveValue(_ value: Any?, forKey key: String) throws {
        let slot = try slot(forKey: key)
        fireFaultIfNeeded()
        switch entity.properties[slot] {
        case .attribute(let attribute):
            storeSlot(slot, try SlotValue(any: value, for: attribute, key: key, entity: entity.name))
        case .relationship(let relationship):
            if relationship.isToMany {
                if slot < 32 { _pendingToMany &= ~(1 << UInt32(slot)) }   // replaced, not loaded
                storeSlot(slot, .objects(ObjectList((value as? [ManagedObject]) ?? [])))
            } else {
                storeSlot(slot, (value as? ManagedObject).map(SlotValue.object) ?? .null)
            }
        }
    }

    // MARK: Typed accessors for generated code

    /// Reads an attribute slot (generated accessors; `@Managed` reads through `_managedValue(at:)`).
    @_spi(Generated)
    @inlinable @inline(__always)
    public final func managedValue<Value: ManagedValue>(at slot: Int) -> Value { _managedValue(at: slot) }

    /// Reads an attribute slot: the implementation behind `managedValue(at:)` and `@Managed`. Public for
    /// the runtime's inlinable code; the underscore keeps it out of code completion.
    @inlinable @inline(__always)
    public final func _managedValue<Value: ManagedValue>(at slot: Int) -> Value {
        // One branch and one out-of-line call for faults and observation: a call on the fast path
        // would make the compiler retain and release the object around every read.
        if _slowPath(_isFault || _observesReads) { return _observedRead(at: slot) }
        return Value._read(from: self, slot: slot)
    }

    /// Writes an attribute slot with change tracking (generated accessors; `@Managed` writes through `_setManagedValue(_:at:)`).
    @_spi(Generated)
    @inlinable @inline(__always)
    public final func setManagedValue<Value: ManagedValue>(_ value: Value, at slot: Int) { _setManagedValue(value, at: slot) }

    /// Writes an attribute slot with change tracking (observers, if the object has any, hear of a changed
    /// value): the implementation behind `setManagedValue(_:at:)` and `@Managed`.
    @inlinable @inline(__always)
    public final func _setManagedValue<Value: ManagedValue>(_ value: Value, at slot: Int) {
        if _slowPath(_isFault || _isObserved || !_isTrackedInCurrentEpoch) {
            _trackedWrite(value, at: slot)
        } else {
            Value._write(value, to: self, slot: slot)
        }
    }

    /// The slow path of a write: registers the change, tells observers if the value changes.
    @inlinable @inline(never)
    public final func _trackedWrite<Value: ManagedValue>(_ value: Value, at slot: Int) {
        _willWrite()
        if _isObserved {
            storeSlot(slot, value.slotValue)
        } else {
            Value._write(value, to: self, slot: slot)
        }
    }

    /// Reads a RawRepresentable attribute (an enum over a string or integer).
    @_spi(Generated)
    @inlinable
    public final func rawRepresentableValue<Value: RawRepresentable>(at slot: Int) -> Value where Value.RawValue: ManagedValue {
        _rawRepresentableValue(at: slot)
    }

    /// The implementation behind `rawRepresentableValue(at:)` and `@Managed` enum properties.
    @inlinable
    public final func _rawRepresentableValue<Value: RawRepresentable>(at slot: Int) -> Value where Value.RawValue: ManagedValue {
        let raw: Value.RawValue = _managedValue(at: slot)
        guard let value = Value(rawValue: raw) else {
            preconditionFailure("ModelgenRuntime: \(entity.name).\(entity.properties[slot].name) holds \(raw), which \(Value.self) does not accept")
        }
        return value
    }

    /// Reads an optional RawRepresentable attribute.
    @_spi(Generated)
    @inlinable
    public final func rawRepresentableValue<Value: RawRepresentable>(at slot: Int) -> Value? where Value.RawValue: ManagedValue {
        _rawRepresentableValue(at: slot)
    }

    /// The implementation behind the optional `rawRepresentableValue(at:)`.
    @inlinable
    public final func _rawRepresentableValue<Value: RawRepresentable>(at slot: Int) -> Value? where Value.RawValue: ManagedValue {
        let raw: Value.RawValue? = _managedValue(at: slot)
        return raw.flatMap(Value.init(rawValue:))
    }

    /// Writes a RawRepresentable attribute (its raw value).
    @_spi(Generated)
    @inlinable
    public final func setRawRepresentableValue<Value: RawRepresentable>(_ value: Value?, at slot: Int) where Value.RawValue: ManagedValue {
        _setRawRepresentableValue(value, at: slot)
    }

    /// The implementation behind `setRawRepresentableValue(_:at:)` and `@Managed` enum properties.
    @inlinable
    public final func _setRawRepresentableValue<Value: RawRepresentable>(_ value: Value?, at slot: Int) where Value.RawValue: ManagedValue {
        _willWrite()
        let newValue = value.map { $0.rawValue.slotValue } ?? .null
        if _slowPath(_isObserved) { storeSlot(slot, newValue) } else { _slots[slot] = newValue }
    }

    /// Reads a transformable attribute.
    @_spi(Generated)
    public final func transformableValue<Value>(at slot: Int) -> Value {
        if _isFault { _fireFault(reading: slot) }
        observeAccess(slot: slot)
        guard case .transformable(let box) = _slots[slot], let typed = box.value as? Value else {
            preconditionFailure("ModelgenRuntime: \(entity.name).\(entity.properties[slot].name) holds no \(Value.self)")
        }
        return typed
    }

    /// Reads an optional transformable attribute.
    @_spi(Generated)
    public final func optionalTransformableValue<Value>(at slot: Int) -> Value? {
        if _isFault { _fireFault(reading: slot) }
        observeAccess(slot: slot)
        if case .transformable(let box) = _slots[slot] { return box.value as? Value }
        return nil
    }

    /// Writes a transformable attribute.
    @_spi(Generated)
    public final func setTransformableValue<Value>(_ value: Value?, at slot: Int) {
        _willWrite()
        storeSlot(slot, value.map { SlotValue.transformable(TransformableBox($0)) } ?? .null)
    }

    // MARK: Change tracking

    /// Before every tracked write: fires a fault, registers the change once per undo group.
    @inlinable @inline(__always)
    public final func _willWrite() {
        if _slowPath(_isFault || !_isTrackedInCurrentEpoch) {
            _registerChange()
        }
    }

    /// Whether this object's change is already registered in its context's current epoch (false without a context).
    @inlinable @inline(__always)
    final var _isTrackedInCurrentEpoch: Bool {
        guard let context = _contextRef else { return false }
        return context._withUnsafeGuaranteedRef { $0._epoch } == _trackedEpoch
    }

    @usableFromInline
    final func _registerChange() {
        fireFaultIfNeeded()
        guard let context = _context else { return }
        context.objectWillChange(self)
        _trackedEpoch = context._epoch
    }

    /// The slow path of a read: loads the fault, registers the read with observation tracking, then
    /// reads. Kept out of line so the fast path holds no call (and so needs no retain/release of the object).
    @inlinable @inline(never)
    public final func _observedRead<Value: ManagedValue>(at slot: Int) -> Value {
        if _isFault { _fireFault(reading: slot) }
        if _observesReads { _observeAccess(slot) }
        return Value._read(from: self, slot: slot)
    }

    @usableFromInline
    final func _fireFault() {
        do {
            try fulfillFaultIfNeeded()
        } catch RuntimeError.wrongContext(let message) {
            preconditionFailure("ModelgenRuntime: \(message)")
        } catch {
            preconditionFailure("ModelgenRuntime: could not load \(objectID): \(error)")
        }
    }

    final func fireFaultIfNeeded() {
        if _isFault { _fireFault() }
    }

    /// Loads a fault's values, throwing what stops `_fireFault`: a record deleted since, a context gone
    /// (`RuntimeError.wrongContext`).
    final func fulfillFaultIfNeeded() throws {
        guard _isFault else { return }
        guard let context = _context else {
            throw RuntimeError.wrongContext("\(objectID) was used after its ManagedObjectContext was deallocated; objects live as long as their context: keep the context (e.g. `let context = container.newContext()`) while you use its objects")
        }
        try context.fulfillFault(self)
    }

    /// Fires the fault if needed and loads the to-many relationship at `slot` if it is not loaded yet:
    /// what every read or change of a relationship's members does first.
    @inline(__always)
    final func fireFaultIfNeeded(loading slot: Int) {
        if _isFault { _fireFault(reading: slot) }
        if _slowPath(_pendingToMany != 0) { loadPendingToMany(slot) }
    }

    /// Loads the to-many relationship at `slot` (with those of other objects waiting for it) if it is
    /// pending; a store that cannot answer stops the program (a typed property cannot throw; the
    /// untyped API and `save()` load through `loadPendingToManyIfNeeded`, which throws).
    final func loadPendingToMany(_ slot: Int) {
        do {
            try loadPendingToManyIfNeeded(slot)
        } catch RuntimeError.wrongContext(let message) {
            preconditionFailure("ModelgenRuntime: \(message)")
        } catch {
            preconditionFailure("ModelgenRuntime: could not load \(objectID).\(entity.properties[slot].name): \(error)")
        }
    }

    /// Whether the to-many relationship at `slot` is still waiting to load (its first use loads it).
    final func isPendingToMany(_ slot: Int) -> Bool { slot < 32 && _pendingToMany & (1 << UInt32(slot)) != 0 }

    /// Loads the to-many relationship at `slot` if it is pending, throwing what the store reports.
    final func loadPendingToManyIfNeeded(_ slot: Int) throws {
        guard isPendingToMany(slot) else { return }
        guard let context = _context else {
            throw RuntimeError.wrongContext("\(objectID) was used after its ManagedObjectContext was deallocated; objects live as long as their context")
        }
        try context.loadPendingToMany(of: self, slot: slot)
    }

    /// Loads every to-many relationship still pending (before a change is registered, or the values read whole).
    final func loadAllPendingToMany() {
        while _pendingToMany != 0 { loadPendingToMany(_pendingToMany.trailingZeroBitCount) }
    }

    /// Loads every to-many relationship still pending, throwing what the store reports.
    final func loadAllPendingToManyIfNeeded() throws {
        while _pendingToMany != 0 { try loadPendingToManyIfNeeded(_pendingToMany.trailingZeroBitCount) }
    }

    /// Loads, throwing what the store reports, what a change of the relationship at `slot` to
    /// `newValue` reads: its members here, and the inverse relationship of the objects it leaves and
    /// joins (the change itself then has nothing left to load).
    private func loadRelationshipSides(_ slot: Int, newValue: Any?) throws {
        try loadPendingToManyIfNeeded(slot)
        guard case .relationship(let relationship) = entity.properties[slot], let inverse = relationship.inverseName else { return }
        var others = _slots[slot].relatedObjects
        if let object = newValue as? ManagedObject { others.append(object) }
        if let objects = newValue as? [ManagedObject] { others += objects }
        if let objects = newValue as? Set<ManagedObject> { others += objects }
        for other in others where other._pendingToMany != 0 || other._isFault {
            try other.fulfillFaultIfNeeded()
            if let inverseSlot = other.entity.slotsByName[inverse] { try other.loadPendingToManyIfNeeded(inverseSlot) }
        }
    }

    /// Loads the object's values if it is a fault, throwing what the store or the model refuses.
    public final func loadIfFault() throws {
        guard _isFault else { return }
        guard let context = _context else { throw RuntimeError.wrongContext("\(objectID) is a fault whose context is gone") }
        try context.fulfillFault(self)
    }

    /// Turns the object into a fault: values dropped, `didTurnIntoFault` called.
    final func turnIntoFault() {
        guard _loadState != .fault else { return }
        _pendingToMany = 0
        _replaceSlots(with: [])
        committedSlots = nil
        _isFault = true
        _isUpdated = false
        didTurnIntoFault()
    }

    /// Turns the object into a fault as its context goes away: like `turnIntoFault()`, but only the
    /// relationship slots are cleared (to break cycles between objects); attribute values go with the object.
    final func turnIntoFaultForTeardown() {
        guard _loadState != .fault else { return }
        _pendingToMany = 0
        let slots = _slots
        for slot in entity.relationshipSlots { slots[slot] = .null }
        committedSlots = nil
        _isFault = true
        _isUpdated = false
        didTurnIntoFault()
    }

    // MARK: Identity

    public static func == (a: ManagedObject, b: ManagedObject) -> Bool { a === b }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// What `Set` and `Dictionary` use: the identity through `identityHash`, not a SipHash round (every
    /// read of a generated to-many property builds a `Set` of its objects).
    public func _rawHashValue(seed: Int) -> Int { identityHash(UInt64(UInt(bitPattern: ObjectIdentifier(self))), seed: seed) }

    public var description: String {
        "<\(type(of: self)) \(objectID)\(_loadState == .fault ? " fault" : _loadState == .partial ? " partial" : "")\(_isInserted ? " inserted" : "")\(_isDeleted ? " deleted" : "")>"
    }
}

/// The storage of a scalar slot: the value's bits (Int64, Double bit pattern, 0/1, seconds since 2001) and whether it is nil.
public struct ScalarCell {
    /// The value's bits: an `Int64`, a `Double`'s bit pattern, 0 or 1, or a date's seconds since 2001 as a `Double`.
    public var bits: UInt64
    /// True when the slot holds nil.
    public var isNull: Bool

    /// A cell.
    @inlinable public init(bits: UInt64, isNull: Bool) {
        self.bits = bits
        self.isNull = isNull
    }
}

/// How a slot is stored.
public enum ScalarKind: UInt8 {
    /// A `SlotValue` in a box: strings, data, decimals, optional and transformable values.
    case boxed = 0
    /// An integer in a `ScalarCell`.
    case int
    /// A float or double in a `ScalarCell`.
    case double
    /// A Boolean in a `ScalarCell`.
    case bool
    /// A date in a `ScalarCell`.
    case date
}

/// Slot-at-a-time access to an object's storage as `SlotValue`s, for everything but the typed fast paths.
@usableFromInline
struct SlotAccess {
    @usableFromInline let base: UnsafeMutableRawPointer
    @usableFromInline let kinds: UnsafeMutablePointer<UInt8>
    @usableFromInline let offsets: UnsafeMutablePointer<Int32>
    @usableFromInline let count: Int

    @inlinable init(base: UnsafeMutableRawPointer, kinds: UnsafeMutablePointer<UInt8>, offsets: UnsafeMutablePointer<Int32>, count: Int) {
        self.base = base
        self.kinds = kinds
        self.offsets = offsets
        self.count = count
    }

    /// The bytes of a scalar slot's place (its `ScalarCell`) and of another slot's (its `SlotValue`).
    static let cellPlace = 16, valuePlace = 24

    /// A scalar slot's cell, in the slot's place (see `ManagedObject._cell(_:)`).
    @inlinable @inline(__always) func cell(_ slot: Int) -> UnsafeMutablePointer<ScalarCell> { Self.cell(slot, in: base, offsets: offsets) }

    /// The cell of scalar slot `slot` of the storage at `base`, whose entity places slots at `offsets`.
    @inlinable @inline(__always)
    static func cell(_ slot: Int, in base: UnsafeMutableRawPointer, offsets: UnsafeMutablePointer<Int32>) -> UnsafeMutablePointer<ScalarCell> {
        (base + Int(offsets[slot])).assumingMemoryBound(to: ScalarCell.self)
    }

    /// The `SlotValue` of slot `slot` (not scalar) of the storage at `base`.
    @inlinable @inline(__always)
    static func value(_ slot: Int, in base: UnsafeMutableRawPointer, offsets: UnsafeMutablePointer<Int32>) -> UnsafeMutablePointer<SlotValue> {
        (base + Int(offsets[slot])).assumingMemoryBound(to: SlotValue.self)
    }

    @usableFromInline subscript(slot: Int) -> SlotValue {
        get {
            precondition(slot >= 0 && slot < count, "slot \(slot) out of range")
            let kind = ScalarKind(rawValue: kinds[slot]) ?? .boxed
            if kind == .boxed { return Self.value(slot, in: base, offsets: offsets).pointee }
            let cell = self.cell(slot).pointee
            if cell.isNull { return .null }
            switch kind {
            case .int: return .int(Int64(bitPattern: cell.bits))
            case .double: return .double(Double(bitPattern: cell.bits))
            case .bool: return .bool(cell.bits != 0)
            case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: cell.bits)))
            case .boxed: return Self.value(slot, in: base, offsets: offsets).pointee
            }
        }
        nonmutating set {
            precondition(slot >= 0 && slot < count, "slot \(slot) out of range")
            store(newValue, at: slot)
        }
    }

    /// Writes `value` into slot `slot`'s place (the setter without its range check, inlined into the
    /// loops that write every slot of an object).
    @inline(__always)
    func store(_ value: SlotValue, at slot: Int) {
        if kinds[slot] == ScalarKind.boxed.rawValue {
            Self.value(slot, in: base, offsets: offsets).pointee = value
            return
        }
        switch value {
        case .null: cell(slot).pointee = ScalarCell(bits: 0, isNull: true)
        case .int(let v): cell(slot).pointee = ScalarCell(bits: UInt64(bitPattern: v), isNull: false)
        case .double(let v): cell(slot).pointee = ScalarCell(bits: v.bitPattern, isNull: false)
        case .bool(let v): cell(slot).pointee = ScalarCell(bits: v ? 1 : 0, isNull: false)
        case .date(let v): cell(slot).pointee = ScalarCell(bits: v.timeIntervalSinceReferenceDate.bitPattern, isNull: false)
        default: preconditionFailure("ModelgenRuntime: \(value) does not fit a scalar slot")
        }
    }

    /// A copy of every slot (snapshots for undo and committed values).
    var array: [SlotValue] { (0..<count).map { self[$0] } }
}

extension StoreValue {
    /// The stored value of an attribute's slot (relationships and transformables are the context's
    /// to convert: they come out as null here).
    init(attribute value: SlotValue) {
        switch value {
        case .null, .object, .objects, .transformable: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .data(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .url(let v): self = .url(v)
        }
    }
}

extension SlotValue {
    /// The slot for a store value (relationship references are resolved by the context, not here).
    init(_ value: StoreValue) {
        switch value {
        case .null, .reference, .references: self = .null
        case .bool(let v): self = .bool(v)
        case .int(let v): self = .int(v)
        case .double(let v): self = .double(v)
        case .decimal(let v): self = .decimal(v)
        case .string(let v): self = .string(v)
        case .date(let v): self = .date(v)
        case .data(let v): self = .data(v)
        case .uuid(let v): self = .uuid(v)
        case .url(let v): self = .url(v)
        }
    }

    /// Converts a value given through `setValue(_:forKey:)` to the attribute's slot.
    init(any value: Any?, for attribute: AttributeDescription, key: String, entity: String) throws {
        guard let value else {
            self = .null
            return
        }
        func mismatch() -> RuntimeError { .typeMismatch(expected: "\(attribute.type.rawValue) for \(entity).\(key)", found: "\(type(of: value))") }
        switch attribute.type {
        case .string:
            if let v = value as? String { self = .string(v) } else if let r = value as? any RawRepresentable, let v = r.rawValue as? String { self = .string(v) } else { throw mismatch() }
        case .bool:
            guard let v = value as? Bool else { throw mismatch() }
            self = .bool(v)
        case .int16, .int32, .int64:
            let number: any BinaryInteger
            if let v = value as? any BinaryInteger { number = v }
            else if let r = value as? any RawRepresentable, let v = r.rawValue as? any BinaryInteger { number = v }
            else { throw mismatch() }
            guard let v = attribute.type.integerValue(exactly: number) else {
                throw RuntimeError.valueOutOfRange(entity: entity, key: key, value: "\(number)", type: attribute.type.rawValue)
            }
            self = .int(v)
        case .float, .double:
            if let v = value as? Double { self = .double(v) } else if let v = value as? Float { self = .double(Double(v)) } else if let v = value as? any BinaryInteger { self = .double(Double(v)) } else { throw mismatch() }
        case .decimal:
            if let v = value as? Decimal { self = .decimal(v) } else if let v = value as? any BinaryInteger { self = .decimal(Decimal(string: "\(v)")!) } else { throw mismatch() }
        case .date:
            guard let v = value as? Date else { throw mismatch() }
            self = .date(v)
        case .binary:
            guard let v = value as? Data else { throw mismatch() }
            self = .data(v)
        case .uuid:
            guard let v = value as? UUID else { throw mismatch() }
            self = .uuid(v)
        case .uri:
            guard let v = value as? URL else { throw mismatch() }
            self = .url(v)
        case .transformable:
            self = .transformable(TransformableBox(value))
        }
    }
}
