import Foundation
import Observation

/// The rows of a projection that stay current: a list screen's values without objects (see
/// `ProjectionRequest`). After every save of its context and every change set the context merges that
/// names a record of an entity the projection reads (the fetched entities, and those its key paths and
/// sort key paths reach), the projection is asked again; `rows` is `Observable` (a SwiftUI view reading
/// it redraws) and `lastDifference` says what the update did, by record ID (a row whose values changed
/// is updated). As a projection, it shows what the store holds: a context's unsaved changes appear
/// when it saves.
///
/// Use it in the context's isolation; it holds its context weakly and stops updating when the context is gone.
public final class LiveProjection<Result: ManagedObject>: Observable {
    /// The request the rows answer.
    public let request: ProjectionRequest<Result>
    private weak var context: ManagedObjectContext?
    private let registrar = ObservationRegistrar()
    private var _rows: [ProjectedRow]
    private var _lastDifference = ResultsDifference()
    /// The entities whose records' changes can change a row.
    private let entityNames: Set<String>
    private let rowsKeyPath = \LiveProjection<Result>.rows
    private let differenceKeyPath = \LiveProjection<Result>.lastDifference

    /// Asks `request` in `context` and keeps the rows current.
    public init(_ request: ProjectionRequest<Result>, in context: ManagedObjectContext) throws {
        self.request = request
        self.context = context
        let fetched = try context.requestEntities(try request.fetch.resolved(for: context.model))
        var names = Set(fetched.map(\.name))
        let paths = request.properties.map(\.keyPath) + request.fetch.sortDescriptors.map(\.keyPath)
            + request.properties.flatMap { property in (property.memberOrder ?? []).map { property.keyPath + "." + $0.keyPath } }
        for path in paths { names.formUnion(Self.entitiesReached(by: path, from: fetched[0], in: context.model)) }
        entityNames = names
        _rows = try context.fetch(request)
        context.addLiveResults(self)
    }

    /// The current rows, in the request's order.
    public var rows: [ProjectedRow] {
        registrar.access(self, keyPath: rowsKeyPath)
        return _rows
    }

    /// What the latest update changed.
    public var lastDifference: ResultsDifference {
        registrar.access(self, keyPath: differenceKeyPath)
        return _lastDifference
    }

    /// The error of the latest update that could not be made (the rows then keep their previous state).
    public private(set) var lastError: (any Error)?

    /// The names of the entities (with their subentities) the relationships of a dotted key path reach
    /// from `entity`; a member's key path (`authors.name` ordered by `name`) reaches the members' entity.
    private static func entitiesReached(by keyPath: String, from entity: EntityDescription, in model: ManagedObjectModel) -> Set<String> {
        var names: Set<String> = []
        var entity = entity
        for key in keyPath.split(separator: ".") {
            guard let slot = entity.slot(of: String(key)), case .relationship(let relationship) = entity.property(at: slot),
                  let destination = model.entity(named: relationship.destinationName) else { break }
            names.formUnion(destination.selfAndDescendants.map(\.name))
            entity = destination
        }
        return names
    }
}

extension LiveProjection: ChangeSetObserver {
    /// Asks the projection again when the change set names a record of an entity it reads.
    func apply(_ changes: ChangeSet) {
        guard let context else { return }
        let named = changes.inserted + changes.deleted + Array(changes.updated.keys)
        guard named.contains(where: { entityNames.contains($0.entityName) }) else { return }
        do {
            let old = _rows
            let new = try context.fetch(request)
            let before = Dictionary(old.map { ($0.objectID, $0.values) }, uniquingKeysWith: { a, _ in a })
            let changed = Set(new.filter { row in before[row.objectID].map { $0 != row.values } ?? false }.map(\.objectID))
            let difference = resultsDifference(from: old.map(\.objectID), to: new.map(\.objectID), updated: changed)
            lastError = nil
            guard !difference.isEmpty else { return }
            registrar.withMutation(of: self, keyPath: rowsKeyPath) { _rows = new }
            registrar.withMutation(of: self, keyPath: differenceKeyPath) { _lastDifference = difference }
        } catch {
            lastError = error
        }
    }
}
