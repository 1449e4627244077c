import ModelgenPredicate

extension ManagedObjectContext {
    /// Objects matching a request. Unsaved inserts appear, unsaved deletes do not, and
    /// unsaved changes are what the predicate and sorting see.
    public func fetch<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [Result] {
        let matches = try matchingObjects(request)
        var sorted = matches
        if !request.sortDescriptors.isEmpty {
            let keys = request.sortDescriptors.map { descriptor -> ([KeyPathComponent], Bool) in
                let path = descriptor.keyPath.split(separator: ".").map { KeyPathComponent(.key(String($0)), range: SourceRange(0, 0)) }
                return (path, descriptor.ascending)
            }
            let evaluator = PredicateEvaluator(variables: [:])
            var decorated: [(ManagedObject, [EvaluatedValue])] = []
            decorated.reserveCapacity(matches.count)
            for object in matches {
                let values = try keys.map { try evaluator.value(ModelgenPredicate.Expression(.keyPath($0.0), range: SourceRange(0, 0)), on: object) }
                decorated.append((object, values))
            }
            decorated.sort { a, b in
                for (index, key) in keys.enumerated() {
                    let order = PredicateEvaluator.order(a.1[index], b.1[index]) ?? .orderedSame
                    if order != .orderedSame { return (order == .orderedAscending) == key.1 }
                }
                return false
            }
            sorted = decorated.map(\.0)
        }
        var result = sorted.dropFirst(request.fetchOffset)
        if let limit = request.fetchLimit, limit > 0 { result = result.prefix(limit) }
        if request.resultType == .objects {
            for object in result { try object.loadIfFault() }
        }
        return result.map { $0 as! Result }
    }

    /// The number of objects a request would return.
    public func count<Result: ManagedObject>(for request: FetchRequest<Result>) throws -> Int {
        var count = try matchingObjects(request).count - request.fetchOffset
        count = max(0, count)
        if let limit = request.fetchLimit, limit > 0 { count = min(count, limit) }
        return count
    }

    /// The IDs of the objects a request would return.
    public func fetchIDs<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [ObjectID] {
        var unsortedFaults = request
        unsortedFaults.resultType = .faults
        return try fetch(unsortedFaults).map(\.objectID)
    }

    private func matchingObjects<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> [ManagedObject] {
        let entity: EntityDescription
        if request.entityName.isEmpty {
            guard let byClass = model.entity(for: Result.self) else { throw RuntimeError.unknownEntity("\(Result.self) is not the class of an entity of model '\(model.name)'") }
            entity = byClass
        } else {
            guard let byName = model.entity(named: request.entityName) else { throw RuntimeError.unknownEntity(request.entityName) }
            entity = byName
        }
        let entities = request.includesSubentities ? entity.selfAndDescendants : [entity]
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
