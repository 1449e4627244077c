import Foundation
import ModelgenPredicate
import Observation

/// How one update changed a live result: indexes in the old array that were removed, indexes in the
/// new array that were inserted, moves (old index → new index) and indexes in the new array of
/// objects that stayed but were updated. Apply removals (descending), then insertions (ascending).
public struct ResultsDifference: Sendable, Hashable {
    /// Indexes in the previous array that are gone.
    public var removed: [Int] = []
    /// Indexes in the new array that are new.
    public var inserted: [Int] = []
    /// Objects that moved: their old and new index.
    public var moved: [(from: Int, to: Int)] = []
    /// Indexes in the new array of objects that stayed and changed.
    public var updated: [Int] = []

    /// True when the update changed nothing the results show.
    public var isEmpty: Bool { removed.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty }

    public static func == (a: ResultsDifference, b: ResultsDifference) -> Bool {
        a.removed == b.removed && a.inserted == b.inserted && a.updated == b.updated
            && a.moved.map(\.from) == b.moved.map(\.from) && a.moved.map(\.to) == b.moved.map(\.to)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(removed)
        hasher.combine(inserted)
        hasher.combine(updated)
        for move in moved { hasher.combine(move.from); hasher.combine(move.to) }
    }
}

/// A state of live results that crosses actors: the IDs in order, with the difference from the previous state.
public struct ResultsSnapshot: Sendable, Hashable {
    /// The results' object IDs, in result order.
    public var ids: [ObjectID]
    /// How this state differs from the previous one.
    public var difference: ResultsDifference
}

/// A section of live results: the objects with one value of the section key path, in result order.
public struct ResultsSection<Result: ManagedObject> {
    /// The section key path's value, as text (`""` for nil).
    public var name: String
    /// The section's objects, in result order.
    public var objects: [Result]
}

/// Results of a fetch request that stay current (Core Data's fetched results controller, SwiftData's
/// `@Query`): after every save of its context and every change set the context merges, the results
/// are brought up to date from the change set alone — the changed records are evaluated against the
/// predicate and placed by the sort descriptors — without refetching the rest. `objects` is
/// `Observable` (a SwiftUI view reading it redraws), `lastDifference` says what the latest update did,
/// and `snapshots` streams every state for servers. Requests with a fetch limit or offset are
/// refetched whole on each change (a window's edges move with every insert).
///
/// Use it in the context's isolation (the main context for UI); it holds its context weakly and stops
/// updating when the context is gone.
public final class LiveResults<Result: ManagedObject>: Observable {
    /// The request the results answer.
    public let request: FetchRequest<Result>
    /// The key path whose values group `sections` (results should be sorted by it first).
    public let sectionKeyPath: String?
    private weak var context: ManagedObjectContext?
    private let registrar = ObservationRegistrar()
    private var _objects: [Result]
    private var _lastDifference = ResultsDifference()
    private let entityNames: Set<String>
    private let evaluator: PredicateEvaluator
    private let sortKeys: [(path: ModelgenPredicate.Expression, ascending: Bool)]
    private var continuations: [UUID: AsyncStream<ResultsSnapshot>.Continuation] = [:]
    /// The observed key paths, made once: a key path of a generic class is instantiated at run time on
    /// each use (a lookup by mangled name) when written as a literal.
    private let objectsKeyPath = \LiveResults<Result>.objects
    private let differenceKeyPath = \LiveResults<Result>.lastDifference

    /// Fetches `request` in `context` and keeps the results current.
    public init(_ request: FetchRequest<Result>, in context: ManagedObjectContext, sectionKeyPath: String? = nil) throws {
        let request = try request.resolved(for: context.model)
        self.request = request
        self.sectionKeyPath = sectionKeyPath
        self.context = context
        entityNames = Set(try context.requestEntities(request).map(\.name))
        evaluator = PredicateEvaluator(variables: request.variables.mapValues { EvaluatedValue(any: $0) })
        sortKeys = request.sortDescriptors.map { descriptor in
            let path = descriptor.keyPath.split(separator: ".").map { KeyPathComponent(.key(String($0)), range: SourceRange(0, 0)) }
            return (ModelgenPredicate.Expression(.keyPath(path), range: SourceRange(0, 0)), descriptor.ascending)
        }
        _objects = try context.fetch(request)
        context.addLiveResults(self)
    }

    /// The current results, in the request's order.
    public var objects: [Result] {
        registrar.access(self, keyPath: objectsKeyPath)
        return _objects
    }

    /// What the latest update changed.
    public var lastDifference: ResultsDifference {
        registrar.access(self, keyPath: differenceKeyPath)
        return _lastDifference
    }

    /// The results grouped by `sectionKeyPath` (one section of everything when it is nil).
    public var sections: [ResultsSection<Result>] {
        let objects = self.objects
        guard let sectionKeyPath else { return [ResultsSection(name: "", objects: objects)] }
        var sections: [ResultsSection<Result>] = []
        let path = sectionKeyPath.split(separator: ".").map { KeyPathComponent(.key(String($0)), range: SourceRange(0, 0)) }
        let expression = ModelgenPredicate.Expression(.keyPath(path), range: SourceRange(0, 0))
        for object in objects {
            let name = Self.sectionName((try? evaluator.value(expression, on: object)) ?? .null)
            if sections.last?.name == name { sections[sections.count - 1].objects.append(object) } else {
                sections.append(ResultsSection(name: name, objects: [object]))
            }
        }
        return sections
    }

    /// The error of the latest update that could not be made (the results then keep their previous state).
    public private(set) var lastError: (any Error)?

    /// A section's name for a key path value.
    private static func sectionName(_ value: EvaluatedValue) -> String {
        switch value {
        case .null: return ""
        case .string(let s): return s
        case .int(let i): return "\(i)"
        case .double(let d): return "\(d)"
        case .bool(let b): return "\(b)"
        case .date(let d): return "\(d)"
        case .uuid(let u): return u.uuidString
        case .url(let u): return u.absoluteString
        case .decimal(let d): return "\(d)"
        case .object(let o): return "\(o.objectID)"
        default: return "\(value)"
        }
    }

    /// Every state from now on (the current one first), as Sendable snapshots of IDs.
    public var snapshots: AsyncStream<ResultsSnapshot> {
        let (stream, continuation) = AsyncStream<ResultsSnapshot>.makeStream()
        let id = UUID()
        continuations[id] = continuation
        continuation.yield(ResultsSnapshot(ids: _objects.map(\.objectID), difference: ResultsDifference()))
        return stream
    }

    /// Brings the results up to date with a change set of their context (a save of it, or a merge); when
    /// a changed object cannot be evaluated, refetches; when that fails too, keeps the results and sets `lastError`.
    func apply(_ changes: ChangeSet) {
        do {
            try update(changes)
            lastError = nil
        } catch {
            do {
                try update(changes, refetch: true)
                lastError = nil
            } catch {
                lastError = error
            }
        }
    }

    private func update(_ changes: ChangeSet, refetch: Bool = false) throws {
        guard let context else { return }
        if refetch || request.fetchLimit != nil || request.fetchOffset > 0 {
            let old = _objects
            let new = try context.fetch(request)
            publish(new, Self.difference(from: old, to: new, updated: Set(changes.updated.keys)))
            return
        }
        func concerns(_ id: ObjectID) -> Bool { entityNames.contains(id.entityName) }
        let deleted = Set(changes.deleted.filter(concerns))
        let candidates = (changes.inserted + changes.updated.keys).filter(concerns)
        guard !deleted.isEmpty || !candidates.isEmpty else { return }
        let touched = deleted.union(candidates)
        // The changed records that belong in the results now.
        var matching: [Result] = []
        for id in candidates {
            let object = context.object(with: id)
            try object.loadIfFault()
            if let predicate = request.predicate?.predicate, !(try evaluator.evaluate(predicate, on: object)) { continue }
            if let typed = object as? Result { matching.append(typed) }
        }
        if touched.count <= 32 {
            // A few changed records (the common case): found by identity (a pointer compare per row),
            // moved in place (no copy of the array, no hashing of every row), each one's fate said directly.
            var removedAt: [ObjectID: Int] = [:]
            for id in touched {
                // An object in the results is registered, unless a merge just deleted it: then by its ID.
                let index = context.registered[id].map { object in identityIndex(of: object, in: _objects) }
                    ?? _objects.firstIndex { $0.objectID == id }
                if let index { removedAt[id] = index }
            }
            guard !removedAt.isEmpty || !matching.isEmpty else { return }   // nothing the results show
            var placedAt: [(id: ObjectID, index: Int)] = []
            try registrar.withMutation(of: self, keyPath: objectsKeyPath) {
                for index in removedAt.values.sorted(by: >) { _objects.remove(at: index) }
                for object in matching {
                    let index = try insertionIndex(of: object, in: _objects)
                    _objects.insert(object, at: index)
                    // Objects placed before shift right (at most 32 of them).
                    for earlier in placedAt.indices where placedAt[earlier].index >= index { placedAt[earlier].index += 1 }
                    placedAt.append((object.objectID, index))
                }
            }
            let difference = Self.difference(removedAt: removedAt, placedAt: placedAt)
            registrar.withMutation(of: self, keyPath: differenceKeyPath) { _lastDifference = difference }
            yieldSnapshot(difference)
            return
        }
        let old = _objects
        var new = old.filter { !touched.contains($0.objectID) }
        for object in matching { new.insert(object, at: try insertionIndex(of: object, in: new)) }
        publish(new, Self.difference(from: old, to: new, updated: Set(matching.map(\.objectID)).subtracting(changes.inserted)))
    }

    /// The difference of a few changed records: each removed from its old index, placed at its new one.
    static func difference(removedAt: [ObjectID: Int], placedAt: [(id: ObjectID, index: Int)]) -> ResultsDifference {
        var result = ResultsDifference()
        var newIndex: [ObjectID: Int] = [:]
        for (id, index) in placedAt { newIndex[id] = index }
        for (id, old) in removedAt {
            if let index = newIndex[id] {
                if index == old { result.updated.append(index) } else { result.moved.append((from: old, to: index)) }
            } else {
                result.removed.append(old)
            }
        }
        for (id, index) in newIndex where removedAt[id] == nil { result.inserted.append(index) }
        result.removed.sort()
        result.inserted.sort()
        result.updated.sort()
        result.moved.sort { $0.from < $1.from }
        return result
    }

    /// Makes `new` the current results, telling observers and snapshot subscribers.
    private func publish(_ new: [Result], _ difference: ResultsDifference) {
        guard !difference.isEmpty else { return }
        registrar.withMutation(of: self, keyPath: objectsKeyPath) {
            registrar.withMutation(of: self, keyPath: differenceKeyPath) {
                _objects = new
                _lastDifference = difference
            }
        }
        yieldSnapshot(difference)
    }

    /// Hands the current state to snapshot subscribers (none: nothing to build).
    private func yieldSnapshot(_ difference: ResultsDifference) {
        guard !continuations.isEmpty else { return }
        let snapshot = ResultsSnapshot(ids: _objects.map(\.objectID), difference: difference)
        for continuation in continuations.values { continuation.yield(snapshot) }
    }

    /// Where `object` goes among `objects` (sorted by the request): after every object that sorts before
    /// or equal to it (binary search), at the end without sort descriptors.
    private func insertionIndex(of object: Result, in objects: [Result]) throws -> Int {
        if sortKeys.isEmpty { return objects.count }
        let values = try sortKeys.map { try evaluator.value($0.path, on: object) }
        var low = 0, high = objects.count
        while low < high {
            let middle = (low + high) / 2
            if try sortsAfterOrEqual(values, objects[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// True when an object with sort values `values` sorts after (or equal to) `other`.
    private func sortsAfterOrEqual(_ values: [EvaluatedValue], _ other: Result) throws -> Bool {
        for (index, key) in sortKeys.enumerated() {
            let otherValue = try evaluator.value(key.path, on: other)
            let order = PredicateEvaluator.order(values[index], otherValue) ?? .orderedSame
            if order != .orderedSame { return (order == .orderedDescending) == key.ascending }
        }
        return true
    }

    /// The difference between two states by object ID.
    static func difference(from old: [Result], to new: [Result], updated: Set<ObjectID>) -> ResultsDifference {
        resultsDifference(from: old.map(\.objectID), to: new.map(\.objectID), updated: updated)
    }

    deinit {
        for continuation in continuations.values { continuation.finish() }
    }
}

/// The difference between two states of results by object ID (Myers' algorithm: proportional to the
/// changes); `updated`: the records that stayed and changed.
func resultsDifference(from oldIDs: [ObjectID], to newIDs: [ObjectID], updated: Set<ObjectID>) -> ResultsDifference {
    var result = ResultsDifference()
    let changes = newIDs.difference(from: oldIDs).inferringMoves()
    for change in changes {
        switch change {
        case .remove(let offset, _, let move):
            if let move { result.moved.append((from: offset, to: move)) } else { result.removed.append(offset) }
        case .insert(let offset, _, let move):
            if move == nil { result.inserted.append(offset) }
        }
    }
    result.moved.sort { $0.from < $1.from }
    let positions = Dictionary(newIDs.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
    result.updated = updated.compactMap { positions[$0] }.filter { index in !result.inserted.contains(index) }.sorted()
    return result
}

/// The index of `object` in `objects` by identity: a scan of the array's pointers, with no retain and
/// no generic copy per element (LiveResults is generic over its result class and is not specialized
/// for it outside this module).
func identityIndex<Element: AnyObject>(of object: AnyObject, in objects: [Element]) -> Int? {
    let target = UnsafeRawPointer(Unmanaged.passUnretained(object).toOpaque())
    return objects.withUnsafeBufferPointer { buffer in
        UnsafeRawBufferPointer(buffer).withMemoryRebound(to: UnsafeRawPointer.self) { pointers in
            pointers.firstIndex(of: target)
        }
    }
}

/// What a context calls after a save or merge.
protocol ChangeSetObserver: AnyObject {
    func apply(_ changes: ChangeSet)
}

extension LiveResults: ChangeSetObserver {}

/// A weak reference to a context's live results.
struct WeakChangeSetObserver {
    weak var observer: (any ChangeSetObserver)?
}

extension ManagedObjectContext {
    func addLiveResults(_ observer: any ChangeSetObserver) {
        liveResults.removeAll { $0.observer == nil }
        liveResults.append(WeakChangeSetObserver(observer: observer))
    }

    /// Brings this context's live results up to date.
    func updateLiveResults(_ changes: ChangeSet) {
        for entry in liveResults { entry.observer?.apply(changes) }
    }
}
