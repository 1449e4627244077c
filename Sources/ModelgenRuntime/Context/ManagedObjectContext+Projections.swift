import Foundation
import ModelgenPredicate

/// Projections: some values of each matching record, without objects (see `ProjectionRequest`).
extension ManagedObjectContext {
    /// The rows of a projection, in the fetch's order and window. The SQL stores run it as one `SELECT`
    /// of the values' columns; a store that runs no queries (the in-memory store), or a key path SQL
    /// cannot express, reads the values of the records' objects instead. Unsaved changes of this
    /// context are not included (as Core Data's dictionary results: save first).
    public func fetch<Result: ManagedObject>(_ request: ProjectionRequest<Result>) throws -> [ProjectedRow] {
        let fetch = try request.fetch.resolved(for: model)
        let entities = try requestEntities(fetch)
        for (index, property) in request.properties.enumerated() where request.properties[..<index].contains(where: { $0.name == property.name }) {
            throw RuntimeError.invalidPredicate("two projected properties are named '\(property.name)'")
        }
        if let query = try storeQuery(fetch, entities: entities, window: true),
           let rows = try queryingStore?.project(query, properties: request.properties) {
            return rows
        }
        return try projectOnRecords(fetch, request.properties)
    }

    /// The rows of a typed projection, as its row type.
    public func fetch<Result: ManagedObject, Row>(_ request: TypedProjectionRequest<Result, Row>) throws -> [Row] {
        try fetch(request.request).map(request.makeRow)
    }

    /// The projection read from the records' objects (loaded in a context of their own, without this
    /// one's changes), as the SQL stores read it.
    private func projectOnRecords<Result: ManagedObject>(_ fetch: FetchRequest<Result>, _ properties: [ProjectedProperty]) throws -> [ProjectedRow] {
        let scratch = container.newContext(observation: .unobserved)
        let objects = try scratch.fetch(fetch)
        let evaluator = PredicateEvaluator(variables: [:])
        let names = properties.map(\.name)
        return try objects.map { object in
            ProjectedRow(objectID: object.objectID, names: names, values: try properties.map { try projectedValue($0, of: object, evaluator) })
        }
    }

    /// One property's value of a record: through to-one steps, or of the first member (in the
    /// property's member order) of the to-many relationship it crosses.
    private func projectedValue(_ property: ProjectedProperty, of object: ManagedObject, _ evaluator: PredicateEvaluator) throws -> StoreValue {
        let keys = Self.keys(property.keyPath)
        guard let (step, relationship) = toManyStep(keys, from: object.entity) else {
            return try evaluator.value(Self.keyPathExpression(keys), on: object).storeValue ?? .null
        }
        guard let order = property.memberOrder else {
            throw RuntimeError.invalidPredicate("projected key path '\(property.keyPath)' crosses a to-many relationship: project a member with .first(_:by:)")
        }
        guard case .collection(let items) = try evaluator.value(Self.keyPathExpression(Array(keys[...step])), on: object) else { return .null }
        var members = items.compactMap { item -> ManagedObject? in if case .object(let member) = item { member } else { nil } }
        if !order.isEmpty {
            let sortKeys = try members.map { member in try order.map { try evaluator.value(Self.keyPathExpression(Self.keys($0.keyPath)), on: member) } }
            members = zip(members, sortKeys).sorted { a, b in
                for (index, descriptor) in order.enumerated() {
                    let result = PredicateEvaluator.order(a.1[index], b.1[index]) ?? .orderedSame
                    if result != .orderedSame { return (result == .orderedAscending) == descriptor.ascending }
                }
                return a.0.objectID.key < b.0.objectID.key
            }.map(\.0)
        } else if !relationship.isOrdered {
            members.sort { $0.objectID.key < $1.objectID.key }
        }
        guard let first = members.first else { return .null }
        let rest = Array(keys[(step + 1)...])
        if rest.isEmpty { return .reference(first.objectID) }
        return try projectedValue(ProjectedProperty(rest.joined(separator: ".")), of: first, evaluator)
    }

    /// The keys of a dotted key path.
    static func keys(_ keyPath: String) -> [String] { keyPath.split(separator: ".").map(String.init) }

    /// A key path as the predicate evaluator reads it.
    static func keyPathExpression(_ keys: [String]) -> ModelgenPredicate.Expression {
        let components = keys.map { KeyPathComponent(.key($0), range: SourceRange(0, 0)) }
        return ModelgenPredicate.Expression(.keyPath(components), range: SourceRange(0, 0))
    }
}
