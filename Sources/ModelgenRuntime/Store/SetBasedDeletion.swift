/// When a batch delete can run as set-based statements in a SQL store (`DELETE … WHERE`, the related
/// records' columns and join rows cleared with one statement each) with the outcome of deleting the
/// records one by one: what each relationship of the deleted records asks of the related records
/// must be something a statement can do without reading them.
extension ManagedObjectModel {
    /// Whether the records of these entities (an entity and its subentities) can be deleted set-based:
    /// no relationship cascades or denies (those read the related records first), none is one-to-one
    /// (the other record's own column would change), no related record's relationship has a minimum
    /// or maximum count or is required (losing a member must not need a check), and no related entity
    /// derives attributes (a derived count would go stale). Otherwise a batch delete reads the records
    /// and commits their deletion as a save does.
    package func allowsSetBasedDeletion(of entityNames: [String]) -> Bool {
        for name in entityNames {
            guard let entity = entity(named: name) else { return false }
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let r) = property, !r.isTransient else { continue }
                if r.deleteRule == .cascade || r.deleteRule == .deny { return false }
                let (destination, inverseSlot) = entity.destination(ofSlot: slot)
                guard let inverseSlot, case .relationship(let inverse) = destination.properties[inverseSlot] else { continue }
                if !r.isToMany && !inverse.isToMany { return false }
                if inverse.minCount != nil || inverse.maxCount != nil || !inverse.isOptional { return false }
                if destination.selfAndDescendants.contains(where: { !$0.derivations.isEmpty }) { return false }
            }
        }
        return true
    }
}
