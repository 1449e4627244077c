/// What a serializable save read (`SaveIsolation.serializable`): the records its context holds, at the
/// versions it holds them, and the to-many relationships it loaded, with the members it loaded. A store
/// verifies it inside the save's transaction, before writing, under locks that keep it true until the
/// commit; when anything differs the save fails with `ReadConflictError` and writes nothing.
public struct StoreReadSet: Sendable {
    /// A to-many relationship as the context loaded it.
    public struct ToManyRead: Sendable {
        /// The owning record.
        public var id: ObjectID
        /// The relationship's property index in its entity.
        public var slot: Int
        /// Its members as loaded (in order when `ordered`).
        public var members: [ObjectID]
        /// Whether the order of `members` counts.
        public var ordered: Bool

        /// A loaded relationship (the saving context makes them).
        public init(id: ObjectID, slot: Int, members: [ObjectID], ordered: Bool) {
            self.id = id
            self.slot = slot
            self.members = members
            self.ordered = ordered
        }
    }

    /// Records read, each with the version read.
    public var records: [(id: ObjectID, version: Int64)] = []
    /// To-many relationships read.
    public var toMany: [ToManyRead] = []

    /// An empty read set.
    public init() {}

    /// True when nothing was read.
    public var isEmpty: Bool { records.isEmpty && toMany.isEmpty }

    /// Throws `ReadConflictError` naming every record whose version is not the one read (`version`
    /// gives the store's current one, nil when the record is gone) and every relationship whose
    /// members are not the ones read (`members` gives the store's current list). A store calls it in
    /// its committing transaction, before writing anything.
    public func verify(model: ManagedObjectModel, version: (ObjectID) throws -> Int64?, members: (ObjectID, Int) throws -> [ObjectID]) throws {
        var conflicts: [StoreConflict] = []
        for (id, read) in records {
            let current = try version(id)
            if current != read { conflicts.append(StoreConflict(id: id, expectedVersion: read, currentVersion: current)) }
        }
        var relationships: [ReadConflictError.Relationship] = []
        for read in toMany {
            let current = try members(read.id, read.slot)
            let same = read.ordered ? current == read.members : Set(current) == Set(read.members)
            if !same {
                let name = model.entity(named: read.id.entityName).map { $0.properties[read.slot].name } ?? "#\(read.slot)"
                relationships.append(.init(id: read.id, name: name))
            }
        }
        if !conflicts.isEmpty || !relationships.isEmpty { throw ReadConflictError(records: conflicts, relationships: relationships) }
    }
}

/// A serializable save failed: records or to-many relationships its context read were changed by
/// other saves since. Nothing was written, whatever the merge policy (a policy settles what a save
/// changed, not what it read); the context keeps its changes. Refresh what it read (or start over in
/// a new context) and run the unit of work again.
public struct ReadConflictError: Error, Sendable, CustomStringConvertible {
    /// A to-many relationship whose members changed.
    public struct Relationship: Sendable, Hashable {
        /// The owning record.
        public var id: ObjectID
        /// The relationship's name.
        public var name: String
    }

    /// Records whose versions changed (or that were deleted) since they were read.
    public var records: [StoreConflict]
    /// To-many relationships whose members changed since they were loaded.
    public var relationships: [Relationship]

    /// An error naming what changed (for store implementations).
    public init(records: [StoreConflict], relationships: [Relationship]) {
        self.records = records
        self.relationships = relationships
    }

    public var description: String {
        let parts = records.map { "\($0.id) (read version \($0.expectedVersion), store has \($0.currentVersion.map(String.init) ?? "deleted it"))" }
            + relationships.map { "\($0.id).\($0.name) (its members changed)" }
        return "serializable save: what it read changed since: " + parts.joined(separator: ", ")
    }
}
