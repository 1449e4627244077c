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
    /// The model's entities (the model's own array, not copied).
    private let all: [Entity]
    /// The names of `all`, looked up.
    private let tables: Tables

    fileprivate struct PropertyKey: Hashable, Sendable {
        var entity: Int
        var name: String
    }

    /// Where a property is declared in its entity.
    fileprivate enum PropertyPosition: Sendable {
        case attribute(Int)
        case relationship(Int)
        case fetchedProperty(Int)
    }

    /// The graph's tables of names, filled entity by entity in model order.
    struct Tables: Sendable {
        /// Each entity's position by name (the first of a repeated name).
        fileprivate var positions: [String: Int] = [:]
        /// Every entity's own properties, by entity position and name, as positions in the entity's
        /// arrays: a `PropertyReference` holds a copy of the property (an `Attribute` is several hundred
        /// bytes), so one per property held here would double the memory of validation; one is built
        /// per lookup instead. One table for all entities, not one each.
        fileprivate var ownProperties: [PropertyKey: PropertyPosition] = [:]
        /// How many entities were added.
        private(set) var count = 0
        /// How many properties they declare, repeated names counted once.
        var propertyCount: Int { ownProperties.count }

        /// Adds the next entities of the model, read in place: iterating the arrays copied each entity
        /// and property whole (an `Attribute`'s dozens of fields retained and released) for the one
        /// string wanted from it. The first declaration of a name is the one looked up (the validator
        /// reports the others).
        mutating func add(_ entities: UnsafeBufferPointer<Entity>) {
            for offset in entities.indices {
                let position = count + offset
                if positions.insertIfAbsent(position, forKey: entities[offset].name.value) != nil { continue }
                func claim(_ name: String, _ place: PropertyPosition) {
                    _ = ownProperties.insertIfAbsent(place, forKey: PropertyKey(entity: position, name: name))
                }
                entities[offset].attributes.withUnsafeBufferPointer { properties in
                    for index in properties.indices { claim(properties[index].name.value, .attribute(index)) }
                }
                entities[offset].relationships.withUnsafeBufferPointer { properties in
                    for index in properties.indices { claim(properties[index].name.value, .relationship(index)) }
                }
                entities[offset].fetchedProperties.withUnsafeBufferPointer { properties in
                    for index in properties.indices { claim(properties[index].name.value, .fetchedProperty(index)) }
                }
            }
            count += entities.count
        }
    }

    init(_ model: ObjectModel) {
        var tables = Tables()
        let entities = model.entities
        tables.positions.reserveCapacity(entities.count)
        entities.withUnsafeBufferPointer { entities in
            tables.ownProperties.reserveCapacity(entities.indices.reduce(0) {
                $0 + entities[$1].attributes.count + entities[$1].relationships.count + entities[$1].fetchedProperties.count
            })
            tables.add(entities)
        }
        all = entities
        self.tables = tables
    }

    /// True when this graph was built over `model`'s own entities: the same array, unchanged (arrays
    /// share their storage only until one of them changes, and this graph keeps a share).
    func describes(_ model: ObjectModel) -> Bool {
        all.count == model.entities.count
            && all.withUnsafeBufferPointer { ours in model.entities.withUnsafeBufferPointer { $0.baseAddress == ours.baseAddress } }
    }

    /// The property named `name` declared by the entity at `position`.
    private func ownProperty(_ name: String, of position: Int) -> PropertyReference? {
        guard let found = tables.ownProperties[PropertyKey(entity: position, name: name)] else { return nil }
        let owner = all[position].name.value
        switch found {
        case .attribute(let index): return .attribute(all[position].attributes[index], owner: owner)
        case .relationship(let index): return .relationship(all[position].relationships[index], owner: owner)
        case .fetchedProperty(let index): return .fetchedProperty(all[position].fetchedProperties[index], owner: owner)
        }
    }

    func entity(_ name: String) -> Entity? { tables.positions[name].map { all[$0] } }

    /// The position in the model's `entities` of the first entity of this name.
    func position(of name: String) -> Int? { tables.positions[name] }

    /// Parent, grandparent, … (stops at a cycle or an unknown parent).
    func ancestors(of name: String) -> [Entity] {
        ancestorPositions(of: name).map { all[$0] }
    }

    /// The ancestors of the entity named as `entity` is (those of the first entity of its name). An
    /// entity without a parent has none, found without looking its name up, unless another entity has
    /// its name (the validator reports that).
    func ancestors(of entity: Entity) -> [Entity] {
        entity.parent == nil && tables.positions.count == all.count ? [] : ancestors(of: entity.name.value)
    }

    /// The positions of the entity's parent, grandparent, … (stops at a cycle or an unknown parent).
    private func ancestorPositions(of name: String) -> [Int] {
        guard let start = tables.positions[name], all[start].parent != nil else { return [] }
        var result: [Int] = []
        var seen: Set<String> = [name]
        var current = all[start].parent?.value
        while let parentName = current, let parent = tables.positions[parentName], seen.insert(parentName).inserted {
            result.append(parent)
            current = all[parent].parent?.value
        }
        return result
    }

    /// The property of this name declared by the entity or the nearest ancestor.
    func property(_ name: String, in entityName: String) -> PropertyReference? {
        guard let position = tables.positions[entityName] else { return nil }
        if let own = ownProperty(name, of: position) { return own }
        for ancestor in ancestorPositions(of: entityName) {
            if let found = ownProperty(name, of: ancestor) { return found }
        }
        return nil
    }

    /// Every property name reachable on the entity, for suggestions.
    func propertyNames(in entityName: String) -> [String] {
        guard let position = tables.positions[entityName] else { return [] }
        return ([position] + ancestorPositions(of: entityName)).flatMap { owner in
            Set(all[owner].attributes.map(\.name.value) + all[owner].relationships.map(\.name.value)
                + all[owner].fetchedProperties.map(\.name.value)).sorted()
        }
    }

    /// True when `a` is `b` or one of `b`'s subentities.
    func isKind(_ a: String, of b: String) -> Bool {
        a == b || ancestorPositions(of: a).contains { all[$0].name.value == b }
    }

    /// True when either entity is the other or inherits from it.
    func areRelated(_ a: String, _ b: String) -> Bool { isKind(a, of: b) || isKind(b, of: a) }
}
