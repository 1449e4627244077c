import ModelgenPredicate

extension ModelValidator {
    /// Checks a projection template's key paths (`properties`) and works out its row's fields: one per
    /// key path, named by joining its keys (`writer.name` → `writerName`), of the attribute's Swift type
    /// or `ObjectID` for a to-one relationship; optional when the attribute or a relationship on the
    /// way is.
    func checkProjection(_ template: FetchRequestTemplate) -> [AggregateRowField] {
        let entity = template.entity.value
        checkRowTypeName(of: template)
        var fields: [AggregateRowField] = []
        var propertyNames: [String: String] = ["objectID": "the record's ID", "self": "Swift", "hashValue": "Hashable"]
        for parsed in template.properties {
            let descriptor = parsed.descriptor
            let location = parsed.source.location(atOffset: descriptor.range.start)
            let path = descriptor.keyPathText
            guard hasNoDirection(parsed, "a projected key path has no direction; order the rows with sort") else { continue }
            let checker = PredicateChecker(validator: self, entity: entity, source: parsed.source, policy: .inferred)
            guard let resolved = checker.resolveKeyPath(descriptor.keyPath, from: entity, purpose: .projection),
                  let isOptional = projectedOptionality(descriptor.keyPath, from: entity, at: location) else { continue }
            let swiftType: String
            switch resolved {
            case .object: swiftType = "ObjectID"
            case .attribute(let attribute, _) where attribute.swiftTypeName != nil: swiftType = attribute.swiftTypeName!
            default:
                error(.predicateTypeMismatch, "cannot project '\(path)': \(resolved) values have no row type (project attributes of stored types, or a to-one relationship)",
                      at: location)
                continue
            }
            let property = Self.rowPropertyName(descriptor.keyPath)
            if let other = propertyNames[property] {
                error(.nameCollision, "'\(path)' becomes the row property '\(property)', which \(other) has; project each value once", at: location)
                continue
            }
            propertyNames[property] = "'\(path)'"
            fields.append(AggregateRowField(propertyName: property, key: path, swiftType: swiftType, isOptional: isOptional, summary: "`\(path)`"))
        }
        return fields
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
