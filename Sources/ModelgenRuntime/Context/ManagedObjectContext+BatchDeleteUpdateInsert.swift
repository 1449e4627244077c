import Foundation

/// Batch deletes, updates and inserts (Core Data's `NSBatchDeleteRequest`, `NSBatchUpdateRequest` and
/// `NSBatchInsertRequest`; SwiftData's `delete(model:where:)`): work on records in the store, without
/// loading objects. The matching records are found by a store query (SQL on the SQL stores); their
/// rows and related records are read with a constant number of queries per relationship; the
/// changes are committed as one save (one transaction, versions checked, a history row, uniqueness
/// and the constraints spanning rows checked in the store). The returned `ChangeSet` is merged into
/// this context and published like any save's, so the main context, its live results and other
/// processes hear of it. Unsaved changes of this context are not part of a batch operation (they
/// are saved by `save()`, as in Core Data); objects it holds that the batch deleted leave it.
extension ManagedObjectContext {
    /// Deletes every record a request matches, with the model's delete rules applied as a save would
    /// apply them: `cascade` deletes related records too (and theirs, transitively), `nullify` removes
    /// the deleted records from the related records' relationships, `deny` refuses the whole batch
    /// while a record to be deleted still has related records (a `ValidationError` naming them), and
    /// `noAction` leaves related records as they are. Returns what the batch changed.
    @discardableResult
    public func batchDelete<Result: ManagedObject>(_ request: FetchRequest<Result>) throws -> ChangeSet {
        let resolved = try request.resolved(for: model)
        // One statement per table where the store can (a SQL store, and delete rules a statement can apply).
        let entities = try requestEntities(resolved)
        if model.allowsSetBasedDeletion(of: entities.map(\.name)), let query = try storeQuery(resolved, entities: entities, window: true),
           let changeSet = try queryingStore?.deleteMatching(query, author: container.historyAuthor) {
            publish(changeSet)
            return changeSet
        }
        return try retryingOnConflict {
            try commitBatch(try deletion(of: try storeMatchingIDs(resolved)))
        }
    }

    /// Sets attributes of every record a request matches to the same values, by name (`["status":
    /// 2, "archivedAt": Date()]`): attributes only (as Core Data's batch update), each value checked
    /// against the attribute's type and constraints first (one `ValidationError` with every refused
    /// value), uniqueness checked by the store. Returns what the batch changed.
    @discardableResult
    public func batchUpdate<Result: ManagedObject>(_ request: FetchRequest<Result>, set values: [String: Any?]) throws -> ChangeSet {
        let resolved = try request.resolved(for: model)
        let entities = try requestEntities(resolved)
        var assignments: [(slot: Int, value: SlotValue, name: String)] = []
        var failures: [ValidationError.Failure] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let slot = entities[0].slotsByName[name], case .attribute(let attribute) = entities[0].properties[slot], !attribute.isTransient else {
                throw RuntimeError.unknownKey(entity: entities[0].name, key: "\(name) (a batch update sets stored attributes)")
            }
            let converted = try SlotValue(any: value, for: attribute, key: name, entity: entities[0].name)
            if let problem = ManagedObject.problem(of: converted, for: attribute) {
                failures.append(.init(objectID: ObjectID(entityName: entities[0].name, key: 0), key: name, message: problem))
            }
            assignments.append((slot, converted, name))
        }
        if !failures.isEmpty { throw ValidationError(failures) }
        // One `UPDATE … WHERE` where the store can, unless a derived attribute must be recomputed.
        if entities.allSatisfy({ $0.derivations.isEmpty }), let query = try storeQuery(resolved, entities: entities, window: true) {
            let stored = Dictionary(uniqueKeysWithValues: assignments.map { assignment -> (Int, StoreValue) in
                guard case .attribute(let attribute) = entities[0].properties[assignment.slot] else { return (assignment.slot, .null) }
                return (assignment.slot, storedValue(assignment.value, attribute))
            })
            let changeSet: ChangeSet?
            do {
                changeSet = try queryingStore?.updateMatching(query, set: stored, author: container.historyAuthor)
            } catch let violation as UniquenessViolationError {
                throw ValidationError([.init(objectID: ObjectID(entityName: entities[0].name, key: 0), key: violation.constraint.joined(separator: ","), message: "\(violation)")])
            }
            if let changeSet {
                publish(changeSet)
                return changeSet
            }
        }
        return try retryingOnConflict {
            var changes = StoreChanges()
            for row in try store.rows(for: try storeMatchingIDs(resolved)) {
                var row = row
                for assignment in assignments {
                    guard case .attribute(let attribute) = model.entity(named: row.id.entityName)?.properties[assignment.slot] else { continue }
                    row.values[assignment.slot] = storedValue(assignment.value, attribute)
                }
                changes.updated.append(row)
                changes.writes[row.id] = RecordWrite(columns: assignments.map(\.slot).sorted())
                changes.changedKeys[row.id] = Set(assignments.map(\.name))
            }
            return try commitBatch(changes)
        }
    }

    /// Inserts records of an entity from values by attribute name, without objects: each record
    /// takes the entity's defaults for what it does not give, every value is checked against its
    /// attribute's type and constraints first (one `ValidationError` with every failure, naming the
    /// record by its position), and uniqueness is checked by the store (a `ValidationError` when a
    /// record repeats another's unique values). Returns the new records' IDs, in order.
    @discardableResult
    public func batchInsert(entityName: String, values records: [[String: Any?]]) throws -> [ObjectID] {
        guard let entity = model.entity(named: entityName) else { throw RuntimeError.unknownEntity(entityName) }
        if entity.isAbstract { throw RuntimeError.abstractEntity(entityName) }
        var changes = StoreChanges()
        var failures: [ValidationError.Failure] = []
        for (position, record) in records.enumerated() {
            let id = nextTemporaryID(for: entity)
            var slots = entity.initialSlots
            for (name, value) in record {
                guard let slot = entity.slotsByName[name], case .attribute(let attribute) = entity.properties[slot] else {
                    throw RuntimeError.unknownKey(entity: entityName, key: "\(name) (a batch insert sets attributes)")
                }
                slots[slot] = try SlotValue(any: value, for: attribute, key: name, entity: entityName)
            }
            var values: [StoreValue] = []
            for (slot, property) in entity.properties.enumerated() {
                switch property {
                case .attribute(let attribute):
                    if let problem = ManagedObject.problem(of: slots[slot], for: attribute), !attribute.isTransient {
                        failures.append(.init(objectID: id, key: attribute.name, message: "\(problem) (record \(position))"))
                    }
                    values.append(attribute.isTransient ? .null : storedValue(slots[slot], attribute))
                case .relationship(let r):
                    if !r.isOptional && !r.isToMany {
                        failures.append(.init(objectID: id, key: r.name, message: "is required (record \(position)); a batch insert sets attributes only"))
                    }
                    values.append(r.isToMany ? .references([]) : .reference(nil))
                }
            }
            changes.inserted.append(StoreRow(id: id, version: 0, values: values))
        }
        if !failures.isEmpty { throw ValidationError(failures) }
        return try commitBatch(changes).inserted
    }

    // MARK: Helpers

    /// The IDs of the records a resolved request matches in the store (this context's unsaved changes
    /// left out).
    private func storeMatchingIDs<Result: ManagedObject>(_ resolved: FetchRequest<Result>) throws -> [ObjectID] {
        let entities = try requestEntities(resolved)
        if let query = try storeQuery(resolved, entities: entities, window: true), let ids = try queryingStore?.fetchIDs(query) { return Array(ids) }
        // A store that runs no queries: the request evaluated in a context of its own, with no changes.
        let scratch = container.newContext(observation: .unobserved)
        return try scratch.fetchIDs(resolved)
    }

    /// A stored value of an attribute (transformables encoded).
    private func storedValue(_ value: SlotValue, _ attribute: AttributeDescription) -> StoreValue {
        storeValue(value, of: .attribute(attribute))
    }

    /// Runs a batch again (reading the records afresh) when another save changed one of them between
    /// the batch's reads and its commit; the third conflict in a row is thrown.
    private func retryingOnConflict(_ body: () throws -> ChangeSet) throws -> ChangeSet {
        var attempts = 0
        while true {
            do {
                return try body()
            } catch let conflict as MergeConflictError {
                attempts += 1
                if attempts >= 3 { throw conflict }
            }
        }
    }

    /// Commits a batch's changes, refusing uniqueness violations as validation failures, and publishes
    /// what it changed.
    private func commitBatch(_ changes: StoreChanges) throws -> ChangeSet {
        if changes.inserted.isEmpty && changes.updated.isEmpty && changes.deleted.isEmpty { return ChangeSet() }
        var changes = changes
        changes.author = container.historyAuthor
        let result: StoreCommitResult
        do {
            result = try store.commit(changes)
        } catch let violation as UniquenessViolationError {
            let id = changes.updated.first?.id ?? changes.inserted.first?.id ?? ObjectID(entityName: violation.entityName, key: 0)
            throw ValidationError([.init(objectID: id, key: violation.constraint.joined(separator: ","), message: "\(violation)")])
        }
        let changeSet = ChangeSet(committed: changes, result: result)
        publish(changeSet)
        return changeSet
    }

    /// Merges a batch's changes into this context and publishes them as a save's (the main context,
    /// live results, other processes through the store's history).
    private func publish(_ changeSet: ChangeSet) {
        guard !changeSet.isEmpty else { return }
        mergeChanges(changeSet)
        if parentLink == nil { container.didSave(changeSet, from: ObjectIdentifier(self)) }
    }

    /// The changes that delete `ids` with the model's delete rules (see `batchDelete`).
    private func deletion(of ids: [ObjectID]) throws -> StoreChanges {
        // The records to delete, their rows, and cascades, level by level.
        var rows: [ObjectID: StoreRow] = [:]
        var level = ids
        while !level.isEmpty {
            var read = try store.rows(for: level.filter { rows[$0] == nil })
            try fillToMany(&read)
            var next: [ObjectID] = []
            for row in read {
                rows[row.id] = row
                guard let entity = model.entity(named: row.id.entityName) else { continue }
                for (slot, property) in entity.properties.enumerated() {
                    guard case .relationship(let r) = property, r.deleteRule == .cascade, !r.isTransient, slot < row.values.count else { continue }
                    next += row.values[slot].referencedIDs.filter { rows[$0] == nil }
                }
            }
            level = Array(Set(next))
        }
        // Deny rules, and the related records that lose a deleted one (nullify).
        var failures: [ValidationError.Failure] = []
        var nullified: [ObjectID: [(slot: Int, removed: ObjectID)]] = [:]
        for row in rows.values.sorted(by: { $0.id.key < $1.id.key }) {
            guard let entity = model.entity(named: row.id.entityName) else { continue }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, !r.isTransient, slot < row.values.count else { continue }
                let others = row.values[slot].referencedIDs.filter { rows[$0] == nil }
                switch r.deleteRule {
                case .deny where !others.isEmpty:
                    failures.append(.init(objectID: row.id, key: r.name, message: "delete denied: still related to \(others.map(\.description).joined(separator: ", "))"))
                case .nullify, .deny:
                    guard let inverse = entity.destination(ofSlot: slot).inverseSlot else { continue }
                    for other in others { nullified[other, default: []].append((inverse, row.id)) }
                case .cascade, .noAction:
                    break
                }
            }
        }
        if !failures.isEmpty { throw ValidationError(failures) }
        var changes = StoreChanges()
        changes.deleted = rows.values.sorted { $0.id.key < $1.id.key }.map { ($0.id, $0.version) }
        // Related records that lose a deleted one from a to-one relationship have that column written
        // (their rows are read, for their versions); the others only lose a member of a to-many
        // relationship, which changes no row of theirs (stores apply the delta; the row is not read).
        let columnWrites = Set(nullified.compactMap { id, links -> ObjectID? in
            guard let entity = model.entity(named: id.entityName) else { return nil }
            return links.contains { if case .relationship(let r) = entity.properties[$0.slot] { return !r.isToMany } else { return false } } ? id : nil
        })
        var members = try store.rows(for: Array(columnWrites))
        let present = Set(members.map(\.id))
        for id in nullified.keys where !columnWrites.contains(id) { members.append(StoreRow(id: id, version: 0, values: [], hasToManyValues: false)) }
        for var member in members {
            if columnWrites.contains(member.id) && !present.contains(member.id) { continue }
            guard let entity = model.entity(named: member.id.entityName), let links = nullified[member.id] else { continue }
            var write = RecordWrite()
            var keys: Set<String> = []
            for (slot, removed) in links {
                guard case .relationship(let r) = entity.properties[slot] else { continue }
                keys.insert(r.name)
                if r.isToMany {
                    write.toMany[slot, default: ToManyDelta()].removed.append(removed)
                } else {
                    member.values[slot] = .reference(nil)
                    if !write.columns.contains(slot) { write.columns.append(slot) }
                }
            }
            write.columns.sort()
            changes.updated.append(member)
            changes.writes[member.id] = write
            changes.changedKeys[member.id] = keys
        }
        return changes
    }
}
