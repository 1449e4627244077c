/// A context's registry: its objects by ID, at most one per ID.
///
/// A hash table of its own instead of `[ObjectID: ManagedObject]`, because every fetched or inserted
/// object is registered once and every saved one is re-keyed, so at 100,000 objects the table's costs
/// are the fetch's and the save's:
/// - an entry is 16 bytes (the ID's key and the object, retained), where a dictionary entry holds the
///   whole `ObjectID` (24 bytes) beside the object, plus its own metadata;
/// - finding an ID compares keys stored in the table; the entity name is compared only when the keys
///   match (on the object's own ID), so a lookup that misses touches no object;
/// - `object(with:)` finds the place for a new fault and fills it in one probe, with no closure (a
///   dictionary's `subscript(_:default:)` retained the context around each one);
/// - growing moves 16-byte entries by their stored keys, without reading an object.
///
/// Open addressing with linear probing over a power-of-two table, and deletion by shifting later
/// entries back (no tombstones). Buckets come from `ObjectID`'s hash, which keeps runs of keys in
/// consecutive buckets. The table is at most half full (32 bytes per object at worst, a dictionary's
/// 32-byte entries at three quarters are 43): runs of keys make clusters, which a fuller table
/// would probe past.
final class ObjectRegistry {
    /// One bucket: the key of the object's ID, and the object (nil: empty).
    struct Entry {
        var key: Int64
        var object: Unmanaged<ManagedObject>?
    }

    // No access to these overlaps another (a lookup's `make` must not touch the registry), and dynamic
    // exclusivity checks around the `make` call cost a fetch of 100,000 objects about a millisecond.
    @exclusivity(unchecked) private var entries: UnsafeMutablePointer<Entry>
    @exclusivity(unchecked) private var mask: Int
    /// The number of objects registered.
    @exclusivity(unchecked) private(set) var count = 0
    /// The seed of the bucket hash.
    @exclusivity(unchecked) private var seed: Int
    /// The entity names of the IDs registered since the registry was last empty (some may have left
    /// since), the last one registered first: a merge skips the IDs of entities never registered.
    @exclusivity(unchecked) private var entityNames: [String] = []

    /// An empty registry with room for `minimumCapacity` objects before it grows.
    init(minimumCapacity: Int = 0) {
        var capacity = 8
        while capacity / 2 < minimumCapacity { capacity *= 2 }   // at most half full
        entries = Self.allocate(capacity)
        mask = capacity - 1
        // Per table, from its first storage's address: a table filled in another's bucket order (a save's
        // rebuild) then does not pile its entries into the same few runs.
        seed = Int(bitPattern: entries)
    }

    deinit { releaseEntries() }

    /// Lets go of every object and of the table.
    private func releaseEntries() {
        for index in 0...mask { entries[index].object?.release() }
        entries.deallocate()
    }

    private static func allocate(_ capacity: Int) -> UnsafeMutablePointer<Entry> {
        let entries = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        entries.initialize(repeating: Entry(key: 0, object: nil), count: capacity)
        return entries
    }

    @inline(__always) private func bucket(_ key: Int64) -> Int {
        let bits = UInt64(bitPattern: key)
        return (identityHash(bits >> 3, seed: seed) << 3 | Int(bits & 7)) & mask
    }

    /// Where `id` is, or the empty bucket where it would go.
    @inline(__always) private func probe(_ id: ObjectID) -> (index: Int, found: Bool) {
        var index = bucket(id.key)
        while let object = entries[index].object {
            if entries[index].key == id.key
                && object._withUnsafeGuaranteedRef({ $0.objectID.entityName == id.entityName }) {
                return (index, true)
            }
            index = (index + 1) & mask
        }
        return (index, false)
    }

    /// Whether an object of the entity `entityName` may be registered (false: none is).
    func mayHold(_ entityName: String) -> Bool { entityNames.contains(entityName) }

    /// Notes the entity of an ID being registered (one comparison when it is the last one's).
    @inline(__always) private func note(_ id: ObjectID) {
        if entityNames.first != id.entityName { noteNew(id.entityName) }
    }

    @inline(never) private func noteNew(_ entityName: String) {
        if let index = entityNames.firstIndex(of: entityName) { entityNames.remove(at: index) }
        entityNames.insert(entityName, at: 0)
    }

    /// The object registered under `id`.
    subscript(id: ObjectID) -> ManagedObject? {
        get {
            let (index, found) = probe(id)
            return found ? entries[index].object.unsafelyUnwrapped.takeUnretainedValue() : nil
        }
        set {
            if let newValue { insert(newValue, for: id) } else { removeValue(forKey: id) }
        }
    }

    /// Registers `object` under `id`, in place of any object registered under it.
    func insert(_ object: ManagedObject, for id: ObjectID) {
        growIfFull()
        let (index, found) = probe(id)
        let new = Unmanaged.passRetained(object)
        if found {
            entries[index].object.unsafelyUnwrapped.release()
        } else {
            note(id)
            count += 1
        }
        entries[index] = Entry(key: id.key, object: new)
    }

    /// Registers `object` under `key` without looking for an object already there: for entries taken
    /// from another registry, whose IDs are all different (no other object is read).
    func insertTaken(_ object: ManagedObject, key: Int64) {
        growIfFull()
        note(object.objectID)
        place(Entry(key: key, object: Unmanaged.passRetained(object)))
        count += 1
    }

    /// Puts an entry whose ID no other entry has into the first empty bucket of its probe.
    @inline(__always) private func place(_ entry: Entry) {
        var index = bucket(entry.key)
        while entries[index].object != nil { index = (index + 1) & mask }
        entries[index] = entry
    }

    /// The object registered under `id`, or the one `make` gives, registered under it (one probe for both).
    /// `make` must not touch the registry.
    @inline(__always)
    func object(for id: ObjectID, orMake make: (ObjectID) -> ManagedObject) -> ManagedObject {
        growIfFull()
        let (index, found) = probe(id)
        if found { return entries[index].object.unsafelyUnwrapped.takeUnretainedValue() }
        let object = make(id)
        entries[index] = Entry(key: id.key, object: Unmanaged.passRetained(object))
        note(id)
        count += 1
        return object
    }

    /// Unregisters the object under `id`.
    @discardableResult
    func removeValue(forKey id: ObjectID) -> ManagedObject? {
        let (index, found) = probe(id)
        guard found else { return nil }
        let removed = entries[index].object.unsafelyUnwrapped.takeRetainedValue()
        count -= 1
        // Shift back the entries after it whose probe passed through the emptied bucket.
        var hole = index
        var next = (index + 1) & mask
        while entries[next].object != nil {
            let home = bucket(entries[next].key)
            // The entry at `next` may move to `hole` when its home bucket is not in (hole, next].
            let distanceToNext = (next - home) & mask
            let distanceToHole = (hole - home) & mask
            if distanceToHole < distanceToNext {
                entries[hole] = entries[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        entries[hole] = Entry(key: 0, object: nil)
        return removed
    }

    /// Takes every entry of `other`, which is left empty; this registry's own entries leave (released).
    /// (The context keeps one registry for its lifetime, so that its code reads the reference without
    /// retaining it; a rebuild or a reset moves contents instead of replacing the registry.)
    func take(from other: ObjectRegistry) {
        swap(&entries, &other.entries)
        swap(&mask, &other.mask)
        swap(&count, &other.count)
        swap(&seed, &other.seed)
        swap(&entityNames, &other.entityNames)
        other.removeAll()
    }

    /// Unregisters every object.
    func removeAll() {
        releaseEntries()
        entries = Self.allocate(8)
        mask = 7
        count = 0
        entityNames = []
    }

    @inline(__always) private func growIfFull() {
        if (count + 1) * 2 > mask + 1 { resize(to: (mask + 1) * 2) }
    }

    /// Moves every entry into a table of `capacity` buckets (IDs are unique: no object is compared).
    private func resize(to capacity: Int) {
        let old = entries, oldCapacity = mask + 1
        entries = Self.allocate(capacity)
        mask = capacity - 1
        for position in 0..<oldCapacity where old[position].object != nil { place(old[position]) }
        old.deallocate()
    }

    /// Calls `body` with each object and the key of its ID (in no particular order). `body` must not
    /// change the registry.
    func forEach(_ body: (_ key: Int64, _ object: ManagedObject) throws -> Void) rethrows {
        for index in 0...mask {
            guard let object = entries[index].object else { continue }
            try object._withUnsafeGuaranteedRef { try body(entries[index].key, $0) }
        }
    }

    /// Takes every object out, calling `body` with each just before letting go of it (in no particular
    /// order): an object nothing else holds is freed while `body` has it in the cache, where a walk
    /// then a release took two trips through memory. `body` must not change the registry.
    func drain(_ body: (_ object: ManagedObject) -> Void) {
        for index in 0...mask {
            guard let object = entries[index].object else { continue }
            object._withUnsafeGuaranteedRef { body($0) }
            entries[index].object = nil
            object.release()
        }
        count = 0
        entityNames = []
    }

    /// The objects, in no particular order.
    var objects: [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(count)
        forEach { _, object in objects.append(object) }
        return objects
    }
}
