/// The IDs of one batch of a fetch with a batch size.
extension ManagedObjectContext {
    /// Objects matching a request, loaded a batch at a time as they are reached, with at most one
    /// batch of them held at once: iterating a million rows keeps memory bounded. Only the IDs of
    /// the matching records (8 bytes each) are read up front; reaching an object of another batch
    /// loads that batch's rows with one query (`awakeFromFetch` then) and lets go of the previous
    /// batch's objects that have no unsaved changes and that nothing else holds (they turn into
    /// faults, `didTurnIntoFault`, and leave the context; fetching them again makes new objects).
    /// Objects you keep, objects with changes and objects another object refers to stay
    /// registered. Unsaved changes of the context are reflected as in `fetch(_:)`.
    ///
    /// ```swift
    /// for post in try context.fetch(Post.fetchRequest(), batchSize: 1_000) { total += post.likes }
    /// ```
    /// A store error while loading a batch stops the program (a subscript cannot throw): load with
    /// `fetch(_:)` where a failing store must be handled.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>, batchSize: Int) throws -> FetchResultsCollection<Result> {
        precondition(batchSize > 0, "batchSize must be positive")
        return FetchResultsCollection(loader: BatchLoader(context: self, ids: try matchingIDs(request.resolved(for: model)), batchSize: batchSize))
    }

    /// The IDs of a request's results: asked of the store when it can answer and the context has no
    /// unsaved changes of these entities; otherwise from the objects a fetch of faults returns.
    func matchingIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> ObjectIDList {
        let entities = try requestEntities(request)
        if pendingObjects(of: entities).isEmpty, let query = try storeQuery(request, entities: entities, window: true),
           let ids = try queryingStore?.fetchIDs(query) {
            return ids
        }
        var faults = request
        faults.resultType = .faults
        faults.fetchBatchSize = 0
        return ObjectIDList(try fetch(faults).lazy.map(\.objectID))
    }

    /// The objects of a fetch with `fetchBatchSize`: faults (where not loaded yet) grouped in batches;
    /// the first fault of a batch to fire loads the rows of all of it with one query.
    func batchedFaults<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        let ids = try matchingIDs(request)
        var objects: [Result] = []
        objects.reserveCapacity(ids.count)
        var pending: [ObjectID] = []
        func closeBatch() {
            let batch = FaultLoader.FaultBatch(ids: pending)
            for id in pending { faults.batches[id] = batch }
            pending.removeAll(keepingCapacity: true)
        }
        for id in ids {
            let object = self.object(with: id)
            guard let typed = object as? Result else {
                throw RuntimeError.typeMismatch(expected: "\(Result.self)", found: "\(type(of: object))")
            }
            objects.append(typed)
            if object._isFault && faults.rowCache[id] == nil {
                pending.append(id)
                if pending.count == request.fetchBatchSize { closeBatch() }
            }
        }
        if !pending.isEmpty { closeBatch() }
        return objects
    }

    /// Loads the faults among `objects` with one store call (a row already cached is used as it is),
    /// then runs their `awakeFromFetch`, in order; throws `objectNotFound` for a record that is gone.
    /// The rows go straight into their objects (found by the registry), not through the row cache.
    func fulfillFaults(_ objects: [ManagedObject]) throws {
        var loaded: [ManagedObject] = []
        defer { awakeFromFetch(loaded) }   // also when a row fails: what was loaded is awake
        var missing: [ObjectID] = []
        for object in objects where object._isFault {
            // A fault let go of (no longer registered) loads alone, as it would when first used.
            guard object._isRegistered, object._context === self else { try fulfillFault(object); continue }
            if !faults.batches.isEmpty { faults.batches[object.objectID] = nil }
            if !faults.rowCache.isEmpty, let row = faults.rowCache.removeValue(forKey: object.objectID) {
                try loadFetched(row, intoFault: object)
                loaded.append(object)
            } else {
                missing.append(object.objectID)
            }
        }
        guard !missing.isEmpty else { return }
        let rows = try faultRows(missing)
        for row in rows {
            // A registered fault is the one object of its ID in this context.
            guard let object = registered[row.id], object._isFault else { continue }
            try loadFetched(row, intoFault: object)
            loaded.append(object)
        }
        if rows.count < missing.count, let gone = objects.first(where: \._isFault) {
            throw RuntimeError.objectNotFound(gone.objectID)
        }
    }

    /// Reads the rows of those of `ids` that are registered faults without a cached row, in one store call.
    func loadRows(of ids: [ObjectID]) throws {
        let missing = ids.filter { id in
            faults.batches[id] = nil
            guard let object = registered[id] else { return false }
            return object._isFault && faults.rowCache[id] == nil
        }
        guard !missing.isEmpty else { return }
        for row in try faultRows(missing) { faults.rowCache[row.id] = row }
    }

    /// The rows of faults to load, with one store call. To-many relationships the rows leave out load
    /// when first used (`loadFetched(_:intoFault:)`), except those of entities that cannot wait for
    /// them: read now, one query per relationship.
    private func faultRows(_ ids: [ObjectID]) throws -> [StoreRow] {
        var rows = try store.rows(for: ids)
        try fillToMany(&rows, only: { $0.lazyToManyMask == 0 })
        return rows
    }

    /// Lets go of an object a batch no longer needs, when it has no unsaved changes and nothing but the
    /// context holds it: it turns into a fault and leaves the context.
    func releaseIfUnused(_ object: inout ManagedObject) {
        guard object._context === self, object._isRegistered, !object._isInserted, !object._isUpdated, !object._isDeleted,
              registered[object.objectID] === object else { return }
        registered.removeValue(forKey: object.objectID)
        if isKnownUniquelyReferenced(&object) {
            faults.rowCache[object.objectID] = nil
            faults.batches[object.objectID] = nil
            object.turnIntoFault()
            object._isRegistered = false
            object._context = nil
        } else {
            registered[object.objectID] = object
        }
    }
}
