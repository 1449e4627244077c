/// A property found by name on an entity or one of its ancestors.
enum PropertyReference: Sendable {
    case attribute(Attribute, owner: String)
    case relationship(Relationship, owner: String)
    case fetchedProperty(FetchedProperty, owner: String)

    var name: Located<String> {
        switch self {
        case .attribute(let a, _): return a.name
        case .relationship(let r, _): return r.name
        case .fetchedProperty(let f, _): return f.name
        }
    }

    var owner: String {
        switch self {
        case .attribute(_, let o), .relationship(_, let o), .fetchedProperty(_, let o): return o
        }
    }

    var kindName: String {
        switch self {
        case .attribute: return "attribute"
        case .relationship: return "relationship"
        case .fetchedProperty: return "fetched property"
        }
    }
}

/// Entities by name, with inheritance and property lookup; safe on models with
/// inheritance cycles and repeated names (the validator reports those).
struct EntityGraph: Sendable {
    private(set) var entities: [String: Entity] = [:]
    /// Each entity's own properties by name, as positions in its arrays: a `PropertyReference` holds a
    /// copy of the property (an `Attribute` is several hundred bytes), so one per property held here
    /// doubled the memory of validation (250 MB for 10,000 entities); one is built per lookup instead.
    private var ownProperties: [String: [String: PropertyPosition]] = [:]

    /// Where a property is declared in its entity.
    private enum PropertyPosition: Sendable {
        case attribute(Int)
        case relationship(Int)
        case fetchedProperty(Int)
    }

    init(_ model: ObjectModel) {
        for entity in model.entities where entities[entity.name.value] == nil {
            let name = entity.name.value
            entities[name] = entity
            var properties: [String: PropertyPosition] = [:]
            properties.reserveCapacity(entity.attributes.count + entity.relationships.count + entity.fetchedProperties.count)
            for (index, a) in entity.attributes.enumerated() where properties[a.name.value] == nil {
                properties[a.name.value] = .attribute(index)
            }
            for (index, r) in entity.relationships.enumerated() where properties[r.name.value] == nil {
                properties[r.name.value] = .relationship(index)
            }
            for (index, f) in entity.fetchedProperties.enumerated() where properties[f.name.value] == nil {
                properties[f.name.value] = .fetchedProperty(index)
            }
            ownProperties[name] = properties
        }
    }

    /// The property at `position` of the entity named `owner`.
    private func reference(_ position: PropertyPosition, owner: String) -> PropertyReference? {
        guard let entity = entities[owner] else { return nil }
        switch position {
        case .attribute(let index): return .attribute(entity.attributes[index], owner: owner)
        case .relationship(let index): return .relationship(entity.relationships[index], owner: owner)
        case .fetchedProperty(let index): return .fetchedProperty(entity.fetchedProperties[index], owner: owner)
        }
    }

    func entity(_ name: String) -> Entity? { entities[name] }

    /// Parent, grandparent, … (stops at a cycle or an unknown parent).
    func ancestors(of name: String) -> [Entity] {
        var result: [Entity] = []
        var seen: Set<String> = [name]
        var current = entities[name]?.parent?.value
        while let parentName = current, let parent = entities[parentName], seen.insert(parentName).inserted {
            result.append(parent)
            current = parent.parent?.value
        }
        return result
    }

    /// The property of this name declared by the entity or the nearest ancestor.
    func property(_ name: String, in entityName: String) -> PropertyReference? {
        if let own = ownProperties[entityName]?[name] { return reference(own, owner: entityName) }
        for ancestor in ancestors(of: entityName) {
            if let position = ownProperties[ancestor.name.value]?[name] { return reference(position, owner: ancestor.name.value) }
        }
        return nil
    }

    /// Every property name reachable on the entity, for suggestions.
    func propertyNames(in entityName: String) -> [String] {
        ([entityName] + ancestors(of: entityName).map(\.name.value)).flatMap { ownProperties[$0]?.keys.sorted() ?? [] }
    }

    /// True when `a` is `b` or one of `b`'s subentities.
    func isKind(_ a: String, of b: String) -> Bool {
        a == b || ancestors(of: a).contains { $0.name.value == b }
    }

    /// True when either entity is the other or inherits from it.
    func areRelated(_ a: String, _ b: String) -> Bool { isKind(a, of: b) || isKind(b, of: a) }
}
