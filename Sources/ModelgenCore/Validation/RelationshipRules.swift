extension ModelValidator {
    func checkRelationship(_ relationship: Relationship, in entity: Entity) {
        func what() -> String { "relationship '\(entity.name.value).\(relationship.name.value)'" }
        checkPropertyName(relationship.name, kind: "relationship", in: entity)
        if let renaming = relationship.renamingIdentifier, renaming.value == relationship.name.value {
            warning(.redundantRenaming, "renamingIdentifier '\(renaming.value)' is the relationship's own name; it names the former name, for migration", at: renaming.location)
        }

        if let ordered = relationship.ordered, ordered.value, !relationship.isToMany {
            error(.inapplicableOption, "'ordered' applies to to-many relationships only; \(what()) is to-one", at: ordered.location,
                  notes: [.init("add 'toMany: true' or remove 'ordered'")])
        }
        for bound in [relationship.minCount, relationship.maxCount].compactMap({ $0 }) where !relationship.isToMany {
            error(.inapplicableOption, "'min'/'max' count the objects of a to-many relationship; \(what()) is to-one", at: bound.location,
                  notes: [.init("use 'optional: false' to require a to-one relationship")])
        }
        if let min = relationship.minCount, let max = relationship.maxCount, min.value > max.value {
            error(.invalidBounds, "min \(min.value) is greater than max \(max.value) in \(what())", at: min.location)
        }
        if let max = relationship.maxCount, max.value == 0, relationship.isToMany {
            error(.invalidBounds, "max 0 of \(what()) would forbid any related object; leave 'max' out for no limit", at: max.location)
        }
        if let rule = relationship.deleteRule, rule.value == .noAction {
            warning(.noActionDeleteRule, "delete rule noAction on \(what()) can leave references to deleted objects; prefer nullify", at: rule.location)
        }

        guard requireEntity(relationship.destination, "destination of \(what())") else { return }
        let destination = relationship.destination.value

        switch relationship.inverse {
        case .none:
            break
        case .unspecified:
            warning(.missingInverse, "\(what()) has no inverse; model relationships in both directions, or write 'inverse: none' to make it one-way on purpose",
                    at: relationship.name.location)
        case .named(let inverseName):
            guard case .relationship(let inverse, let owner)? = graph.property(inverseName.value, in: destination) else {
                let found = graph.property(inverseName.value, in: destination)
                let candidates = graph.propertyNames(in: destination)
                let notes = Suggestions.note(for: inverseName.value, in: candidates).map { [Diagnostic.Note($0)] } ?? []
                let problem = found.map { "is \($0.kindName == "attribute" ? "an" : "a") \($0.kindName), not a relationship" }
                    ?? "does not exist"
                error(.unknownInverse, "inverse '\(inverseName.value)' of \(what()) \(problem) on entity '\(destination)'", at: inverseName.location, notes: notes)
                return
            }
            let inverseWhat = "'\(owner).\(inverse.name.value)'"
            if !graph.isKind(entity.name.value, of: inverse.destination.value) {
                error(.inverseMismatch, "inverse \(inverseWhat) of \(what()) points to '\(inverse.destination.value)', not back to '\(entity.name.value)'",
                      at: inverseName.location, notes: [.init("\(inverseWhat) is declared here", at: inverse.name.location)])
                return
            }
            switch inverse.inverse {
            case .named(let back) where back.value == relationship.name.value:
                break
            case .named(let back):
                // When the other side's inverse does not exist, that side reports it; do not repeat it here.
                if let destinationEntity = graph.entity(inverse.destination.value),
                   case .relationship? = graph.property(back.value, in: destinationEntity.name.value) {
                    error(.inverseMismatch, "inverse mismatch: \(what()) names \(inverseWhat) as its inverse, but \(inverseWhat) names '\(back.value)' as its own",
                          at: inverseName.location, notes: [.init("\(inverseWhat) declares its inverse here", at: back.location)])
                }
            case .none(let location):
                error(.inverseMismatch, "inverse mismatch: \(what()) names \(inverseWhat) as its inverse, but \(inverseWhat) says 'inverse: none'",
                      at: inverseName.location, notes: [.init("declared one-way here", at: location)])
            case .unspecified:
                error(.inverseMismatch, "inverse mismatch: \(what()) names \(inverseWhat) as its inverse, but \(inverseWhat) names no inverse",
                      at: inverseName.location, notes: [.init("add 'inverse: \(relationship.name.value)' here", at: inverse.name.location)])
            }
        }
    }
}
