import Foundation
import ModelgenPredicate
import Synchronization

/// How a child context reaches its parent: directly (both in one isolation), or on the main queue
/// (a background child of the main context, which waits there as Core Data's `performAndWait` does).
struct ParentLink: @unchecked Sendable {
    /// How the parent's isolation is entered.
    enum Access {
        /// The child runs where the parent does (`newChildContext()`).
        case direct
        /// The parent is the main actor's; the child runs on a background actor (`performChildTask`).
        case mainQueue
    }

    /// The context the child saves into (held strongly: a child keeps its parent alive).
    let parent: ManagedObjectContext
    let access: Access

    /// Runs `body` with the parent, in the parent's isolation.
    func withParent<T>(_ body: (ManagedObjectContext) throws -> T) throws -> T {
        switch access {
        case .direct:
            return try body(parent)
        case .mainQueue:
            if DispatchQueue.getSpecific(key: mainQueueKey) == true { return try body(parent) }
            // The parent is the main actor's: entered synchronously on the main queue, which this call
            // waits for (the caller is a background child; the main actor awaits it, so the queue is free).
            nonisolated(unsafe) let body = body
            nonisolated(unsafe) let parent = parent
            nonisolated(unsafe) var result: Result<T, any Error>?
            DispatchQueue.main.sync { result = Result { try body(parent) } }
            return try result!.get()
        }
    }
}

/// The "store" of a child context: its parent context as it is now, unsaved changes included. Rows
/// come from the parent's objects where it holds them (its inserts and edits) and from the parent's
/// own store otherwise; fetches run as the parent's fetches (in SQL where the parent's store can);
/// a commit applies the child's save to the parent's objects (`ManagedObjectContext.applyChildSave`)
/// and never touches the store.
final class ParentContextStore: QueryingStore, @unchecked Sendable {
    let link: ParentLink

    init(link: ParentLink) { self.link = link }

    var model: ManagedObjectModel { link.parent.model }

    func recordIDs(of entityNames: [String]) throws -> [ObjectID] {
        try link.withParent { parent in
            let names = Set(entityNames)
            let deleted = Set(parent.deleted.objects.map(\.objectID))
            var ids = try parent.store.recordIDs(of: entityNames).filter { !deleted.contains($0) }
            ids += parent.inserted.objects.filter { names.contains($0.entity.name) }.map(\.objectID)
            return ids
        }
    }

    func row(for id: ObjectID) throws -> StoreRow? {
        try link.withParent { parent in try parent.rowForChild(id) }
    }

    func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        try link.withParent { parent in try parent.rowsForChild(ids) }
    }

    func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] {
        try link.withParent { parent in
            let id = parent.resolvedID(id)
            if let object = parent.registered[id], !object._isFault {
                return object._isDeleted ? [] : object.objects(inSlot: slot).map(\.objectID)
            }
            return try parent.store.toManyIDs(of: id, relationship: slot)
        }
    }

    func commit(_ changes: StoreChanges) throws -> StoreCommitResult {
        try link.withParent { parent in try parent.applyChildSave(changes) }
        // The records keep the IDs the child gave them (temporary ones from the child's own block).
        return StoreCommitResult(insertedIDs: changes.inserted.map(\.id), updatedVersions: changes.updated.map(\.version))
    }

    // A query runs in the parent's store as it is when the parent holds no unsaved change of its
    // entities (in SQL on the SQL stores, loading nothing into the parent); otherwise as the parent's
    // own fetch, which judges its unsaved changes on their objects.

    func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool {
        let rows = try link.withParent { parent in
            if parent.holdsNoChanges(of: query), let rows = try parent.queryingStore?.fetch(query) { return rows }
            return try parent.fetch(parent.request(for: query)).compactMap { try parent.rowForChild($0.objectID) }
        }
        for row in rows { try body(row) }
        return true
    }

    func count(_ query: StoreQuery) throws -> Int? {
        try link.withParent { parent in
            if parent.holdsNoChanges(of: query), let count = try parent.queryingStore?.count(query) { return count }
            return try parent.count(for: parent.request(for: query))
        }
    }

    func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList? {
        try link.withParent { parent in
            if parent.holdsNoChanges(of: query), let ids = try parent.queryingStore?.fetchIDs(query) { return ids }
            return ObjectIDList(try parent.fetchIDs(parent.request(for: query)))
        }
    }

    func queryPlan(_ query: StoreQuery) throws -> QueryPlan {
        try link.withParent { parent in try parent.queryPlan(for: parent.request(for: query)) }
    }

    // Aggregates and batch changes of a child are computed on its objects and saved into the parent.
    func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]? { nil }
    func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet? { nil }
    func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet? { nil }
}

/// Blocks of temporary keys: every child context takes one, so that the temporary IDs of objects it
/// inserts are unique in the process and stay the same in its parent (a top-level context's keys
/// count down from -1, block 0).
enum TemporaryKeyBlocks {
    private static let last = Atomic<Int64>(0)
    /// Keys per block: a context inserting more than this many objects before a save would run into
    /// the next block.
    static let size: Int64 = 1 << 32

    /// The first (highest) key of a new block.
    static func next() -> Int64 {
        let block = last.add(1, ordering: .relaxed).newValue
        return -(block * size) - 1
    }
}

extension ManagedObjectContext {
    /// The ID a child may still use for an object this context has saved since: the permanent one.
    func resolvedID(_ id: ObjectID) -> ObjectID {
        guard id.isTemporaryID, registered[id] == nil else { return id }
        return savedTemporaryIDs[id] ?? id
    }

    /// A record as a child sees it: this context's object where it holds one (unsaved values
    /// included; nil when it deleted it), the store's row otherwise.
    func rowForChild(_ id: ObjectID) throws -> StoreRow? {
        try rowsForChild([id]).first
    }

    /// The records of `ids` as a child sees them (see `rowForChild(_:)`), those this context does
    /// not hold read from its store in one call; records that are gone are left out.
    func rowsForChild(_ ids: [ObjectID]) throws -> [StoreRow] {
        var rows: [StoreRow] = []
        var stored: [ObjectID] = []
        for id in ids.map(resolvedID) {
            if let object = registered[id], !object._isFault {
                if !object._isDeleted { rows.append(StoreRow(id: object.objectID, version: object.committedVersion, values: storeValues(of: object))) }
            } else if !id.isTemporaryID {
                stored.append(id)
            }
        }
        switch stored.count {
        case 0: return rows
        case 1: return try rows + [store.row(for: stored[0])].compactMap { $0 }
        default: return try rows + store.rows(for: stored)
        }
    }

    /// True when this context has no unsaved insert, change or delete of a query's entities.
    func holdsNoChanges(of query: StoreQuery) -> Bool {
        let names = Set(query.entityNames)
        return !(inserted.objects + updated.objects + deleted.objects).contains { names.contains($0.entity.name) }
    }

    /// A fetch request for a store query a child runs (its variables back as Swift values).
    func request(for query: StoreQuery) throws -> FetchRequest<ManagedObject> {
        var request = FetchRequest<ManagedObject>(entityName: query.entityName, predicate: query.predicate.map(FetchPredicate.init),
                                                  sortDescriptors: query.sortDescriptors, fetchLimit: query.fetchLimit,
                                                  fetchOffset: query.fetchOffset)
        guard let entity = model.entity(named: query.entityName) else { throw RuntimeError.unknownEntity(query.entityName) }
        request.includesSubentities = query.entityNames.count > 1 || entity.selfAndDescendants.count == 1
        request.variables = query.variables.mapValues { value -> Any? in
            switch value {
            case .value(let stored): return stored.variableValue
            case .list(let values): return values.map(\.variableValue)
            }
        }
        return request
    }
}

extension StoreValue {
    /// The value as a fetch request's `$VARIABLE` (references as object IDs).
    var variableValue: Any? {
        switch self {
        case .reference(let id?): return id
        case .references(let ids): return ids
        default: return SlotValue(self).anyValue   // attribute values as Swift values; nil for .reference(nil)
        }
    }
}

extension ParentLink {
    /// The store a child context reads through and saves into: its parent.
    var store: any PersistentStore { ParentContextStore(link: self) }
}
