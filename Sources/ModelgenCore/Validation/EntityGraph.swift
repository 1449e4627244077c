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
    private var ownProperties: [String: [String: PropertyReference]] = [:]

    init(_ model: ObjectModel) {
        for entity in model.entities where entities[entity.name.value] == nil {
            let name = entity.name.value
            entities[name] = entity
            var properties: [String: PropertyReference] = [:]
            properties.reserveCapacity(entity.attributes.count + entity.relationships.count)
            for a in entity.attributes where properties[a.name.value] == nil {
                properties[a.name.value] = .attribute(a, owner: name)
            }
            for r in entity.relationships where properties[r.name.value] == nil {
                properties[r.name.value] = .relationship(r, owner: name)
            }
            for f in entity.fetchedProperties where properties[f.name.value] == nil {
                properties[f.name.value] = .fetchedProperty(f, owner: name)
            }
            ownProperties[name] = properties
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
        if let own = ownProperties[entityName]?[name] { return own }
        for ancestor in ancestors(of: entityName) {
            if let p = ownProperties[ancestor.name.value]?[name] { return p }
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
