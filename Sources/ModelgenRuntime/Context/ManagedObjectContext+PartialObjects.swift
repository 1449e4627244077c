/// Partial objects: a fetch with `propertiesToFetch` (see `FetchRequest.propertiesToFetch`).
extension ManagedObjectContext {
    /// The results of a fetch with `propertiesToFetch`, read as a projection of those properties and
    /// loaded into their objects in part; nil when the fetch loads whole objects instead (unsaved
    /// changes of these entities, a serializable context, a store that cannot answer the projection).
    /// Objects loaded before stay as they are. The objects this fetch loads in part form one batch:
    /// the first that needs the rest of its values loads the rest of all of them with one query.
    func partialObjects<Result: ManagedObject>(_ request: FetchRequest<Result>, entities: [EntityDescription]) throws -> [Result]? {
        guard let names = request.propertiesToFetch, request.resultType == .objects, saveIsolation != .serializable else { return nil }
        let properties = try partialProperties(names, of: entities[0])
        guard pendingObjects(of: entities).isEmpty, let query = try storeQuery(request, entities: entities, window: true),
              let rows = try queryingStore?.project(query, properties: properties.map { ProjectedProperty($0) }) else { return nil }
        // The properties' slots in each entity the fetch reaches.
        var slotsByEntity: [String: [Int]] = [:]
        for entity in entities { slotsByEntity[entity.name] = try properties.map { try slot(named: $0, of: entity) } }
        var objects: [Result] = []
        objects.reserveCapacity(rows.count)
        var loaded: [ObjectID] = []
        for row in rows {
            let object = self.object(with: row.objectID)
            guard let typed = object as? Result else {
                throw RuntimeError.typeMismatch(expected: "\(Result.self)", found: "\(type(of: object))")
            }
            objects.append(typed)
            // A fault with a cached row loads whole from it when first read; a loaded object stays.
            guard object._isFault, faults.rowCache[row.objectID] == nil else { continue }
            let entity = object.entity
            guard let slots = slotsByEntity[entity.name] else { throw RuntimeError.unknownEntity(entity.name) }
            let values = try zip(slots, row.values).map { slot, value in try slotValue(value, at: slot, entity: entity) }
            let wasFault = object._loadState == .fault
            object.loadPartially(values, into: slots, pendingToMany: entity.lazyToManyMask)
            // Its to-many relationships load on first use with those of its entity's other objects.
            if wasFault && entity.lazyToManyMask != 0 { faults.pendingQueue(for: entity).keys.append(row.objectID.key) }
            loaded.append(row.objectID)
        }
        if !loaded.isEmpty {
            let batch = FaultLoader.FaultBatch(ids: loaded)
            for id in loaded { faults.batches[id] = batch }
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, from: objects)
        }
        return objects
    }

    /// The names of `propertiesToFetch`, each once, after checking that each is a stored attribute or
    /// a to-one relationship of `entity`.
    private func partialProperties(_ names: [String], of entity: EntityDescription) throws -> [String] {
        var unique: [String] = []
        for name in names where !unique.contains(name) {
            switch entity.properties[try slot(named: name, of: entity)] {
            case .attribute(let attribute) where attribute.isTransient:
                throw RuntimeError.invalidPredicate("propertiesToFetch: '\(name)' of \(entity.name) is transient: the store has no value to fetch")
            case .relationship(let relationship) where relationship.isToMany:
                throw RuntimeError.invalidPredicate("propertiesToFetch: '\(name)' of \(entity.name) is a to-many relationship: prefetch it (relationshipKeyPathsForPrefetching)")
            default:
                unique.append(name)
            }
        }
        return unique
    }

    /// The slot of property `name` of `entity`, or an error naming both.
    private func slot(named name: String, of entity: EntityDescription) throws -> Int {
        guard let slot = entity.slotsByName[name] else { throw RuntimeError.unknownKey(entity: entity.name, key: "\(name) (propertiesToFetch)") }
        return slot
    }
}
