import ModelgenPredicate

extension ManagedObjectContext {
    /// Objects matching a request. Unsaved inserts appear, unsaved deletes do not, and
    /// unsaved changes are what the predicate and sorting see. A store that runs queries itself
    /// (SQLite) filters, sorts and limits; objects the context changed are evaluated here.
    /// Rows come with the query. With result type `.objects` (the default) the objects are loaded
    /// before `fetch` returns, so a stored value the model refuses is an error thrown here; with
    /// `.faults` objects not loaded before stay faults and fire on first property access
    /// (`awakeFromFetch` then) from the rows fetched, without another query.
    ///
    /// With `fetchBatchSize` set, only the IDs are read: objects not loaded before come back as faults,
    /// and the first of a batch to fire loads the rows of its whole batch with one query (rows the
    /// model refuses are then an error where the fault fires). To iterate more results than fit in
    /// memory, use `fetch(_:batchSize:)`, which holds one batch of objects at a time.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        checkIsolation()
        let request = try request.resolved(for: model)
        if request.fetchBatchSize > 0 { return try batchedFaults(request) }
        let entities = try requestEntities(request)
        if request.propertiesToFetch != nil, let partial = try partialObjects(request, entities: entities) { return partial }
        // Every result is an instance of one of these entities' classes (objects are only ever created
        // from `entity.managedClass`): when each is a `Result`, no object needs a checked cast.
        let allResults = entities.allSatisfy { $0.managedClass is Result.Type }
        let result: ArraySlice<ManagedObject>
        switch try storeFetch(request, entities: entities, typed: allResults) {
        case .typed(let typed)?:
            // Loaded as the store read them (one array of results, no second pass).
            if !request.relationshipKeyPathsForPrefetching.isEmpty {
                try prefetch(request.relationshipKeyPathsForPrefetching, from: typed)
            }
            return typed
        case .objects(let fromStore)?:
            result = fromStore
        case nil:
            let sorted = try sort(try matchingObjects(request, entities: entities), by: request.sortDescriptors)
            result = window(sorted, request)
        }
        if request.resultType == .objects {
            for object in result { try object.loadIfFault() }
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, from: Array(result))
        }
        if allResults {
            return result.map { object in
                assert(object is Result)
                return unsafeDowncast(object, to: Result.self)
            }
        }
        return result.map { $0 as! Result }
    }

    /// The number of objects a request would return.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        let request = try request.resolved(for: model)
        let entities = try requestEntities(request)
        if pendingObjects(of: entities).isEmpty, let query = try storeQuery(request, entities: entities, window: true),
           let count = try queryingStore?.count(query) {
            return count
        }
        if case .objects(let fromStore)? = try storeFetch(request, entities: entities, typed: false) { return fromStore.count }
        var count = try matchingObjects(request, entities: entities).count - max(0, request.fetchOffset)
        count = max(0, count)
        if let limit = request.fetchLimit, limit > 0 { count = min(count, limit) }
        return count
    }

    /// The IDs of the objects a request would return.
    public func fetchIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [ObjectID] {
        Array(try matchingIDs(request.resolved(for: model)))
    }

    /// How the store would run a fetch request: `.sql` with its database's query plan, one line a step
    /// (SQLite's `EXPLAIN QUERY PLAN`: `SEARCH Item USING INDEX Item.index(sku) (sku=?)`; PostgreSQL's
    /// `EXPLAIN`), or `.inMemory` with the reason the context evaluates it on objects instead (the
    /// in-memory store; a predicate or variable the store cannot translate). For checking that a fetch
    /// is pushed down and uses the model's indexes.
    public func queryPlan<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> QueryPlan {
        let request = try request.resolved(for: model)
        let entities = try requestEntities(request)
        guard let query = try storeQuery(request, entities: entities, window: true) else {
            return .inMemory(reason: "a variable holds a value the store cannot bind")
        }
        return try queryingStore?.queryPlan(query) ?? .inMemory(reason: "\(type(of: store)) runs no queries: the context evaluates fetches on objects")
    }

    /// Fills in the to-many relationships that rows from a store left out (`hasToManyValues` false),
    /// with one store call per entity and relationship for all the rows: loading a list of objects costs
    /// a constant number of queries per relationship, not one per object.
    func fillToMany(_ rows: inout [StoreRow], only include: (EntityDescription) -> Bool = { _ in true }) throws {
        var byEntity: [String: [Int]] = [:]
        // Rows of one entity come in runs: each run's entity is looked up (and left out) once.
        var run: (name: String, wanted: Bool)?
        for index in rows.indices where !rows[index].hasToManyValues {
            let name = rows[index].id.entityName
            if run?.name != name {
                run = (name, model.entity(named: name).map { $0.hasToManyRelationships && include($0) } ?? false)
            }
            if run.unsafelyUnwrapped.wanted { byEntity[name, default: []].append(index) }
        }
        for (name, indexes) in byEntity {
            guard let entity = model.entity(named: name) else { continue }
            let ids = indexes.map { rows[$0].id }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, r.isToMany, !r.isTransient else { continue }
                // One record (a fault firing alone) asks the store's one-record form.
                let members = ids.count == 1 ? [ids[0]: try store.toManyIDs(of: ids[0], relationship: slot)]
                    : try store.toManyIDs(of: ids, relationship: slot)
                for index in indexes where slot < rows[index].values.count {
                    rows[index].values[slot] = .references(members[rows[index].id] ?? [])
                }
            }
            for index in indexes { rows[index].hasToManyValues = true }
        }
    }

    /// Loads the objects `paths` reach from `objects` (dotted relationship names, `authors.mentor`),
    /// step by step: at each step the related objects still faults are read with one query (and their
    /// to-many relationships with one per relationship), whatever the number of objects.
    func prefetch(_ paths: [String], from objects: [ManagedObject]) throws {
        for path in paths {
            var level = objects
            for step in path.split(separator: ".").map(String.init) {
                var next: [ManagedObject] = []
                var seen: Set<ObjectKey> = []
                var slots: [Int] = []
                slots.reserveCapacity(level.count)
                var last: (entity: EntityDescription, slot: Int)?
                for object in level {
                    let slot: Int
                    if let last, last.entity === object.entity {
                        slot = last.slot
                    } else {
                        guard let found = object.entity.slotsByName[step], case .relationship = object.entity.properties[found] else {
                            throw RuntimeError.unknownKey(entity: object.entity.name, key: "\(step) (prefetching \(path): not a relationship)")
                        }
                        slot = found
                        last = (object.entity, slot)
                    }
                    // A partial object keeps what it loaded: its pending to-many relationships load below.
                    if !object.hasLoaded(slot) { try object.loadIfFault() }
                    slots.append(slot)
                }
                // A to-many step: the relationship of every object at this level in one query per entity.
                for slot in Set(slots) { try loadToMany(level, slot: slot, loadingMembers: true) }
                for (object, slot) in zip(level, slots) {
                    for target in object._slots[slot].relatedObjects where seen.insert(ObjectKey(target)).inserted {
                        next.append(target)
                    }
                }
                try fulfillFaults(next)
                level = next
            }
        }
    }

    func requestEntities<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [EntityDescription] {
        let entity: EntityDescription
        if request.entityName.isEmpty {
            guard let byClass = model.entity(for: Result.self) else { throw RuntimeError.unknownEntity("\(Result.self) is not the class of an entity of model '\(model.name)'") }
            entity = byClass
        } else {
            guard let byName = model.entity(named: request.entityName) else { throw RuntimeError.unknownEntity(request.entityName) }
            entity = byName
        }
        return request.includesSubentities ? entity.selfAndDescendants : [entity]
    }

    /// Inserted, changed and deleted objects of these entities.
    func pendingObjects(of entities: [EntityDescription]) -> [ManagedObject] {
        let names = Set(entities.map(\.name))
        return (inserted.objects + updated.objects + deleted.objects).filter { names.contains($0.entity.name) }
    }

    /// The request as a store query, or nil when a variable holds what a store cannot compare.
    func storeQuery<Result: ManagedObject>(_ request: FetchRequest<Result>, entities: [EntityDescription], window: Bool) throws -> StoreQuery? {
        var variables: [String: QueryValue] = [:]
        for (name, value) in request.variables {
            guard let converted = EvaluatedValue(any: value).queryValue else { return nil }
            variables[name] = converted
        }
        return StoreQuery(entityNames: entities.map(\.name), entityName: entities[0].name, predicate: request.predicate?.predicate,
                          variables: variables, sortDescriptors: request.sortDescriptors,
                          fetchLimit: window ? request.fetchLimit : nil, fetchOffset: window ? request.fetchOffset : 0)
    }

    /// What the store answered: the results as `Result`s, loaded as the rows came (a request the
    /// store answers whole), or objects merged with the context's unsaved changes.
    private enum StoreAnswer<Result> {
        case typed([Result])
        case objects(ArraySlice<ManagedObject>)
    }

    /// The request run by the store, merged with this context's unsaved changes; nil when the store
    /// cannot run it. With `typed` (the caller has checked that every entity's class is a `Result`),
    /// a request for objects that no pending change takes part in is answered as `Result`s.
    private func storeFetch<Result: ManagedObject>(_ request: FetchRequest<Result>, entities: [EntityDescription], typed: Bool) throws -> StoreAnswer<Result>? {
        let pending = pendingObjects(of: entities)
        guard var query = try storeQuery(request, entities: entities, window: pending.isEmpty) else { return nil }
        // Prefetched lists in the rows, unless the context holds objects of these entities already (their
        // lists mostly loaded: the rows would carry them for nothing).
        if !request.relationshipKeyPathsForPrefetching.isEmpty, request.resultType == .objects, !entities.contains(where: { registered.mayHold($0.name) }) {
            query.toManySlotsWithRows = entities[0].lazyToManySlots(startingPaths: request.relationshipKeyPathsForPrefetching)
        }
        guard var objects = try storeRows(query, loadNow: request.resultType == .objects,
                                          awakes: entities.contains { $0.awakesFromFetch }) else { return nil }
        if typed && pending.isEmpty && request.resultType == .objects {
            // Every entity's class is a `Result` (the caller checked).
            return .typed(ManagedObject.references(objects, as: Result.self))
        }
        if pending.isEmpty { return .objects(objects[...]) }
        // Changed objects are judged on their unsaved values; deleted ones leave; inserted ones join.
        let changed = ObjectList(pending)
        objects.removeAll { changed.contains($0) }
        var candidates = pending.filter { !$0._isDeleted }
        if let predicate = request.predicate?.predicate {
            let evaluator = PredicateEvaluator(variables: request.variables.mapValues { EvaluatedValue(any: $0) })
            candidates = try candidates.filter { try evaluator.evaluate(predicate, on: $0) }
        }
        return .objects(window(try sort(objects + candidates, by: request.sortDescriptors), request))
    }

    /// Runs a store query: each row's registered object, in order; nil when the store cannot answer it.
    private func storeRows(_ query: StoreQuery, loadNow: Bool, awakes: Bool) throws -> [ManagedObject]? {
        // Faults are loaded from their rows as the store reads them for `.objects`, or keep their rows
        // for their first firing. The store must not be called while it streams rows: `awakeFromFetch`
        // (user code) runs once every row is read.
        var objects: [ManagedObject] = []
        // What `awakeFromFetch` skips: the positions in `objects` this fetch did not load (ascending),
        // so the usual fetch, which loads every row, keeps no second list of 100,000 objects.
        var notLoaded: [Int] = []
        var needingStore: [(ManagedObject, StoreRow)] = []
        var loadedLater: [ManagedObject] = []
        let listed = query.toManySlotsWithRows.reduce(UInt32(0)) { $0 | 1 << UInt32($1) }
        do {
            defer {   // also when a row fails: what was loaded is awake
                // (Unless no entity of the fetch can have an `awakeFromFetch` of its own: then the 100,000
                // objects of a large fetch of generated classes are not walked a second time for nothing.)
                if awakes { awakeFromFetch(objects, skipping: notLoaded) }
                awakeFromFetch(loadedLater)
            }
            func take(_ row: StoreRow, _ object: consuming ManagedObject, plainLoaded: Bool) throws {
                if !object._isFault {
                    notLoaded.append(objects.count)
                } else if !loadNow {
                    faults.rowCache[row.id] = row
                    notLoaded.append(objects.count)
                } else if object.entity.needsToManyValues(beyond: row) {
                    needingStore.append((object, row))
                    notLoaded.append(objects.count)
                } else {
                    // To-many relationships the row leaves out load when first used, in batches.
                    try loadFetched(row, intoFault: object, plainLoaded: plainLoaded, listed: listed)
                }
                objects.append(object)   // the object's +1 moves into the array
            }
            let answered: Bool
            if loadNow, let direct = store as? any DirectLoadingStore {
                // The store writes a fault's plain attributes from its statement straight into the slots
                // (asked for the object before it decodes the row); the rest loads from the row.
                answered = try direct.fetch(query, objects: directLoadTarget) { row, object, plainLoaded in
                    try take(row, object!, plainLoaded: plainLoaded)
                }
            } else {
                answered = try queryingStore?.fetch(query) { row in try take(row, self.object(with: row.id), plainLoaded: false) } ?? false
            }
            guard answered else { return nil }
            // An entity whose to-many relationships cannot wait (slots past 31): one store call per
            // relationship for all its rows.
            var rows = needingStore.map(\.1)
            try fillToMany(&rows)
            for ((object, _), row) in zip(needingStore, rows) {
                try load(row, intoFault: object)
                loadedLater.append(object)
            }
        }
        return objects
    }

    private func window<Result: ManagedObject>(_ objects: [ManagedObject], _ request: FetchRequest<Result>) -> ArraySlice<ManagedObject> {
        var result = objects.dropFirst(max(0, request.fetchOffset))   // a negative offset is none, as in SQL
        if let limit = request.fetchLimit, limit > 0 { result = result.prefix(limit) }
        return result
    }

    /// Objects in the order of the sort descriptors (stable: ties keep their order).
    private func sort(_ objects: [ManagedObject], by descriptors: [SortDescriptor]) throws -> [ManagedObject] {
        if descriptors.isEmpty { return objects }
        let keys = descriptors.map { descriptor -> ([KeyPathComponent], Bool) in
            let path = descriptor.keyPath.split(separator: ".").map { KeyPathComponent(.key(String($0)), range: SourceRange(0, 0)) }
            return (path, descriptor.ascending)
        }
        let evaluator = PredicateEvaluator(variables: [:])
        var decorated: [(offset: Int, object: ManagedObject, values: [EvaluatedValue])] = []
        decorated.reserveCapacity(objects.count)
        for (offset, object) in objects.enumerated() {
            let values = try keys.map { try evaluator.value(ModelgenPredicate.Expression(.keyPath($0.0), range: SourceRange(0, 0)), on: object) }
            decorated.append((offset, object, values))
        }
        decorated.sort { a, b in
            for (index, key) in keys.enumerated() {
                let order = PredicateEvaluator.order(a.values[index], b.values[index]) ?? .orderedSame
                if order != .orderedSame { return (order == .orderedAscending) == key.1 }
            }
            return a.offset < b.offset
        }
        return decorated.map(\.object)
    }

    private func matchingObjects<Result: ManagedObject>(_ request: FetchRequest<Result>, entities: [EntityDescription]) throws -> [ManagedObject] {
        if queryingStore != nil && parentLink == nil, case .inMemory(let reason) = try queryPlan(for: request) {
            container.reportInMemoryFetch(InMemoryFetch(entityName: entities[0].name, predicate: request.predicate.map { "\($0.predicate)" }, reason: reason))
        }
        let names = Set(entities.map(\.name))
        var candidates: [ManagedObject] = []
        for id in try store.recordIDs(of: entities.map(\.name)) {
            let object = self.object(with: id)
            if !object._isDeleted { candidates.append(object) }
        }
        for object in inserted where names.contains(object.entity.name) { candidates.append(object) }
        guard let predicate = request.predicate?.predicate else { return candidates }
        let evaluator = PredicateEvaluator(variables: request.variables.mapValues { EvaluatedValue(any: $0) })
        return try candidates.filter { try evaluator.evaluate(predicate, on: $0) }
    }
}

extension ManagedObject {
    /// The objects of a fetched property: its predicate evaluated with `$FETCH_SOURCE` set to this object.
    public final func fetchedObjects<T: ManagedObject>(forProperty name: String) throws -> [T] {
        var current: EntityDescription? = entity
        var found: (property: FetchedPropertyDescription, parsed: ParsedFetch)?
        while let e = current, found == nil {
            if let property = e.fetchedProperties.first(where: { $0.name == name }), let parsed = e.parsedFetchedProperties[name] {
                found = (property, parsed)
            }
            current = e.parent
        }
        guard let (property, parsed) = found else { throw RuntimeError.unknownKey(entity: entity.name, key: name) }
        guard let context = _context else { throw RuntimeError.wrongContext("\(objectID) is not in a context") }
        var request = FetchRequest<T>(entityName: property.destinationName, predicate: parsed.predicate,
                                      sortDescriptors: parsed.sortDescriptors)
        request.variables = ["FETCH_SOURCE": self]
        return try context.fetch(request)
    }
}
