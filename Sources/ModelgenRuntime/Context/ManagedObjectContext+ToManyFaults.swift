/// To-many relationships loaded when first used, a batch of objects at a time (Core Data's batch
/// faulting). A fetched object's to-many slots start as empty lists with a pending bit; the first read or
/// change of one loads that relationship for the object and for up to `toManyFaultBatchSize` other
/// objects of its entity in this context still waiting for it, with one store call. A loop over fetched
/// objects that touches a to-many relationship therefore costs one query per batch, not one per object,
/// and a fetch never pays for relationships nobody reads (a writer's thousands of books).
extension ManagedObjectContext {
    /// How many objects one to-many fault loads at most (the one that fired and those waiting after it).
    static let toManyFaultBatchSize = 1_000

    /// Loads a row into a fault as a fetch does: to-many relationships the row left out are marked pending
    /// (loaded on first use), or, for an entity with stored to-many slots past 31, read now.
    /// With `plainLoaded`, the object's plain stored attributes are in its slots already (the store wrote
    /// them there; the row's values of them are not to be read). `listed`: the to-many slots (a mask)
    /// whose members the fetch asked to come in its rows (`StoreQuery.toManySlotsWithRows`), loaded
    /// with the object where the row holds them.
    func loadFetched(_ row: StoreRow, intoFault object: ManagedObject, plainLoaded: Bool = false, listed: UInt32 = 0) throws {
        let entity = object.entity
        guard !row.hasToManyValues, entity.hasToManyRelationships else { return try load(row, intoFault: object, plainLoaded: plainLoaded) }
        guard entity.lazyToManyMask != 0 else {
            var rows = [row]
            try fillToMany(&rows)
            return try load(rows[0], intoFault: object, plainLoaded: plainLoaded)
        }
        try load(row, intoFault: object, plainLoaded: plainLoaded)
        let pending = listed == 0 ? entity.lazyToManyMask : entity.lazyToManyMask & ~toManyHeld(in: row, among: entity.lazyToManyMask & listed)
        object._pendingToMany = pending
        if pending != 0 { faults.pendingQueue(for: entity).keys.append(object.objectID.key) }
    }

    /// The to-many relationships among `pending` (a mask of slots) whose members `row` holds
    /// (`StoreQuery.toManySlotsWithRows`).
    private func toManyHeld(in row: StoreRow, among pending: UInt32) -> UInt32 {
        var held: UInt32 = 0, unread = pending
        while unread != 0 {
            let slot = unread.trailingZeroBitCount
            let bit = UInt32(1) << UInt32(slot)
            unread &= ~bit
            if slot < row.values.count, case .references = row.values[slot] { held |= bit }
        }
        return held
    }

    /// Loads the pending to-many relationship at `slot` of `object` and of the objects of its entity
    /// waiting for the same relationship, up to a batch, with one store call.
    func loadPendingToMany(of object: ManagedObject, slot: Int) throws {
        let bit = UInt32(1) << UInt32(slot)
        var batch = [object]
        let name = object.entity.name
        if let queue = faults.pendingToMany[name] {
            var head = queue.heads[slot] ?? 0
            var seen: Set<ObjectIdentifier> = [ObjectIdentifier(object)]
            while head < queue.keys.count && batch.count < Self.toManyFaultBatchSize {
                let key = queue.keys[head]
                head += 1
                guard let other = registered[ObjectID(entityName: name, key: key)], other._pendingToMany & bit != 0,
                      seen.insert(ObjectIdentifier(other)).inserted else { continue }
                batch.append(other)
            }
            queue.heads[slot] = head
            // Every relationship's batches are past the start: drop what all have read.
            // (Checked only for a long list: the fault path stays a few comparisons.)
            if queue.keys.count > 4_096, let read = object.entity.lazyToManyMaskSlots.map({ queue.heads[$0] ?? 0 }).min(), read > 4_096, read * 2 > queue.keys.count {
                queue.keys.removeFirst(read)
                for (slot, position) in queue.heads { queue.heads[slot] = position - read }
            }
        }
        try loadToMany(batch, slot: slot)
    }

    /// Loads the to-many relationship at `slot` of those of `objects` that have it pending: one store call
    /// per entity, whatever the number of objects (prefetching, and a fault's batch). With `loadingMembers`
    /// (prefetching), members still faults are loaded too, from rows the store read in the same
    /// statement when it can (else they stay faults for the caller to load).
    func loadToMany(_ objects: [ManagedObject], slot: Int, loadingMembers: Bool = false) throws {
        guard slot < 32 else { return }
        let bit = UInt32(1) << UInt32(slot)
        var byEntity: [String: [ManagedObject]] = [:]
        var run: (entity: EntityDescription, objects: [ManagedObject])?   // objects of one entity come in runs
        for object in objects where object._pendingToMany & bit != 0 {
            if let current = run?.entity, current === object.entity {
                run!.objects.append(object)
                continue
            }
            if let finished = run { byEntity[finished.entity.name, default: []] += finished.objects }
            run = (object.entity, [object])
        }
        if let finished = run { byEntity[finished.entity.name, default: []] += finished.objects }
        for (_, pending) in byEntity.sorted(by: { $0.key < $1.key }) {
            let ids = pending.map(\.objectID)
            if loadingMembers, let direct = store as? any DirectLoadingStore {
                // The store hands each link over as it reads it: the lists of objects are built here.
                // Each member's fault is loaded from its row as it comes (its plain attributes written
                // straight into its slots), as a fetch loads its results; `awakeFromFetch` runs once the
                // store is done.
                var lists = OwnerLists<ManagedObject>(ids)
                var loaded: [ManagedObject] = []
                let answered: Bool
                do {
                    defer { awakeFromFetch(loaded) }   // also when a row fails: what was loaded is awake
                    answered = try direct.forEachMember(of: ids, relationship: slot, objects: directLoadTarget) { ownerKey, id, row, object, plainLoaded in
                        let object = object ?? self.object(with: id)
                        lists.add(object, toOwnerKey: ownerKey)
                        if let row, try loadFetchedMember(row, into: object, plainLoaded: plainLoaded) { loaded.append(object) }
                    }
                }
                if answered {
                    for object in pending where object._pendingToMany & bit != 0 {
                        setLoadedToMany(.objects(ObjectList(lists.list(ofOwnerKey: object.objectID.key))), of: object, slot: slot, bit: bit)
                    }
                    continue
                }
            }
            var memberRows: [StoreRow]?
            let members: [ObjectID: [ObjectID]]
            if loadingMembers {
                (members, memberRows) = try queryingStore?.toManyMembersWithRows(of: ids, relationship: slot) ?? (store.toManyIDs(of: ids, relationship: slot), nil)
            } else {
                members = ids.count == 1 ? [ids[0]: try store.toManyIDs(of: ids[0], relationship: slot)]
                    : try store.toManyIDs(of: ids, relationship: slot)
            }
            for object in pending where object._pendingToMany & bit != 0 {
                setLoadedToMany(.objects(ObjectList((members[object.objectID] ?? []).map { self.object(with: $0) })), of: object, slot: slot, bit: bit)
            }
            if let memberRows { try loadFaults(from: memberRows) }
        }
    }

    /// Gives `object` its loaded to-many relationship at `slot` (its bit in `_pendingToMany`).
    private func setLoadedToMany(_ list: SlotValue, of object: ManagedObject, slot: Int, bit: UInt32) {
        object._slots[slot] = list
        if object.committedSlots != nil { object.committedSlots![slot] = list }
        object._pendingToMany &= ~bit
    }

    /// Loads the registered faults `rows` are the rows of, then runs their `awakeFromFetch`. An entity
    /// whose to-many relationships cannot wait for their first use stays a fault here (its rows lack
    /// them): `fulfillFaults` loads it with them.
    private func loadFaults(from rows: [StoreRow]) throws {
        var loaded: [ManagedObject] = []
        defer { awakeFromFetch(loaded) }   // also when a row fails: what was loaded is awake
        for row in rows {
            if let object = registered[row.id], try loadFetchedMember(row, into: object) { loaded.append(object) }
        }
    }

    /// The registered object (a new fault if none) for the record SQLite is about to decode, and whether
    /// the statement may write the record's plain attributes straight into its slots: what a fetch and a
    /// prefetch ask before each row (`DirectLoadingStore`'s `objects`).
    func directLoadTarget(for id: ObjectID) -> (object: ManagedObject, loadsHere: Bool) {
        let object = self.object(with: id)
        return (object, object._isFault && object.entity.loadsPlainAttributesDirectly)
    }

    /// Loads `object` from `row` (a row a prefetch read with it) if it is still a fault that `row` can
    /// load (see `loadFaults(from:)`); whether it did. `plainLoaded`: the row's plain attributes are in
    /// the object's slots already.
    private func loadFetchedMember(_ row: StoreRow, into object: ManagedObject, plainLoaded: Bool = false) throws -> Bool {
        guard object._isFault, !object.entity.needsToManyValues(beyond: row) else { return false }
        if !faults.batches.isEmpty { faults.batches[row.id] = nil }
        if !faults.rowCache.isEmpty { faults.rowCache[row.id] = nil }
        try loadFetched(row, intoFault: object, plainLoaded: plainLoaded)
        return true
    }
}

extension EntityDescription {
    /// Whether a fetch may write this entity's plain stored attributes straight into a fault's slots
    /// before the rest of its row is loaded: no value of the row can be refused (`needsCheckedLoad`), and
    /// its to-many relationships can wait for their first use.
    var loadsPlainAttributesDirectly: Bool {
        !needsCheckedLoad && !(hasToManyRelationships && lazyToManyMask == 0)
    }

    /// Whether an object of this entity cannot be loaded from `row` alone: the row leaves its to-many
    /// relationships out, and they cannot wait for their first use (slots past 31).
    func needsToManyValues(beyond row: StoreRow) -> Bool {
        !row.hasToManyValues && hasToManyRelationships && lazyToManyMask == 0
    }

    /// The to-many relationships that wait for their first use (`lazyToManyMask`) which `paths`
    /// (prefetched key paths, `authors.mentor`) start with: what a fetch asks a store to read with its rows.
    func lazyToManySlots(startingPaths paths: [String]) -> [Int] {
        var slots: [Int] = []
        for path in paths {
            guard let slot = slotsByName[String(path.prefix { $0 != "." })], slot < 32, lazyToManyMask & (1 << UInt32(slot)) != 0,
                  !slots.contains(slot) else { continue }
            slots.append(slot)
        }
        return slots
    }

    /// The slots of `lazyToManyMask`.
    var lazyToManyMaskSlots: [Int] {
        (0..<32).filter { lazyToManyMask & (1 << UInt32($0)) != 0 }
    }
}
