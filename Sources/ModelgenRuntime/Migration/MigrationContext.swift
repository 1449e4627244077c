/// What a custom stage's `didMigrate` works with: `context` on the stage's new version (saves go into
/// the stage's transaction) and `previous`, reading the records as the old version had them (its
/// storage stays until `didMigrate` returns). The same record has the same key in both; a renamed
/// entity (`renamingIdentifier`) has its new name in `context`.
///
/// ```swift
/// try migration.forEachRecord(of: "Customer") { old, new in
///     let parts = (try old.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
///     try new.setValue(parts.first.map(String.init) ?? "", forKey: "firstName")
///     try new.setValue(parts.count > 1 ? String(parts[1]) : "", forKey: "lastName")
/// }
/// ```
public final class MigrationContext {
    /// A context on the stage's new version.
    public let context: ManagedObjectContext
    /// A context on the old version, for reading (its store refuses saves).
    public let previous: ManagedObjectContext
    /// Entity names of the new version by the old version's (a renamed entity's differ).
    let currentNames: [String: String]
    /// The reverse of `currentNames`.
    let previousNames: [String: String]
    let report: (_ completed: Int, _ total: Int) -> Void

    init(context: ManagedObjectContext, previous: ManagedObjectContext, currentNames: [String: String],
         report: @escaping (_ completed: Int, _ total: Int) -> Void) {
        self.context = context
        self.previous = previous
        self.currentNames = currentNames
        self.previousNames = Dictionary(currentNames.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
        self.report = report
    }

    /// The new version's object for the record an old-version object is (a fault until used).
    public func current(of previousObject: ManagedObject) throws -> ManagedObject {
        let id = previousObject.objectID
        guard let name = currentNames[id.entityName] else { throw RuntimeError.unknownEntity(id.entityName + " (removed by the new version)") }
        return context.object(with: ObjectID(entityName: name, key: id.key))
    }

    /// The old version's object for a record of the new version (a fault until used).
    public func previous(of object: ManagedObject) throws -> ManagedObject {
        let id = object.objectID
        guard !id.isTemporaryID, let name = previousNames[id.entityName] else {
            throw RuntimeError.unknownEntity(id.entityName + " (not in the old version, or a record the stage inserted)")
        }
        return previous.object(with: ObjectID(entityName: name, key: id.key))
    }

    /// Calls `body` with every record of `entityName` (its name in the new version; subentities'
    /// records included) as the old version had it and as the new version has it, loading
    /// `batchSize` records of each with one query, then saving `context` and resetting both
    /// contexts (so memory stays bounded at any row count; keep IDs, not objects, across batches).
    /// Reports each batch to the plan's `progress`.
    public func forEachRecord(of entityName: String, batchSize: Int = 1_000,
                              _ body: (_ previous: ManagedObject, _ current: ManagedObject) throws -> Void) throws {
        precondition(batchSize > 0, "batchSize must be positive")
        guard let previousName = previousNames[entityName] else {
            throw RuntimeError.unknownEntity(entityName + " (the old version has no such entity: a new entity has no records yet)")
        }
        let ids = try previous.fetchIDs(FetchRequest<ManagedObject>(entityName: previousName))
        var done = 0
        report(0, ids.count)
        while done < ids.count {
            let chunk = Array(ids[done..<min(done + batchSize, ids.count)])
            let olds = chunk.map { previous.object(with: $0) }
            let currentIDs = try chunk.map { id -> ObjectID in
                guard let name = currentNames[id.entityName] else { throw RuntimeError.unknownEntity(id.entityName + " (removed by the new version)") }
                return ObjectID(entityName: name, key: id.key)
            }
            let news = currentIDs.map { context.object(with: $0) }
            // Loaded now, together: a to-many relationship one of them needs (a change loads them) is
            // then read for the whole batch with one query, not one per record.
            try previous.fulfillFaults(olds)
            try context.fulfillFaults(news)
            for (old, new) in zip(olds, news) { try body(old, new) }
            try context.save()
            context.reset()
            previous.reset()
            done += chunk.count
            report(done, ids.count)
        }
    }
}
