import Foundation
import ModelgenPredicate

/// One record as a store keeps it: stored (non-transient) property values by slot, relationships as IDs.
public struct StoreRow: Sendable, Hashable {
    /// The record's object ID.
    public var id: ObjectID
    /// Incremented by every save that changes the record (optimistic locking).
    public var version: Int64
    /// Values for every slot of the entity's layout; transient slots hold `.null`.
    public var values: [StoreValue]
    /// False when the row came from a fetch that left to-many relationships out (their slots hold
    /// `.null`); the context asks `toManyIDs(of:relationship:)` when the object's fault fires.
    public var hasToManyValues: Bool

    /// Creates a row.
    public init(id: ObjectID, version: Int64, values: [StoreValue], hasToManyValues: Bool = true) {
        self.id = id
        self.version = version
        self.values = values
        self.hasToManyValues = hasToManyValues
    }
}

/// What one save asks a store to do, all or nothing.
public struct StoreChanges: Sendable {
    /// New records, with temporary IDs (references to other new records use their temporary IDs too).
    public var inserted: [StoreRow] = []
    /// Changed records: their new values and the version the context last saw.
    public var updated: [StoreRow] = []
    /// Deleted records and the version the context last saw.
    public var deleted: [(id: ObjectID, version: Int64)] = []
    /// With `force`, version checks are skipped (merge policy: the context's changes win).
    public var force = false
    /// The names of the changed properties of each updated record (for the store's history).
    public var changedKeys: [ObjectID: Set<String>] = [:]
    /// Who saves: recorded in the store's history (`ManagedContainer.historyAuthor`).
    public var author = ""
    /// What the save writes of each updated record, by ID (property-level saves). A record of
    /// `updated` without an entry is written whole: every column, and its to-many relationships
    /// replaced by the row's lists (changes made by hand, and `MergePolicy.overwrite`).
    public var writes: [ObjectID: RecordWrite] = [:]
    /// A serializable save's reads, verified in the committing transaction before anything is written
    /// (`StoreReadSet.verify`); nil for other saves.
    public var reads: StoreReadSet?

    /// Hears the committed change set right after the commit and before the store commits anything
    /// else, so that a process hears its own saves in commit order (the saving context publishes
    /// through it). When a store does not call it, the context publishes after `commit` returns.
    public var published: (@Sendable (ChangeSet) -> Void)?

    /// True when the save writes nothing (a serializable save that only read: its reads are verified).
    public var writesNothing: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Empty changes.
    public init() {}
}

extension StoreChanges {
    /// Optimistic locking, as every store runs it in its committing transaction before writing
    /// anything: each updated record must still have the version the context read (one changed only
    /// in its to-many relationships must only still exist), each deleted one that still exists too.
    /// `current` gives a record's version in the store, nil when it is gone. Throws one
    /// `MergeConflictError` naming every clash; a forced save (`force`) is not checked.
    public func checkVersions(current: (ObjectID) throws -> Int64?) throws {
        guard !force else { return }
        var conflicts: [StoreConflict] = []
        for row in updated {
            let version = try current(row.id)
            let clashes = writes[row.id]?.isMembershipOnly == true ? version == nil : version != row.version
            if clashes { conflicts.append(StoreConflict(id: row.id, expectedVersion: row.version, currentVersion: version)) }
        }
        for (id, read) in deleted {
            if let version = try current(id), version != read {
                conflicts.append(StoreConflict(id: id, expectedVersion: read, currentVersion: version))
            }
        }
        if !conflicts.isEmpty { throw MergeConflictError(conflicts: conflicts) }
    }

    /// Checks the constraints that span rows, which a context validated on what it had read but which
    /// another save may have changed since: a store calls it inside its committing transaction, after
    /// applying the changes, so concurrent saves cannot break them together (two adds to a member
    /// holding 11 of at most 12 loans: the second commit fails). Checked: the `min`/`max` member count
    /// of every to-many relationship the save changed (a required one needs one member), and the
    /// `deny` rule of every record the save deleted (no record may still point at it). `members`
    /// counts a record's members in a to-many relationship as stored now; `referrers` counts the
    /// records still pointing at a deleted record through the inverse of one of its relationships.
    /// Throws a `ValidationError` naming each record, relationship and bound; the store rolls back.
    public func checkConstraintsSpanningRows(model: ManagedObjectModel,
                                             members: (ObjectID, Int) throws -> Int,
                                             referrers: (ObjectID, Int) throws -> Int) throws {
        var failures: [ValidationError.Failure] = []
        for (id, write) in writes where !write.toMany.isEmpty {
            guard let entity = model.entity(named: id.entityName) else { continue }
            for slot in write.toMany.keys.sorted() {
                guard case .relationship(let r) = entity.properties[slot], r.minCount != nil || r.maxCount != nil || !r.isOptional else { continue }
                let count = try members(id, slot)
                let minimum = r.minCount ?? (r.isOptional ? 0 : 1)
                if count < minimum {
                    failures.append(.init(objectID: id, key: r.name, message: "has \(count) objects, needs at least \(minimum) (another save removed some meanwhile)"))
                }
                if let maximum = r.maxCount, count > maximum {
                    failures.append(.init(objectID: id, key: r.name, message: "has \(count) objects, allows at most \(maximum) (another save added some meanwhile)"))
                }
            }
        }
        for (id, _) in deleted {
            guard let entity = model.entity(named: id.entityName) else { continue }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, r.deleteRule == .deny, entity.destination(ofSlot: slot).inverseSlot != nil else { continue }
                let count = try referrers(id, slot)
                if count > 0 {
                    failures.append(.init(objectID: id, key: r.name, message: "delete denied: still related to \(count) record\(count == 1 ? "" : "s") (another save added \(count == 1 ? "it" : "them") meanwhile)"))
                }
            }
        }
        if !failures.isEmpty { throw ValidationError(failures) }
    }
}

/// What a property-level save writes of one updated record: the columns of the properties it changed,
/// and the members its to-many relationships gained and lost. Another save's changes to the record's
/// other properties and members stay as they are.
///
/// A record whose only changes are to-many relationships (a book added to a branch: the branch's
/// `books` grew, its own row did not change) has no `columns`: its row is neither written nor
/// version-checked, and it keeps its version, so saves adding members to one record never conflict.
/// The members live in other rows (their to-one columns, or join rows): the deltas say which.
public struct RecordWrite: Sendable, Hashable {
    /// Slots of the record's own columns (attributes and to-one relationships) the save changed, ascending.
    public var columns: [Int]
    /// The to-many relationships the save changed, by slot.
    public var toMany: [Int: ToManyDelta]

    /// A write (for store implementations and tests).
    public init(columns: [Int] = [], toMany: [Int: ToManyDelta] = [:]) {
        self.columns = columns
        self.toMany = toMany
    }

    /// True when the record's own row is not written (only its to-many relationships changed).
    public var isMembershipOnly: Bool { columns.isEmpty }
}

/// How a save changed one to-many relationship of a record.
public struct ToManyDelta: Sendable, Hashable {
    /// Members the save added (not held before), in the relationship's order.
    public var added: [ObjectID]
    /// Members the save removed.
    public var removed: [ObjectID]
    /// For an ordered relationship whose order the save set: its members as the saving context has them.
    public var order: [ObjectID]?

    /// A delta (for store implementations and tests).
    public init(added: [ObjectID] = [], removed: [ObjectID] = [], order: [ObjectID]? = nil) {
        self.added = added
        self.removed = removed
        self.order = order
    }

    /// `members` (what the store holds) with this delta applied: removed ones gone, added ones at the
    /// end, and, for an ordered relationship, the saving context's order, with the members another save
    /// added meanwhile kept where they are relative to the members this save knew: those after all of
    /// them (appends) after the last member this save knew, others right after the member they follow
    /// in the store. So appends stay in commit order: two saves that each append to one list, read
    /// before either committed, leave the first save's element before the second's.
    public func applied(to members: [ObjectID]) -> [ObjectID] {
        applied(to: members, key: { $0 })
    }

    /// The same over members named by `key` (a SQL store's row keys: the members of one relationship
    /// are rows of one table).
    package func applied<Key: Hashable>(to members: [Key], key: (ObjectID) -> Key) -> [Key] {
        let gone = Set(removed.map(key))
        var result = members.filter { !gone.contains($0) }
        var present = Set(result)
        for member in added.map(key) where present.insert(member).inserted { result.append(member) }
        guard let order else { return result }
        let ordered = order.map(key).filter(present.contains)
        let placed = Set(ordered), new = Set(added.map(key))
        // Members this save did not place (another save added them): those after every member this save
        // knew are appends, kept after the last member it knew; others follow the nearest member before
        // them in the store that this save knew (nil: the start of the list).
        var following: [Key?: [Key]] = [:]
        var anchor: Key?, tail: [Key] = []
        for member in members where !gone.contains(member) {
            if placed.contains(member) && !new.contains(member) {
                following[anchor, default: []] += tail
                tail = []
                anchor = member
            } else if !placed.contains(member) {
                tail.append(member)
            }
        }
        let lastKnown = ordered.last { !new.contains($0) }
        var merged = (following[nil] ?? []) + (lastKnown == nil ? tail : [])
        merged.reserveCapacity(result.count)
        for member in ordered {
            merged.append(member)
            guard !new.contains(member) else { continue }
            if let after = following[member] { merged += after }
            if member == lastKnown { merged += tail }
        }
        return merged
    }
}

/// What a store answers to a successful commit, in the order of the changes it was given
/// (arrays, not dictionaries: a save of 100,000 objects should not hash 100,000 IDs to read it).
public struct StoreCommitResult: Sendable {
    /// Permanent IDs of the inserted records, in the order of `StoreChanges.inserted` (their version is 1).
    public var insertedIDs: [ObjectID]
    /// New versions of the updated records, in the order of `StoreChanges.updated`.
    public var updatedVersions: [Int64]

    /// Creates a result.
    public init(insertedIDs: [ObjectID], updatedVersions: [Int64]) {
        self.insertedIDs = insertedIDs
        self.updatedVersions = updatedVersions
    }
}

/// A record changed by someone else since the context read it.
public struct StoreConflict: Sendable, Hashable {
    /// The record.
    public var id: ObjectID
    /// The version the context read.
    public var expectedVersion: Int64
    /// The store's version, or nil when the record was deleted.
    public var currentVersion: Int64?

    /// A conflict (for store implementations).
    public init(id: ObjectID, expectedVersion: Int64, currentVersion: Int64?) {
        self.id = id
        self.expectedVersion = expectedVersion
        self.currentVersion = currentVersion
    }
}

/// Thrown by a save whose records changed underneath it (with merge policy `.error`): which records,
/// and, property by property, what the saving context read, what it would have written and what the
/// store holds now (Core Data's `NSMergeConflict` with its object, cached and persisted snapshots).
/// Nothing was written.
public struct MergeConflictError: Error, Sendable, CustomStringConvertible {
    /// Every conflicting record.
    public var conflicts: [StoreConflict]
    /// The conflicting objects, each with its clashing properties (filled in by the saving context;
    /// empty when a store throws the error).
    public var objects: [ObjectConflict] = []

    /// An error listing every conflicting record (for store implementations).
    public init(conflicts: [StoreConflict]) { self.conflicts = conflicts }

    public var description: String {
        if !objects.isEmpty {
            return "save conflicts with newer saves: " + objects.map(\.description).joined(separator: "; ")
        }
        return "save conflicts with newer saves: " + conflicts.map { c in
            "\(c.id) (read version \(c.expectedVersion), store has \(c.currentVersion.map(String.init) ?? "deleted it"))"
        }.joined(separator: ", ")
    }
}

/// One object of a `MergeConflictError`: what this context did to it and what another save did.
public struct ObjectConflict: Sendable, Hashable, CustomStringConvertible {
    /// The object's record.
    public var id: ObjectID
    /// True when this context deleted the object (another save changed it since it was read).
    public var deletedHere: Bool
    /// True when another save deleted the record (this context changed it).
    public var deletedInStore: Bool
    /// The properties that differ between what the context read, what it has now and what the store
    /// holds: each one this context changed, and each one another save changed.
    public var properties: [PropertyConflict]

    /// A conflict (the saving context makes them).
    public init(id: ObjectID, deletedHere: Bool, deletedInStore: Bool, properties: [PropertyConflict]) {
        self.id = id
        self.deletedHere = deletedHere
        self.deletedInStore = deletedInStore
        self.properties = properties
    }

    public var description: String {
        if deletedInStore { return "\(id) was deleted by another save; this context changed \(properties.map(\.key).joined(separator: ", "))" }
        let what = properties.map { p in "\(p.key): read \(p.readValue.readableText), now \(p.newValue.readableText), stored \(p.storedValue?.readableText ?? "deleted")" }
        return "\(id)\(deletedHere ? " (deleted here)" : ""): " + what.joined(separator: ", ")
    }
}

/// One property of an `ObjectConflict`: the value the context read, its value in the context now
/// (what the save would write), and the value the store holds (nil: the record is gone).
/// Relationships are given as `.reference` / `.references` of object IDs.
public struct PropertyConflict: Sendable, Hashable {
    /// The property's name.
    public var key: String
    /// What the context read (its snapshot of the record).
    public var readValue: StoreValue
    /// What the context has now.
    public var newValue: StoreValue
    /// What the store holds now; nil when the record is gone.
    public var storedValue: StoreValue?

    /// A property conflict.
    public init(key: String, readValue: StoreValue, newValue: StoreValue, storedValue: StoreValue?) {
        self.key = key
        self.readValue = readValue
        self.newValue = newValue
        self.storedValue = storedValue
    }

    /// True when this context changed the property.
    public var changedHere: Bool { readValue != newValue }
    /// True when another save changed the property (or deleted the record).
    public var changedInStore: Bool { storedValue != readValue }
}

/// A store refused a save because a record would break a uniqueness constraint of the model: another
/// connection (another container, process or server) saved the same values after the saving context
/// checked them. Nothing was written. `ManagedObjectContext.save()` catches it, checks the constraints
/// again and lets its merge policy decide; it reaches callers only when the colliding records cannot
/// be told (for example a record saved and deleted again meanwhile, three times over).
public struct UniquenessViolationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares the constraint, and the constraint's attribute names (both empty when
    /// the store cannot tell).
    public var entityName: String
    /// See `entityName`.
    public var constraint: [String]
    /// What the store's database said.
    public var message: String

    /// A violation (for store implementations).
    public init(entityName: String, constraint: [String], message: String) {
        self.entityName = entityName
        self.constraint = constraint
        self.message = message
    }

    /// A violation of the unique index a store made for a constraint: its name is
    /// `Entity.unique(a,b)` (the SQLite and PostgreSQL layouts name them so).
    public init(indexName: String, message: String) {
        var entity = "", names: [String] = []
        if let open = indexName.range(of: ".unique("), indexName.hasSuffix(")") {
            entity = String(indexName[..<open.lowerBound])
            names = indexName[open.upperBound..<indexName.index(before: indexName.endIndex)].split(separator: ",").map(String.init)
        }
        self.init(entityName: entity, constraint: names, message: message)
    }

    public var description: String {
        let what = entityName.isEmpty ? "a uniqueness constraint" : "uniqueness constraint \(entityName).unique(\(constraint.joined(separator: ",")))"
        return "the save breaks \(what) (another connection saved the same values first): \(message); nothing was saved"
    }
}

/// The boundary between contexts and storage. A store keeps rows, answers which
/// records an entity has, and commits a save's changes atomically: either every
/// change is applied or none is. The in-memory store and the SQLite store both
/// implement it; contexts do everything else (objects, uniquing, change tracking,
/// validation, predicates on unsaved changes).
public protocol PersistentStore: AnyObject, Sendable {
    /// The model the store holds records of.
    var model: ManagedObjectModel { get }
    /// The IDs of all records of the given entities, in a stable order (by key).
    func recordIDs(of entityNames: [String]) throws -> [ObjectID]
    /// The row of a record, or nil when there is none.
    func row(for id: ObjectID) throws -> StoreRow?
    /// Applies a save: checks versions (unless forced), then applies every change or none.
    /// Throws `MergeConflictError` listing every conflicting record, `UniquenessViolationError` when a
    /// written record breaks a uniqueness constraint of the model.
    func commit(_ changes: StoreChanges) throws -> StoreCommitResult
    /// The IDs a to-many relationship of a record holds (see the default in the extension).
    func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID]
    /// The IDs one to-many relationship holds for each of several records of one entity (or of
    /// subentities of one), with as few queries as the store can (see the default in the extension).
    func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]]
    /// The rows of several records at once, for loading a batch (see the default in the extension).
    func rows(for ids: [ObjectID]) throws -> [StoreRow]
    /// The saves recorded after `token` (0: all kept), oldest first; empty for a store without history.
    func historyTransactions(after token: Int64) throws -> [HistoryTransaction]
    /// The token of the newest save in the history (0 when there is none).
    func latestHistoryToken() throws -> Int64
    /// Drops the history up to and including `token`.
    func pruneHistory(through token: Int64) throws
    /// A number that changes when another connection (process) commits to the store, nil when the store
    /// cannot be written from elsewhere (the in-memory store).
    func externalChangeCounter() throws -> Int64?
    /// Signals, as they happen, that `externalChangeCounter()` may have moved (a store told of other
    /// connections' commits, PostgreSQL's `NOTIFY`), so the container's watcher looks at once instead of
    /// at its next interval; nil for stores that can only be polled. Default: nil.
    func externalChangeSignals() -> AsyncStream<Void>?
}

/// A store that runs queries itself (as SQL): fetches, counts, aggregates, prefetched members and
/// batch changes go to it, and the context evaluates on objects only what the store answers nil for,
/// which means one thing: the query is not expressible in the store's language (`queryPlan` says
/// why, and the container reports it: `onInMemoryFetch`). Every other failure is thrown.
public protocol QueryingStore: PersistentStore {
    /// Calls `body` with each row matching a query (sorted, its window applied), and returns true;
    /// false (and no call) when the query is not expressible here. A store may reuse the row's storage
    /// between calls, and `body` must not call the store (it may hold a lock); copying the row keeps it.
    func fetch(_ query: StoreQuery, each body: (StoreRow) throws -> Void) throws -> Bool
    /// The IDs of the records matching a query, sorted, its window applied, without their rows.
    func fetchIDs(_ query: StoreQuery) throws -> ObjectIDList?
    /// The number of records matching a query.
    func count(_ query: StoreQuery) throws -> Int?
    /// The records matching a query (its sorts and window not used) grouped by `groupBy`, one row per
    /// group with its keys and `columns` (see `AggregateRequest`), in no particular order.
    func aggregate(_ query: StoreQuery, groupBy: [String], columns: [AggregateColumn]) throws -> [AggregateRow]?
    /// The values `properties` name of each record matching a query, sorted, its window applied (see
    /// `ProjectionRequest`); nil when the store does not (the context reads them from objects).
    func project(_ query: StoreQuery, properties: [ProjectedProperty]) throws -> [ProjectedRow]?
    /// The lists of `toManyIDs(of:relationship:)` with the members' rows, when the store reads both
    /// in one statement (prefetching uses them; see the default in the extension).
    func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?)
    /// Deletes the records a query matches (its window applied) with set-based statements — `DELETE …
    /// WHERE`, and one statement per relationship for the related records (`nullify`: their column
    /// cleared and version bumped, or their join rows deleted) — in one transaction with a history
    /// row, and returns what changed: the deleted records and the related records that lost them, with
    /// the relationship's name. Called only when `ManagedObjectModel.allowsSetBasedDeletion(of:)`
    /// holds; nil when the store does not (the context then reads the records and commits their
    /// deletion as a save).
    func deleteMatching(_ query: StoreQuery, author: String) throws -> ChangeSet?
    /// Sets stored attributes (by slot; values checked by the caller) of the records a query matches
    /// with one `UPDATE … WHERE` (versions bumped), in one transaction with a history row; returns the
    /// updated records with the attributes' names. Throws `UniquenessViolationError` when the values
    /// break a uniqueness constraint (nothing is changed); nil when the store does not.
    func updateMatching(_ query: StoreQuery, set values: [Int: StoreValue], author: String) throws -> ChangeSet?
    /// How the store would run a query: its database's plan (SQLite's `EXPLAIN QUERY PLAN`,
    /// PostgreSQL's `EXPLAIN`), or why the context evaluates it on objects instead.
    func queryPlan(_ query: StoreQuery) throws -> QueryPlan
}

/// How a fetch runs: as SQL in the store (with the database's plan, one line a step), or on objects
/// in the context, and why (a predicate the store cannot translate, or a store that runs no queries).
public enum QueryPlan: Sendable, Hashable, CustomStringConvertible {
    /// Runs as this SQL (with the database's plan).
    case sql(String)
    /// Runs on objects in the context, for this reason.
    case inMemory(reason: String)

    /// The database's plan; nil for an in-memory evaluation.
    public var sqlPlan: String? {
        if case .sql(let plan) = self { return plan }
        return nil
    }

    public var description: String {
        switch self {
        case .sql(let plan): return plan
        case .inMemory(let reason): return "in memory: \(reason)"
        }
    }
}

/// A fetch that a store running queries could not run, evaluated on objects instead: every record of
/// the entities is loaded. What `ManagedContainer.onInMemoryFetch(_:)` hears.
public struct InMemoryFetch: Sendable, Hashable, CustomStringConvertible {
    /// The entity fetched.
    public var entityName: String
    /// The predicate as text (nil: none).
    public var predicate: String?
    /// What the store's translation could not express.
    public var reason: String

    public var description: String {
        "ModelgenRuntime: a fetch of \(entityName)\(predicate.map { " where \($0)" } ?? "") runs in memory, loading every record: \(reason)"
    }
}

/// One save as a store's history keeps it (`ManagedContainer.history(after:)`).
public struct HistoryTransaction: Sendable, Hashable {
    /// Its place in the history: pass it to `history(after:)` to read what came later.
    public var token: Int64
    /// The saving container's `historyAuthor`.
    public var author: String
    /// When the save happened.
    public var timestamp: Date
    /// What the save changed.
    public var changes: ChangeSet

    /// A transaction.
    public init(token: Int64, author: String, timestamp: Date, changes: ChangeSet) {
        self.token = token
        self.author = author
        self.timestamp = timestamp
        self.changes = changes
    }
}

extension PersistentStore {
    /// No history (the in-memory store lives in one process: its saves reach contexts directly).
    public func historyTransactions(after token: Int64) throws -> [HistoryTransaction] { [] }
    public func latestHistoryToken() throws -> Int64 { 0 }
    public func pruneHistory(through token: Int64) throws {}
    public func externalChangeCounter() throws -> Int64? { nil }
    public func externalChangeSignals() -> AsyncStream<Void>? { nil }
}

/// A fetch a store can run itself (the SQLite store translates it to SQL). Variables are already
/// given as store values (objects as `.reference` of their IDs).
public struct StoreQuery: Sendable {
    /// The entities whose records qualify (the requested one and, usually, its subentities).
    public var entityNames: [String]
    /// The requested entity (key paths start there).
    public var entityName: String
    /// Which records qualify (nil: all of `entityNames`).
    public var predicate: ModelgenPredicate.Predicate?
    /// Values for the predicate's `$VARIABLES`, by name without `$`.
    public var variables: [String: QueryValue]
    /// The order of the results.
    public var sortDescriptors: [SortDescriptor]
    /// At most this many results (nil: no limit).
    public var fetchLimit: Int?
    /// Results to skip first.
    public var fetchOffset: Int
    /// For an aggregate: which groups are kept (`AggregateRequest.having`), over group key paths and
    /// column names. A store may apply it (SQL `HAVING`) or leave it; the context filters the groups
    /// it returns by it either way.
    public var having: ModelgenPredicate.Predicate?
    /// To-many relationships (slots of `entityName`'s records) a fetch is about to prefetch: a store
    /// may return their members in the fetched rows (`.references` in those slots), read in the
    /// fetch's own statement, and leaves the slots `.null` otherwise.
    public var toManySlotsWithRows: [Int] = []

    /// A query (contexts make them from fetch requests; store authors and tests may too).
    public init(entityNames: [String], entityName: String, predicate: ModelgenPredicate.Predicate? = nil,
                variables: [String: QueryValue] = [:], sortDescriptors: [SortDescriptor] = [],
                fetchLimit: Int? = nil, fetchOffset: Int = 0) {
        self.entityNames = entityNames
        self.entityName = entityName
        self.predicate = predicate
        self.variables = variables
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.fetchOffset = fetchOffset
    }
}

/// A `$VARIABLE`'s value in a store query: one value or a list (for `IN`).
public enum QueryValue: Sendable, Hashable {
    /// One value.
    case value(StoreValue)
    /// A list (the right side of `IN`).
    case list([StoreValue])
}

extension PersistentStore {
    /// The rows of the given records, in no particular order; records that are gone are left out.
    /// Rows may leave to-many relationships out (`hasToManyValues` false). Default: `row(for:)` per ID.
    public func rows(for ids: [ObjectID]) throws -> [StoreRow] {
        try ids.compactMap { try row(for: $0) }
    }

    /// The members of one to-many relationship of several records, each in order (every given record
    /// has an entry, empty when it has none). The SQL stores answer with one query per few hundred
    /// records, so loading a list of objects costs a constant number of queries per relationship, not
    /// one per object. Default: `toManyIDs(of:relationship:)` for each record.
    public func toManyIDs(of ids: [ObjectID], relationship slot: Int) throws -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        for id in ids { result[id] = try toManyIDs(of: id, relationship: slot) }
        return result
    }

    /// The IDs a to-many relationship of a record holds, in order. Default: read from the whole row.
    public func toManyIDs(of id: ObjectID, relationship slot: Int) throws -> [ObjectID] {
        guard let row = try row(for: id), slot < row.values.count, case .references(let ids) = row.values[slot] else { return [] }
        return ids
    }
}

extension QueryingStore {
    /// Rows matching a query, sorted, its window applied; nil when the query is not expressible here.
    public func fetch(_ query: StoreQuery) throws -> [StoreRow]? {
        var rows: [StoreRow] = []
        return try fetch(query) { rows.append($0) } ? rows : nil
    }

    /// The members of one to-many relationship of several records (as `toManyIDs(of:relationship:)`)
    /// and, when the store reads them in the same statement, the members' rows (the SQL stores do, for a
    /// relationship kept by its inverse or through a join table). Default: the lists alone
    /// (`rows` nil), the members' rows being read afterwards like any faults'.
    public func toManyMembersWithRows(of ids: [ObjectID], relationship slot: Int) throws -> (lists: [ObjectID: [ObjectID]], rows: [StoreRow]?) {
        (try toManyIDs(of: ids, relationship: slot), nil)
    }

    /// Default: nil (the context reads the values from objects).
    public func project(_ query: StoreQuery, properties: [ProjectedProperty]) throws -> [ProjectedRow]? { nil }
}

/// The member lists a store's `toManyIDs(of:relationship:)` answers, gathered as it reads (owner key,
/// member) pairs: every record asked for has a list, empty when it has no members.
package typealias MemberLists = OwnerLists<ObjectID>

/// A list of members for each of a set of records of one table, filled from (owner key, member)
/// pairs as a store reads them: `MemberLists` (IDs, a store's answer), or the context's lists of
/// objects while SQLite streams a prefetch (`SQLiteStore.forEachMember`).
package struct OwnerLists<Member> {
    private var ids: [ObjectID]
    private var members: [[Member]]
    /// The index in `ids` of each key (members are found by key: no hashing of entity names per row).
    private var indexes: [RecordKey: Int] = [:]
    /// The owner of the last pair: an owner's members come together, so most pairs look nothing up.
    private var last: (key: Int64, index: Int?)?

    /// Empty lists for `ids` (records of one table: their keys tell them apart).
    package init(_ ids: [ObjectID]) {
        self.ids = []
        self.ids.reserveCapacity(ids.count)
        indexes.reserveCapacity(ids.count)
        for id in ids where indexes[RecordKey(id.key)] == nil {
            indexes[RecordKey(id.key)] = self.ids.count
            self.ids.append(id)
        }
        members = Array(repeating: [], count: self.ids.count)
    }

    /// The keys of the records asked for.
    package var ownerKeys: [Int64] { ids.map(\.key) }

    /// The list of the record with key `key` (empty for a record not asked for).
    package func list(ofOwnerKey key: Int64) -> [Member] {
        indexes[RecordKey(key)].map { members[$0] } ?? []
    }

    /// Appends a member to the list of the record with key `key` (rows of others are ignored).
    package mutating func add(_ member: Member, toOwnerKey key: Int64) {
        if last?.key != key { last = (key, indexes[RecordKey(key)]) }
        guard let index = last!.index else { return }
        members[index].append(member)
    }
}

extension OwnerLists where Member == ObjectID {
    /// The lists by record.
    package var lists: [ObjectID: [ObjectID]] {
        Dictionary(uniqueKeysWithValues: zip(ids, members))
    }
}
