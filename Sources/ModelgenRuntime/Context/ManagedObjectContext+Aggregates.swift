import Foundation
import ModelgenPredicate

/// Aggregates, grouping and distinct values answered in the store (see `AggregateRequest`).
extension ManagedObjectContext {
    /// The groups of an aggregate request, each with its keys and computed columns, sorted by the
    /// request's `sortBy`. The SQL stores run it as one query; a store that runs no queries (the
    /// in-memory store), or a key path SQL cannot express, is computed on the records instead. Unsaved
    /// changes of this context are not included (as in Core Data: save first).
    public func aggregate<Result: ManagedObject>(_ request: AggregateRequest<Result>) throws -> [AggregateRow] {
        let fetch = try request.fetch.resolved(for: model)
        let entities = try requestEntities(fetch)
        for name in Set(request.columns.map(\.name)).intersection(request.groupBy) {
            throw RuntimeError.invalidPredicate("aggregate column '\(name)' has the name of a group key path")
        }
        var rows: [AggregateRow]
        if let query = try storeQuery(fetch, entities: entities, window: false),
           let answered = try store.aggregate(query, groupBy: request.groupBy, columns: request.columns) {
            rows = answered
        } else {
            rows = try aggregateOnRecords(fetch, request)
        }
        return rows.sorted { a, b in
            for (key, ascending) in request.sortBy {
                let order = PredicateEvaluator.order(EvaluatedValue(any: a[key]?.variableValue), EvaluatedValue(any: b[key]?.variableValue)) ?? .orderedSame
                if order != .orderedSame { return (order == .orderedAscending) == ascending }
            }
            return false
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
        func path(_ dotted: String) -> ModelgenPredicate.Expression {
            let components = dotted.split(separator: ".").map { KeyPathComponent(.key(String($0)), range: SourceRange(0, 0)) }
            return ModelgenPredicate.Expression(.keyPath(components), range: SourceRange(0, 0))
        }
        let keys = request.groupBy.map(path)
        let measured = request.columns.map { $0.keyPath.map(path) }
        var groups: [[StoreValue]: [ManagedObject]] = [:]
        var order: [[StoreValue]] = []
        for object in objects {
            let key = try keys.map { try Self.stored(evaluator.value($0, on: object)) }
            if groups[key] == nil { order.append(key) }
            groups[key, default: []].append(object)
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
