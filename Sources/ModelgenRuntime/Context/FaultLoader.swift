/// What a context's faults load from without asking the store again, and which of them wait to load
/// together: a context's part for faulting (the context's fault-firing methods read and update it).
final class FaultLoader {
    /// Rows a fetch brought for objects still faults: their faults fire from here without another query.
    var rowCache: [ObjectID: StoreRow] = [:]
    /// Faults of fetches with a batch size, by ID: the first of a batch to fire loads the whole batch's rows.
    var batches: [ObjectID: FaultBatch] = [:]
    /// Per entity: the loaded objects whose to-many relationships wait for first use (see
    /// `ManagedObjectContext.loadPendingToMany(of:slot:)`).
    var pendingToMany: [String: PendingToManyQueue] = [:] { didSet { if pendingToMany.isEmpty { lastPendingQueue = nil } } }
    /// The queue `pendingQueue(for:)` gave last, and its entity.
    private var lastPendingQueue: (entity: EntityDescription, queue: PendingToManyQueue)?

    /// The IDs of one batch of a fetch with a batch size.
    final class FaultBatch {
        let ids: [ObjectID]
        init(ids: [ObjectID]) { self.ids = ids }
    }

    /// The objects of one entity whose to-many relationships were left pending, in load order, and how
    /// far each relationship's batches have read the list.
    final class PendingToManyQueue {
        var keys: [Int64] = []
        var heads: [Int: Int] = [:]
    }

    /// The queue of `entity`'s objects with pending to-many relationships (made on first use).
    func pendingQueue(for entity: EntityDescription) -> PendingToManyQueue {
        // Rows of one entity come in runs: the last queue is compared by identity before any hashing.
        if let last = lastPendingQueue, last.entity === entity { return last.queue }
        let queue: PendingToManyQueue
        if let existing = pendingToMany[entity.name] {
            queue = existing
        } else {
            queue = PendingToManyQueue()
            pendingToMany[entity.name] = queue
        }
        lastPendingQueue = (entity, queue)
        return queue
    }
}
