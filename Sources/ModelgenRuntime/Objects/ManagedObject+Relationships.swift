/// Relationship accessors for generated code. Every tracked change keeps the
/// inverse relationship in step on the other objects (to-one, one-to-many,
/// many-to-many, ordered, and relationships that are their own inverse).
extension ManagedObject {
    /// The object of a to-one relationship.
    @_spi(Generated)
    public final func relatedObject<T: ManagedObject>(at slot: Int) -> T? {
        if _isFault { _fireFault(reading: slot) }
        observeAccess(slot: slot)
        guard case .object(let object) = _slots[slot] else { return nil }
        return (object as! T)
    }

    /// The objects of a to-many relationship, in order (ordered relationships) or insertion order.
    @_spi(Generated)
    public final func relatedObjects<T: ManagedObject>(at slot: Int) -> [T] {
        fireFaultIfNeeded(loading: slot)
        observeAccess(slot: slot)
        guard case .objects(let list) = _slots[slot] else { return [] }
        let objects = list.objects
        guard objects.allSatisfy({ type(of: $0) == T.self || $0 is T }) else { return objects.map { $0 as! T } }
        return ManagedObject.references(objects, as: T.self)
    }

    /// `objects` as a `[T]` (each one a `T`, which the caller checked): the references copied into a
    /// new array and retained, without a generic call per element.
    static func references<T: ManagedObject>(_ objects: [ManagedObject], as type: T.Type) -> [T] {
        let count = objects.count
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            objects.withUnsafeBufferPointer { source in
                for object in source { _ = Unmanaged.passUnretained(object).retain() }
                // A class reference is one pointer whatever its class: the new array holds the same ones.
                if let from = source.baseAddress, let to = buffer.baseAddress {
                    UnsafeMutableRawPointer(to).copyMemory(from: from, byteCount: count * MemoryLayout<ManagedObject>.stride)
                }
            }
            initialized = count
        }
    }

    /// The objects of an unordered to-many relationship as a set.
    @_spi(Generated)
    public final func relatedSet<T: ManagedObject>(at slot: Int) -> Set<T> {
        Set(relatedObjects(at: slot) as [T])
    }

    /// The number of objects in a to-many relationship.
    @_spi(Generated)
    public final func relatedCount(at slot: Int) -> Int {
        fireFaultIfNeeded(loading: slot)
        observeAccess(slot: slot)
        guard case .objects(let list) = _slots[slot] else { return 0 }
        return list.count
    }

    /// Sets a to-one relationship; the inverse follows.
    @_spi(Generated)
    public final func setRelatedObject(_ object: ManagedObject?, at slot: Int) {
        fireFaultIfNeeded()
        let old: ManagedObject?
        if case .object(let current) = _slots[slot] { old = current } else { old = nil }
        if old === object { return }
        _willWrite()
        notifyingChange(of: slot) { _slots[slot] = object.map(SlotValue.object) ?? .null }
        guard let inverseSlot = entity.destination(ofSlot: slot).inverseSlot else { return }
        if let old { old.unlinkInverse(inverseSlot, from: self) }
        if let object { object.linkInverse(inverseSlot, to: self) }
    }

    /// Replaces the objects of a to-many relationship; inverses follow.
    @_spi(Generated)
    public final func setRelatedObjects(_ objects: [ManagedObject], at slot: Int) {
        let current: [ManagedObject] = relatedObjects(at: slot)
        let incoming = Set(objects.map(ObjectIdentifier.init))
        for object in current where !incoming.contains(ObjectIdentifier(object)) {
            removeRelatedObject(object, at: slot)
        }
        for object in objects { addRelatedObject(object, at: slot) }
        // Ordered relationships take the given order.
        if case .relationship(let r) = entity.properties[slot], r.isOrdered {
            _willWrite()
            storeSlot(slot, .objects(ObjectList(objects)))
        }
    }

    /// Replaces the objects of an unordered to-many relationship with a set; inverses follow.
    /// The set's objects are applied in object-ID order, so the result never depends on hashing.
    @_spi(Generated)
    public final func setRelatedSet<T: ManagedObject>(_ objects: Set<T>, at slot: Int) {
        setRelatedObjects(objects.sorted { $0.objectID.key < $1.objectID.key }, at: slot)
    }

    /// Adds an object to a to-many relationship (at the end, or at `index` for ordered ones); the inverse follows.
    @_spi(Generated)
    public final func addRelatedObject(_ object: ManagedObject, at slot: Int, index: Int? = nil) {
        fireFaultIfNeeded(loading: slot)
        guard case .objects(var list) = _slots[slot], !list.contains(object) else { return }
        _willWrite()
        notifyingChange(of: slot) {
            _slots[slot] = .null // keep the list uniquely referenced while it changes
            if let index { list.insert(object, at: index) } else { list.append(object) }
            _slots[slot] = .objects(list)
        }
        if let inverseSlot = entity.destination(ofSlot: slot).inverseSlot {
            object.linkInverse(inverseSlot, to: self)
        }
    }

    /// Removes an object from a to-many relationship; the inverse follows.
    @_spi(Generated)
    public final func removeRelatedObject(_ object: ManagedObject, at slot: Int) {
        fireFaultIfNeeded(loading: slot)
        guard case .objects(var list) = _slots[slot], list.contains(object) else { return }
        _willWrite()
        notifyingChange(of: slot) {
            _slots[slot] = .null
            list.remove(object)
            _slots[slot] = .objects(list)
        }
        if let inverseSlot = entity.destination(ofSlot: slot).inverseSlot {
            object.unlinkInverse(inverseSlot, from: self)
        }
    }

    /// Makes `owner` appear in this object's relationship at `slot` (the inverse side of a change).
    final func linkInverse(_ slot: Int, to owner: ManagedObject) {
        fireFaultIfNeeded(loading: slot)
        switch _slots[slot] {
        case .objects(var list):
            guard !list.contains(owner) else { return }
            _willWrite()
            notifyingChange(of: slot) {
                _slots[slot] = .null
                list.append(owner)
                _slots[slot] = .objects(list)
            }
        default:
            // To-one: this object leaves its previous partner, whose side must forget it.
            let previous: ManagedObject?
            if case .object(let p) = _slots[slot] { previous = p } else { previous = nil }
            if previous === owner { return }
            _willWrite()
            notifyingChange(of: slot) { _slots[slot] = .object(owner) }
            if let previous, let backSlot = entity.destination(ofSlot: slot).inverseSlot {
                previous.unlinkRaw(backSlot, from: self)
            }
        }
    }

    /// Removes `owner` from this object's relationship at `slot` (the inverse side of a change).
    final func unlinkInverse(_ slot: Int, from owner: ManagedObject) {
        unlinkRaw(slot, from: owner)
    }

    /// Removes `other` from a relationship slot, tracked, without touching further inverses.
    final func unlinkRaw(_ slot: Int, from other: ManagedObject) {
        fireFaultIfNeeded(loading: slot)
        switch _slots[slot] {
        case .objects(var list):
            guard list.contains(other) else { return }
            _willWrite()
            notifyingChange(of: slot) {
                _slots[slot] = .null
                list.remove(other)
                _slots[slot] = .objects(list)
            }
        case .object(let current) where current === other:
            _willWrite()
            notifyingChange(of: slot) { _slots[slot] = .null }
        default:
            break
        }
    }

    /// Every object a relationship slot holds.
    final func objects(inSlot slot: Int) -> [ManagedObject] {
        if _pendingToMany != 0 { loadPendingToMany(slot) }   // a fault stays one (its slots are empty)
        return _slots[slot].relatedObjects
    }
}
