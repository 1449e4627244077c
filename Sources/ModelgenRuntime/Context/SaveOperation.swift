/// One call of `ManagedObjectContext.save()`, from preparing its objects to publishing what it
/// committed. It owns the save's state: the objects it writes, those already prepared, what settling
/// conflicts leaves for after the commit, and its retries.
///
/// 1. Derived attributes are recomputed and `willSave` runs on every object it writes.
/// 2. Every object is validated (model constraints, uniqueness, custom hooks); all failures are
///    thrown together as one `ValidationError`, nothing written. New objects whose unique values a
///    saved record has take that record over, as the merge policy says.
/// 3. The store commits the change set, all or nothing. Two refusals are settled and the commit tried
///    again (`Retry`): records another save changed meanwhile (the merge policy decides, `.error`
///    throws the `MergeConflictError`), and unique values another save took meanwhile (checked and
///    decided again).
/// 4. The objects take the committed state, and the change set goes to live results, the container
///    and other contexts.
struct SaveOperation {
    let context: ManagedObjectContext
    private var inserted: [ManagedObject]
    private var changed: [ManagedObject]
    private let deleted: [ManagedObject]
    private let serializable: Bool
    /// Objects that had their derived attributes and `willSave` (known only once a takeover changes others).
    private var prepared: Set<ObjectIdentifier> = []
    /// What settling conflicts by the merge policy leaves for after the commit.
    private var outcome = ConflictOutcome()
    private let publication = SavePublication()
    private var retries = Retries()

    /// Why a refused commit is tried again, and how many times each reason may come.
    enum Retry: CaseIterable {
        /// Records this save writes were changed or deleted by another save since they were read.
        case recordsChangedMeanwhile
        /// Another save took unique values this save's objects have, after they were checked.
        case uniqueValuesTakenMeanwhile

        var limit: Int {
            switch self {
            case .recordsChangedMeanwhile: 8
            case .uniqueValuesTakenMeanwhile: 3
            }
        }
    }

    /// The retries made so far, by reason.
    struct Retries {
        private var counts: [Retry: Int] = [:]
        /// Counts one for `reason`; false when its limit was reached.
        mutating func allow(_ reason: Retry) -> Bool {
            counts[reason, default: 0] += 1
            return counts[reason]! <= reason.limit
        }
    }

    init(_ context: ManagedObjectContext) {
        self.context = context
        changed = context.updated.objects.filter { !$0.changedValues().isEmpty }
        inserted = context.inserted.objects
        deleted = context.deleted.objects
        serializable = context.saveIsolation == .serializable && context.parentLink == nil
    }

    mutating func run() throws {
        guard !inserted.isEmpty || !changed.isEmpty || !deleted.isEmpty else {
            if serializable { try context.verifyReads() }
            return
        }
        try prepare()
        let (changes, result) = try commit()
        context.finishSave(result, inserted: inserted, changed: changed, deleted: deleted.filter { $0._isDeleted })
        if !outcome.gone.isEmpty {
            var deletion = ChangeSet()
            deletion.deleted = outcome.gone
            context.mergeChanges(deletion)
        }
        for object in outcome.refreshAfterSave { context.refresh(object, mergeChanges: false) }
        // The changes as committed (a policy that drops this context's changes leaves those records out).
        let changeSet = ChangeSet(committed: changes, result: result)
        if !changeSet.isEmpty {
            context.updateLiveResults(changeSet)
            // A child's save went into its parent, not the store: nobody else hears of it yet. A store
            // that publishes in commit order has published it.
            if context.parentLink == nil && !publication.done { context.container.didSave(changeSet, from: ObjectIdentifier(context)) }
        }
    }

    /// Steps 1 and 2: derived attributes, `willSave`, validation and uniqueness.
    private mutating func prepare() throws {
        // What writing them reads, loaded first, so that a store that cannot answer fails the save.
        for object in changed { try object.loadAllPendingToManyIfNeeded() }
        // The lists one after the other, not concatenated: a copy retains every object.
        for objects in [inserted, changed] {
            for object in objects {
                try context.recomputeDerivedAttributes(of: object)
                object.willSave()
            }
        }
        for object in deleted { object.willSave() }

        var failures: [ValidationError.Failure] = []
        for object in inserted { failures += ValidationError.failures(of: object) { try object.validateForInsert() } }
        for object in changed { failures += ValidationError.failures(of: object) { try object.validateForUpdate() } }
        for object in deleted { failures += ValidationError.failures(of: object) { try object.validateForDelete() } }
        let uniqueness = try context.resolve(try context.uniquenessConflicts(inserted, changed))
        failures += uniqueness.failures
        if !failures.isEmpty {
            context.endUndoGroup()
            throw ValidationError(failures)
        }
        if !uniqueness.takeovers.isEmpty {
            (inserted, changed) = try context.takeOver(uniqueness.takeovers, written: inserted + changed, prepared: &prepared)
        }
    }

    /// The change set of the objects as they are now.
    private func changes() -> StoreChanges {
        var changes = StoreChanges()
        changes.author = context.container.historyAuthor
        // What it read, before writing loads the changed objects' pending relationships.
        if serializable { changes.reads = context.readSet() }
        if context.parentLink == nil { changes.published = publication.publisher(container: context.container, origin: ObjectIdentifier(context)) }
        // What the history, other contexts and `container.changes` hear of this save (after derived
        // attributes and willSave, so their changes count).
        for object in changed { changes.changedKeys[object.objectID] = Set(object.changedValues().keys) }
        changes.inserted = inserted.map { StoreRow(id: $0.objectID, version: 0, values: context.storeValues(of: $0)) }
        changes.updated = changed.map { StoreRow(id: $0.objectID, version: $0.committedVersion, values: context.storeValues(of: $0)) }
        for object in changed { changes.writes[object.objectID] = context.recordWrite(of: object) }
        changes.deleted = deleted.map { ($0.objectID, $0.committedVersion) }
        return changes
    }

    /// Step 3: the commit, tried again after each refusal settled (`Retry`).
    private mutating func commit() throws -> (StoreChanges, StoreCommitResult) {
        var changes = changes()
        while true {
            do {
                return (changes, try context.store.commit(changes))
            } catch var conflict as MergeConflictError {
                let ids = Set(conflict.conflicts.map(\.id))
                let objects = (changed + deleted).filter { ids.contains($0.objectID) }
                var rows = try context.store.rows(for: objects.map(\.objectID))
                try context.fillToMany(&rows)
                let stored = Dictionary(rows.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
                guard context.mergePolicy != .error, retries.allow(.recordsChangedMeanwhile) else {
                    conflict.objects = objects.map { context.objectConflict($0, stored: stored[$0.objectID]) }
                    throw conflict
                }
                // The policy settles each object in the change set, which is committed against the versions just read.
                try context.resolveConflicts(objects, stored: stored, changes: &changes, changedObjects: &changed, outcome: &outcome)
            } catch let violation as UniquenessViolationError {
                let conflicts = try context.uniquenessConflicts(inserted, changed)
                guard !conflicts.isEmpty, retries.allow(.uniqueValuesTakenMeanwhile) else { throw violation }
                let again = try context.resolve(conflicts)
                if !again.failures.isEmpty {
                    context.endUndoGroup()
                    throw ValidationError(again.failures)
                }
                (inserted, changed) = try context.takeOver(again.takeovers, written: inserted + changed, prepared: &prepared)
                changes = self.changes()
            }
        }
    }
}
