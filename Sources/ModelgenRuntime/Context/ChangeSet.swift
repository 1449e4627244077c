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

extension ChangeSet {
    /// The change set as the JSON `JSONEncoder` with sorted keys writes (what the stores' history rows
    /// hold, and `JSONDecoder` reads back), written directly: a batch of thousands of records is
    /// recorded in a fraction of the encoder's time. Updated records are listed in key order.
    package func historyJSON() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + (deleted.count + inserted.count + updated.count) * 40)
        func append(_ literal: StaticString) {
            literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }
        // Names are few (entity and property names): each is encoded by JSONEncoder once.
        var encoded: [String: [UInt8]] = [:]
        var last: (name: String, json: [UInt8])?
        func appendString(_ string: String) {
            if let last, last.name == string { return bytes.append(contentsOf: last.json) }
            let json = encoded[string] ?? (try? JSONEncoder().encode(string)).map(Array.init) ?? Array("\"\"".utf8)
            encoded[string] = json
            last = (string, json)
            bytes.append(contentsOf: json)
        }
        func append(_ id: ObjectID) {
            append("{\"entityName\":")
            appendString(id.entityName)
            append(",\"key\":")
            withDecimalDigits(of: id.key) { bytes.append(contentsOf: $0) }
            bytes.append(UInt8(ascii: "}"))
        }
        append("{\"deleted\":[")
        for (index, id) in deleted.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(id)
        }
        append("],\"inserted\":[")
        for (index, id) in inserted.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(id)
        }
        // A dictionary keyed by a non-string type: JSONEncoder's flat array of key, value, key, value.
        append("],\"updated\":[")
        for (index, entry) in updated.sorted(by: { ($0.key.key, $0.key.entityName) < ($1.key.key, $1.key.entityName) }).enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            append(entry.key)
            append(",[")
            for (position, name) in entry.value.sorted().enumerated() {
                if position > 0 { bytes.append(UInt8(ascii: ",")) }
                appendString(name)
            }
            bytes.append(UInt8(ascii: "]"))
        }
        append("]}")
        return Data(bytes)
    }
}
