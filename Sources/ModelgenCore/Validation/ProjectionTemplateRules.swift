import Foundation
import ModelgenPredicate

extension ModelValidator {
    /// Checks a projection template's key paths (`properties`) and works out its row's fields: one per
    /// key path, named by joining its keys (`writer.name` → `writerName`), of the attribute's Swift type
    /// or `ObjectID` for a to-one relationship; optional when the attribute or a relationship on the
    /// way is, and always for a first member (a record may have no members).
    func checkProjection(_ template: FetchRequestTemplate) -> [AggregateRowField] {
        let entity = template.entity.value
        checkRowTypeName(of: template)
        var fields: [AggregateRowField] = []
        var propertyNames: [String: String] = ["objectID": "the record's ID", "self": "Swift", "hashValue": "Hashable"]
        for projected in template.properties {
            let parsed = projected.path
            let descriptor = parsed.descriptor
            let location = parsed.source.location(atOffset: descriptor.range.start)
            let path = descriptor.keyPathText
            guard hasNoDirection(parsed, "a projected key path has no direction; order the rows with sort\(projected.memberOrder != nil ? ", the members with by" : "")")
            else { continue }
            let checker = PredicateChecker(validator: self, entity: entity, source: parsed.source, policy: .inferred)
            let resolved: PredicateValueType
            let isOptional: Bool
            var summary = "`\(path)`"
            if let order = projected.memberOrder {
                guard let member = checkFirstMember(descriptor.keyPath, order: order, from: entity, checker: checker, at: location),
                      let value = checker.resolveKeyPath(member.rest, from: member.entity, purpose: .projection),
                      projectedOptionality(member.rest, from: member.entity, at: location) != nil else { continue }
                resolved = value
                isOptional = true
                let toMany = descriptor.keyPath.dropLast(member.rest.count).keyPathText
                summary = (member.rest.isEmpty ? "The first of `\(toMany)`" : "`\(member.rest.keyPathText)` of the first of `\(toMany)`")
                    + (order.isEmpty ? " (in its order)" : " (by " + order.map { "`\($0.source.text.trimmingCharacters(in: .whitespaces))`" }.joined(separator: ", ") + ")")
            } else {
                guard let value = checker.resolveKeyPath(descriptor.keyPath, from: entity, purpose: .projection),
                      let optional = projectedOptionality(descriptor.keyPath, from: entity, at: location) else { continue }
                resolved = value
                isOptional = optional
            }
            let swiftType: String
            switch resolved {
            case .object: swiftType = "ObjectID"
            case .attribute(let attribute, _) where attribute.swiftTypeName != nil: swiftType = attribute.swiftTypeName!
            default:
                error(.predicateTypeMismatch, "cannot project '\(path)': \(resolved) values have no row type (project attributes of stored types, or a to-one relationship)",
                      at: location)
                continue
            }
            if let name = projected.name, !checkRowPropertyName(name, "'as: \(name.value)'", fix: "name the first member otherwise") { continue }
            let property = projected.name?.value ?? Self.rowPropertyName(descriptor.keyPath)
            if let other = propertyNames[property] {
                error(.nameCollision, "'\(path)' becomes the row property '\(property)', which \(other) has; project each value once\(projected.memberOrder != nil ? ", or name a first member with 'as'" : "")",
                      at: location)
                continue
            }
            propertyNames[property] = "'\(path)'"
            fields.append(AggregateRowField(propertyName: property, key: projected.name?.value ?? path, swiftType: swiftType, isOptional: isOptional, summary: summary))
        }
        return fields
    }

    /// Checks a first member's key path (`first: authors.name`): keys only, to-one relationships up to
    /// one to-many relationship, then the member's key path (empty: the member itself), and its order
    /// (`by`, sort descriptors from the members' entity; an unordered relationship needs one). The
    /// members' entity and the key path from a member, or nil after reporting a problem.
    private func checkFirstMember(_ keyPath: [KeyPathComponent], order: [ParsedSortDescriptor], from start: String, checker: PredicateChecker,
                                  at location: SourceLocation) -> (entity: String, rest: [KeyPathComponent])? {
        func crossesNoToMany() {
            error(.invalidKeyPath, "'first: \(keyPath.keyPathText)' crosses no to-many relationship; project '\(keyPath.keyPathText)' as a key path", at: location)
        }
        var entity = start
        for (index, component) in keyPath.enumerated() {
            guard case .key(let key) = component.kind else {
                error(.invalidKeyPath, "a first member's key path is made of keys; '\(component.text)' is not one", at: location)
                return nil
            }
            guard case .relationship(let relationship, _)? = graph.property(key, in: entity) else {
                if graph.property(key, in: entity) == nil { _ = checker.resolveKeyPath(Array(keyPath[...index]), from: start, purpose: .groupKey) }   // names the unknown key
                else { crossesNoToMany() }
                return nil
            }
            entity = relationship.destination.value
            guard graph.position(of: entity) != nil else { return nil }   // reported elsewhere
            guard relationship.isToMany else { continue }
            if order.isEmpty && !relationship.isOrdered {
                error(.missingKey, "'first: \(keyPath.keyPathText)': to-many relationship '\(key)' is unordered; give its members an order with 'by' (sort key paths of '\(entity)')",
                      at: location)
                return nil
            }
            checkSortDescriptors(order, entity: entity)
            return (entity, Array(keyPath[(index + 1)...]))
        }
        crossesNoToMany()
        return nil
    }

    /// Whether a projected key path can end at nil (its attribute or a relationship on the way is
    /// optional); nil after reporting a composite attribute, whose fields projections do not read.
    private func projectedOptionality(_ keyPath: [KeyPathComponent], from start: String, at location: SourceLocation) -> Bool? {
        var entity = start
        var optional = false
        for component in keyPath {
            guard case .key(let key) = component.kind else { return optional }
            switch graph.property(key, in: entity) {
            case .attribute(let attribute, _)?:
                if attribute.type.value == .composite {
                    error(.invalidKeyPath, "a projected key path cannot read composite attribute '\(key)'; project it in code, or fetch the objects", at: location)
                    return nil
                }
                return optional || attribute.isOptional
            case .relationship(let relationship, _)?:
                optional = optional || relationship.isOptional
                entity = relationship.destination.value
            default:
                return optional
            }
        }
        return optional
    }
}
