import Foundation
import ModelgenPredicate

/// Uniqueness constraints at save: which pending objects collide with a saved record or with each
/// other, and what the context's merge policy makes of it.
///
/// - `.error`: every collision is a `ValidationError` failure ("violates uniqueness (…) with …").
/// - `.mergeByPropertyObjectTrump` and `.overwrite`: an inserted object whose constraint values a saved record of the same entity
///   already has *takes that record over* (an upsert, as Core Data's object-trump policies do): it gets
///   the record's ID and is saved as a change of it, with its own attribute values; relationships are
///   merged by property: a to-one the new object set wins, one it left empty keeps the record's; a
///   to-many keeps the record's objects and adds the new object's.
/// - `.mergeByPropertyStoreTrump` and `.rollback`: the same takeover, but the record's saved attribute values win (the new object's
///   are dropped) and so does a to-one the record has; to-many relationships are merged the same way.
///
/// Under every policy these stay errors: two pending objects with the same values, a changed (not
/// inserted) object taking another record's values, a record of another entity of the hierarchy, and a
/// record this context already holds (change that object instead of inserting a second one).
extension ManagedObjectContext {
    /// One pending object whose constraint values another record (or pending object) has.
    struct UniquenessConflict {
        let object: ManagedObject
        let constraint: [String]
        let values: [StoreValue]
        let other: ObjectID
        /// True when `other` is a saved record, false when it is another pending object.
        let otherIsSaved: Bool

        var failure: ValidationError.Failure {
            let values = zip(constraint, values).map { "\($0)=\($1.readableText)" }.joined(separator: ", ")
            return .init(object: object, key: constraint.joined(separator: ","), message: "violates uniqueness (\(values)) with \(other)")
        }

    }

    /// What the merge policy makes of the collisions: failures that remain, and inserted objects that
    /// take over a saved record.
    struct UniquenessResolution {
        var failures: [ValidationError.Failure] = []
        var takeovers: [(object: ManagedObject, record: StoreRow)] = []
    }

    /// Uniqueness constraints (own and inherited) across the store and this context's pending changes.
    func uniquenessConflicts(_ inserted: [ManagedObject], _ changed: [ManagedObject]) throws -> [UniquenessConflict] {
        var conflicts: [UniquenessConflict] = []
        var checked: Set<String> = []
        // Each entity once (objects of one entity come in runs), then each constraint it declares or inherits once.
        var entities: [EntityDescription] = []
        for objects in [inserted, changed] {
            for object in objects where entities.last !== object.entity && !entities.contains(where: { $0 === object.entity }) {
                entities.append(object.entity)
            }
        }
        for candidate in entities {
            var entity: EntityDescription? = candidate
            while let current = entity {
                for constraint in current.uniquenessConstraints where checked.insert("\(current.name):\(constraint)").inserted {
                    conflicts += try collisions(of: constraint, declaredBy: current)
                }
                entity = current.parent
            }
        }
        return conflicts
    }

    private func collisions(of constraint: [String], declaredBy entity: EntityDescription) throws -> [UniquenessConflict] {
        let slots = constraint.compactMap { entity.slot(of: $0) }
        guard slots.count == constraint.count else { return [] }
        func key(_ value: (Int) -> StoreValue) -> [StoreValue]? {
            let key = slots.map(value)
            return key.contains(where: \.isNull) ? nil : key // NULLs never collide, as in SQL
        }
        let pending = (updated.objects + inserted.objects).filter { $0.entity.isKind(of: entity) && !$0._isDeleted }
        // Only the constraint's slots of each object (subentities share their parent's slot numbers).
        let pendingKeys = pending.compactMap { object in key { storeValue(of: object, at: $0) }.map { (object, $0) } }
        if pendingKeys.isEmpty { return [] }
        var saved: [[StoreValue]: ObjectID] = [:]
        let names = entity.selfAndDescendants.map(\.name)
        // Saved records that this context neither changed nor deleted: a store that runs queries is
        // asked only for records with the pending keys.
        // Asked 256 keys at a time (a save of many objects must not read every record of the entity).
        var rows: [StoreRow] = []
        for start in stride(from: 0, to: pendingKeys.count, by: Self.keysPerUniquenessQuery) {
            let chunk = pendingKeys[start..<min(start + Self.keysPerUniquenessQuery, pendingKeys.count)].map(\.1)
            guard let found = try queryingStore?.fetch(recordsQuery(names: names, entity: entity, constraint: constraint, keys: chunk)) else {
                rows = try store.recordIDs(of: names).compactMap { try store.row(for: $0) }
                break
            }
            rows += found
        }
        for row in rows {
            if let object = registered[row.id], object._isDeleted || object._isUpdated { continue }
            guard let k = key({ row.values[$0] }) else { continue }
            saved[k] = row.id
        }
        var conflicts: [UniquenessConflict] = []
        var claimed: [[StoreValue]: ObjectID] = [:]
        for (object, k) in pendingKeys {
            if let other = claimed[k] {
                conflicts.append(UniquenessConflict(object: object, constraint: constraint, values: k, other: other, otherIsSaved: false))
                continue
            }
            claimed[k] = object.objectID
            if let other = saved[k], other != object.objectID {
                conflicts.append(UniquenessConflict(object: object, constraint: constraint, values: k, other: other, otherIsSaved: true))
            }
        }
        return conflicts
    }

    /// Sorts collisions into failures and takeovers, as `mergePolicy` says (see the type's comment).
    func resolve(_ conflicts: [UniquenessConflict]) throws -> UniquenessResolution {
        var resolution = UniquenessResolution()
        var records: [ObjectID: (object: ManagedObject, record: ObjectID)] = [:]   // the one record each object takes over
        var failed: Set<ObjectID> = []
        for conflict in conflicts {
            let object = conflict.object
            let takesOver = mergePolicy.uniquenessTakeoverKeepsObjectValues != nil && conflict.otherIsSaved && object._isInserted
                && conflict.other.entityName == object.entity.name && registered[conflict.other] == nil
                && (records[object.objectID]?.record ?? conflict.other) == conflict.other
            if takesOver {
                records[object.objectID] = (object, conflict.other)
            } else {
                resolution.failures.append(conflict.failure)
                failed.insert(object.objectID)
            }
        }
        // An object that also collides with something it cannot take over is not taken over at all.
        for (id, takeover) in records where !failed.contains(id) {
            // A record deleted meanwhile is no collision any more: the object is inserted as it is.
            guard let row = try store.row(for: takeover.record) else { continue }
            resolution.takeovers.append((takeover.object, row))
        }
        resolution.takeovers.sort { $0.record.id.key < $1.record.id.key }
        return resolution
    }

    /// The inserted `object` becomes the saved `record` loaded into this context and then changed: it
    /// gets the record's ID, version and saved values as its committed state, and keeps its own values
    /// (`.mergeByPropertyObjectTrump`, `.overwrite`) or takes the record's (`.mergeByPropertyStoreTrump`,
    /// `.rollback`); relationships are merged by property.
    /// Every change goes through the tracked relationship primitives, so inverses stay in step.
    func takeOver(_ record: StoreRow, by object: ManagedObject) throws {
        let entity = object.entity
        // To-many values the row left out (a store's fetch may), read now.
        var rows = [record]
        try fillToMany(&rows)
        let record = rows[0]
        let committed = try slots(from: record, entity: entity)

        registered.removeValue(forKey: object.objectID)
        object.objectID = record.id
        registered[record.id] = object
        inserted.remove(object)
        object._isInserted = false
        object.committedVersion = record.version
        object.committedSlots = committed
        object._isUpdated = true
        updated.append(object)

        for (slot, property) in entity.properties.enumerated() where !property.isTransient {
            switch property {
            case .attribute:
                if mergePolicy.uniquenessTakeoverKeepsObjectValues == false, !committed[slot].isSame(as: object._slots[slot]) {
                    object.storeSlot(slot, committed[slot])
                }
            case .relationship(let r) where r.isToMany:
                // The record's objects stay; the new object's are added (their inverses already point here).
                guard case .objects(let saved) = committed[slot] else { continue }
                let held = Set(object.objects(inSlot: slot).map(ObjectIdentifier.init))
                for member in saved where !held.contains(ObjectIdentifier(member)) {
                    // A member this context moved elsewhere keeps its move.
                    if !member._isFault, let back = entity.destination(ofSlot: slot).inverseSlot, !member.objects(inSlot: back).contains(where: { $0 === object }) { continue }
                    object.linkInverse(slot, to: member)
                }
            case .relationship:
                guard case .object(let savedTarget) = committed[slot] else { continue }
                let current = object.objects(inSlot: slot).first
                if current === savedTarget { continue }
                if current == nil || mergePolicy.uniquenessTakeoverKeepsObjectValues == false {
                    // The record's partner (whose saved inverse names the record already) stays or comes back;
                    // linkInverse takes the object out of a partner it had in this context.
                    object.linkInverse(slot, to: savedTarget)
                } else if let back = entity.destination(ofSlot: slot).inverseSlot {
                    // The new object's partner wins: the record's former partner lets go of it.
                    savedTarget.unlinkRaw(back, from: object)
                }
            }
        }
    }

    /// A query for the records of `names` whose `constraint` values equal one of `keys`
    /// (`a == $K0_0 AND b == $K0_1 OR …`); every record when there are too many keys for one statement.
    /// The most pending keys one query for saved records with the same values asks for (each is a
    /// condition of the query's WHERE clause).
    static let keysPerUniquenessQuery = 256

    private func recordsQuery(names: [String], entity: EntityDescription, constraint: [String], keys: [[StoreValue]]) -> StoreQuery {
        var variables: [String: QueryValue] = [:]
        var predicate: ModelgenPredicate.Predicate?
        if keys.count <= Self.keysPerUniquenessQuery {
            let none = SourceRange(0, 0)
            predicate = .or(keys.enumerated().map { row, key in
                .and(zip(constraint, key).enumerated().map { column, pair in
                    let name = "K\(row)_\(column)"
                    variables[name] = .value(pair.1)
                    return .comparison(Comparison(
                        modifier: .direct, left: Expression(.keyPath([KeyPathComponent(.key(pair.0), range: none)]), range: none),
                        operator: .equal, options: [], right: Expression(.variable(name), range: none), operatorRange: none, range: none))
                }, none)
            }, none)
        }
        return StoreQuery(entityNames: names, entityName: entity.name, predicate: predicate, variables: variables,
                          sortDescriptors: [], fetchLimit: nil, fetchOffset: 0)
    }
}
