/// The results of `context.fetch(_:batchSize:)`: every matching object by position, loaded one batch
/// at a time as it is reached. Holds the IDs of all results and the objects of one batch.
/// Like the context it comes from, not Sendable; use it where the context is used.
public struct FetchResultsCollection<Result: ManagedObject>: RandomAccessCollection {
    let loader: BatchLoader

    /// The IDs of the results, in order.
    public var objectIDs: ObjectIDList { loader.ids }
    /// The number of objects per batch.
    public var batchSize: Int { loader.batchSize }

    public var startIndex: Int { 0 }
    public var endIndex: Int { loader.ids.count }

    /// The object at a position; reaching another batch loads it and releases the previous one.
    public subscript(position: Int) -> Result {
        precondition(position >= 0 && position < endIndex, "index \(position) out of range 0..<\(endIndex)")
        // The IDs were of this type's entity (or subentities) when fetched.
        return loader.object(at: position) as! Result
    }
}

/// Loads and releases the batches of a `FetchResultsCollection`.
final class BatchLoader {
    let context: ManagedObjectContext
    let ids: ObjectIDList
    let batchSize: Int
    private var batchStart = -1
    private var objects: [ManagedObject?] = []

    init(context: ManagedObjectContext, ids: ObjectIDList, batchSize: Int) {
        self.context = context
        self.ids = ids
        self.batchSize = batchSize
    }

    deinit { releaseBatch() }

    func object(at position: Int) -> ManagedObject {
        let start = position - position % batchSize
        if start != batchStart { loadBatch(at: start) }
        return objects[position - start]!
    }

    private func loadBatch(at start: Int) {
        releaseBatch()
        let batchIDs = Array(ids[start..<min(start + batchSize, ids.count)])
        do {
            let batch = batchIDs.map { context.object(with: $0) }
            try context.fulfillFaults(batch)
            objects = batch
        } catch {
            preconditionFailure("ModelgenRuntime: could not load objects \(start)..<\(start + batchIDs.count) of a batched fetch: \(error)")
        }
        batchStart = start
    }

    private func releaseBatch() {
        for index in objects.indices {
            guard var object = objects[index] else { continue }
            objects[index] = nil
            context.releaseIfUnused(&object)
        }
        objects = []
        batchStart = -1
    }
}
