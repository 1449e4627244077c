import Foundation
import ModelgenPredicate

/// Aggregates, grouping and distinct values answered in the store (see `AggregateRequest`).
extension ManagedObjectContext {
    /// The groups of an aggregate request, each with its keys and computed columns, sorted by the
    /// request's `sortBy`. The SQL stores run it as one query; a store that runs no queries (the
    /// in-memory store), or a key path SQL cannot express, is computed on the records instead. Unsaved
    /// changes of this context are not included (as in Core Data: save first).
    public func aggregate<Result: ManagedObject>(_ request: AggregateRequest<Result>) throws -> [AggregateRow] {
        let request = try request.resolved(for: model)
        let fetch = try request.fetch.resolved(for: model)
        let entities = try requestEntities(fetch)
        for name in Set(request.columns.map(\.name)).intersection(request.groupBy) {
            throw RuntimeError.invalidPredicate("aggregate column '\(name)' has the name of a group key path")
        }
        var rows: [AggregateRow]
        if var query = try storeQuery(fetch, entities: entities, window: false),
           let answered = try { () throws -> [AggregateRow]? in
               query.having = request.having?.predicate
               return try queryingStore?.aggregate(query, groupBy: request.groupBy, columns: request.columns)
           }() {
            rows = answered
        } else {
            rows = try aggregateOnRecords(fetch, request)
        }
        if let having = request.having { rows = try rows.filter { try Self.keeps($0, having, request, fetch.variables, entity: entities[0]) } }
        if request.sortBy.isEmpty { return rows }
        // Decorated once: each row's sort values looked up by name once, compared without conversions.
        let decorated = rows.map { row in (row, request.sortBy.map { row[$0.key] ?? .null }) }
        return decorated.sorted { a, b in
            for (index, key) in request.sortBy.enumerated() {
                let order = Self.order(a.1[index], b.1[index])
                if order != .orderedSame { return (order == .orderedAscending) == key.ascending }
            }
            return false
        }.map(\.0)
    }

    /// The order of two aggregate values as a fetch sorts them (nil first; numbers, text, dates by value;
    /// related records by key); other kinds through the predicate evaluator's order.
    private static func order(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        func result<T: Comparable>(_ x: T, _ y: T) -> ComparisonResult { x < y ? .orderedAscending : x > y ? .orderedDescending : .orderedSame }
        switch (a, b) {
        case (.int(let x), .int(let y)): return result(x, y)
        case (.double(let x), .double(let y)): return result(x, y)
        case (.string(let x), .string(let y)): return result(x, y)
        case (.date(let x), .date(let y)): return result(x, y)
        case (.reference(let x?), .reference(let y?)): return result(x.key, y.key)
        case _ where a.isNull && b.isNull: return .orderedSame
        case _ where a.isNull: return .orderedAscending
        case _ where b.isNull: return .orderedDescending
        default:
            return PredicateEvaluator.order(EvaluatedValue(any: a.variableValue), EvaluatedValue(any: b.variableValue)) ?? .orderedSame
        }
    }

    /// The aggregate computed on the records (loaded in a context of their own, without this one's changes).
    private func aggregateOnRecords<Result: ManagedObject>(_ fetch: FetchRequest<Result>, _ request: AggregateRequest<Result>) throws -> [AggregateRow] {
        let scratch = container.newContext(observation: .unobserved)
        var records = fetch
        records.sortDescriptors = []
        records.fetchLimit = nil
        records.fetchOffset = 0
        let objects = try scratch.fetch(records)
        let evaluator = PredicateEvaluator(variables: [:])
        let keyPaths = request.groupBy.map(Self.keys)
        let measured = request.columns.map { $0.keyPath.map { Self.keyPathExpression(Self.keys($0)) } }
        var groups: [[StoreValue]: [ManagedObject]] = [:]
        var order: [[StoreValue]] = []
        for object in objects {
            for key in try groupKeys(keyPaths, of: object, evaluator: evaluator) {
                if groups[key] == nil { order.append(key) }
                groups[key, default: []].append(object)
            }
        }
        if request.groupBy.isEmpty && order.isEmpty { order = [[]]; groups[[]] = [] }
        return try order.map { key in
            var values: [String: StoreValue] = [:]
            for (name, value) in zip(request.groupBy, key) { values[name] = value }
            let members = groups[key] ?? []
            for (column, expression) in zip(request.columns, measured) {
                guard let expression else {
                    values[column.name] = .int(Int64(members.count))
                    continue
                }
                let all = try members.map { try evaluator.value(expression, on: $0) }.filter { !$0.isNull }
                values[column.name] = Self.aggregate(column.function, all)
            }
            return AggregateRow(values: values)
        }
    }

    /// The group keys of a record: one combination of the key paths' values, or, where a key path
    /// crosses a to-many relationship, one per member (key paths through the same relationship take the
    /// same member; a record without members has a nil one), as the SQL stores' joins make them.
    private func groupKeys(_ keyPaths: [[String]], of object: ManagedObject?, evaluator: PredicateEvaluator) throws -> [[StoreValue]] {
        var combinations: [[StoreValue]] = [Array(repeating: .null, count: keyPaths.count)]
        // The key paths that cross a to-many relationship, by the key path up to it (in first-seen order).
        var crossing: [(prefix: [String], members: [(index: Int, rest: [String])])] = []
        for (index, keys) in keyPaths.enumerated() {
            guard let object else { continue }
            guard let step = toManyStep(keys, from: object.entity)?.position else {
                let value = keys.isEmpty ? EvaluatedValue.object(object) : try evaluator.value(Self.keyPathExpression(keys), on: object)
                for combination in combinations.indices { combinations[combination][index] = Self.stored(value) }
                continue
            }
            let prefix = Array(keys[...step]), rest = Array(keys[(step + 1)...])
            if let known = crossing.firstIndex(where: { $0.prefix == prefix }) {
                crossing[known].members.append((index, rest))
            } else {
                crossing.append((prefix, [(index, rest)]))
            }
        }
        for (prefix, paths) in crossing {
            guard let object, case .collection(let items) = try evaluator.value(Self.keyPathExpression(prefix), on: object) else { continue }
            let members = items.compactMap { item -> ManagedObject? in if case .object(let member) = item { member } else { nil } }
            var values: [[StoreValue]] = []
            for member in members.isEmpty ? [nil] : members.map(Optional.some) {
                values += try groupKeys(paths.map(\.rest), of: member, evaluator: evaluator)
            }
            combinations = combinations.flatMap { combination in
                values.map { value in
                    var combined = combination
                    for (position, entry) in paths.enumerated() { combined[entry.index] = value[position] }
                    return combined
                }
            }
        }
        return combinations
    }

    /// The first to-many relationship `keys` crosses from `entity` (through to-one ones), if any, and
    /// its position among the keys.
    func toManyStep(_ keys: [String], from entity: EntityDescription) -> (position: Int, relationship: RelationshipDescription)? {
        var entity = entity
        for (position, key) in keys.enumerated() {
            guard let slot = entity.slot(of: key), case .relationship(let relationship) = entity.property(at: slot) else { return nil }
            if relationship.isToMany { return (position, relationship) }
            guard let destination = model.entity(named: relationship.destinationName) else { return nil }
            entity = destination
        }
        return nil
    }

    /// An evaluated value as stored (a related object as a reference; nil for other values).
    private static func stored(_ value: EvaluatedValue) -> StoreValue { value.storeValue ?? .null }

    /// A function over a group's non-nil values, as the SQL stores compute it.
    private static func aggregate(_ function: AggregateFunction, _ values: [EvaluatedValue]) -> StoreValue {
        switch function {
        case .count:
            return .int(Int64(values.count))
        case .sum, .average:
            if values.isEmpty { return .null }   // SQL: the sum and the mean of no values are NULL
            let integers = values.compactMap { if case .int(let v) = $0 { return v } else { return nil } }
            if function == .sum && integers.count == values.count { return .int(integers.reduce(0, &+)) }
            let numbers = values.compactMap { value -> Double? in
                switch value {
                case .int(let v): return Double(v)
                case .double(let v): return v
                case .decimal(let v): return NSDecimalNumber(decimal: v).doubleValue
                default: return nil
                }
            }
            let total = numbers.reduce(0, +)
            return .double(function == .sum ? total : total / Double(numbers.count))
        case .minimum, .maximum:
            let best = values.dropFirst().reduce(values.first) { best, value in
                guard let best else { return value }
                let order = PredicateEvaluator.order(value, best)
                return (function == .minimum ? order == .orderedAscending : order == .orderedDescending) ? value : best
            }
            return best.map(stored) ?? .null
        }
    }
}

extension ManagedObjectContext {
    /// Whether a group passes the request's `having` predicate: its key paths name group keys and
    /// columns (anything else is an error naming it), whose values it compares.
    fileprivate static func keeps<Result: ManagedObject>(_ row: AggregateRow, _ having: FetchPredicate, _ request: AggregateRequest<Result>,
                                                         _ variables: [String: Any?], entity: EntityDescription) throws -> Bool {
        let names = Set(request.groupBy + request.columns.map(\.name))
        var unknown: String?
        var values: [String: EvaluatedValue] = variables.mapValues { EvaluatedValue(any: $0) }
        let substituted = having.predicate.mapExpressions { expression in
            guard case .keyPath(let components) = expression.kind else { return expression }
            let name = components.map(\.text).joined(separator: ".")
            guard names.contains(name) else {
                unknown = unknown ?? name
                return expression
            }
            values["modelgen.having." + name] = EvaluatedValue(any: row[name]?.variableValue)
            return ModelgenPredicate.Expression(.variable("modelgen.having." + name), range: expression.range)
        }
        if let unknown {
            throw RuntimeError.invalidPredicate("the having predicate names '\(unknown)', which is neither a group key path nor a column of the request (\(names.sorted().joined(separator: ", ")))")
        }
        // Every key path became a value: the object the evaluator asks for is never read.
        let placeholder = entity.managedClass.init(entity: entity, objectID: ObjectID(entityName: entity.name, key: 0), context: nil, isFault: false)
        return try PredicateEvaluator(variables: values).evaluate(substituted, on: placeholder)
    }
}

extension AggregateRequest {
    /// The request with its typed key paths named through `model`.
    func resolved(for model: ManagedObjectModel) throws -> AggregateRequest<Result> {
        var request = self
        func name(_ reference: KeyPathReference) throws -> String {
            guard let name = model.keyPathName(reference.keyPath) else {
                throw RuntimeError.unknownKey(entity: "\(Result.self)", key: "\(reference.keyPath) (an aggregate: the model names no property for it; a class written by hand passes keyPaths: to its EntityDescription)")
            }
            return name
        }
        request.groupBy += try typedGroupBy.map(name)
        request.typedGroupBy = []
        for index in request.columns.indices {
            guard let typed = request.columns[index].typedKeyPath else { continue }
            request.columns[index].keyPath = try name(typed)
            request.columns[index].typedKeyPath = nil
        }
        return request
    }
}
