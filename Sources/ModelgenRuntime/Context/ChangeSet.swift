import Foundation
import Synchronization

/// What one save changed: the records it inserted, updated (with the names of the properties whose
/// values changed) and deleted. Sendable, so it crosses actors and tasks; contexts merge it with
/// `mergeChanges(_:)`, and `ManagedContainer.changes` publishes one per save.
public struct ChangeSet: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Records the save inserted (their permanent IDs).
    public var inserted: [ObjectID] = []
    /// Records the save updated, each with the names of its changed properties.
    public var updated: [ObjectID: Set<String>] = [:]
    /// Records the save deleted.
    public var deleted: [ObjectID] = []

    /// An empty change set.
    public init() {}

    /// What a committed save changed: its inserted records under their permanent IDs, its updated ones
    /// with their changed properties, its deleted ones (the context's publication and the store's
    /// history row are both made from this).
    package init(committed changes: StoreChanges, result: StoreCommitResult) {
        inserted = result.insertedIDs
        for row in changes.updated { updated[row.id] = changes.changedKeys[row.id] ?? [] }
        deleted = changes.deleted.map(\.id)
    }

    /// True when the save changed nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Notes that `id`'s properties `names` changed: a record seen first shares the caller's set (one
    /// set for a batch's many related records that lost the same relationship's members).
    mutating func noteUpdate(of id: ObjectID, _ names: Set<String>) {
        if let index = updated.index(forKey: id) {
            if !names.isSubset(of: updated.values[index]) { updated.values[index].formUnion(names) }
        } else {
            updated[id] = names
        }
    }

    public var description: String {
        "<ChangeSet inserted: \(inserted.count), updated: \(updated.count), deleted: \(deleted.count)>"
    }
}

/// Hands each save's change set to every subscriber of `ManagedContainer.changes`.
final class ChangeBroadcaster: Sendable {
    private struct State {
        var nextID = 0
        var subscribers: [Int: AsyncStream<ChangeSet>.Continuation] = [:]
    }
    private let state = Mutex(State())

    /// A new subscription: every change set published from now on, until the stream is dropped.
    func subscribe() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            state.subscribers[state.nextID] = continuation
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func publish(_ changes: ChangeSet) {
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers { subscriber.yield(changes) }
    }
}
