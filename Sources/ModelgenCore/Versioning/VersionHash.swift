extension ObjectModel {
    /// The hash of what stores keep of this model: its name, its entities (with parents) and their stored
    /// properties (attribute types and optionality, relationship destinations, cardinality and
    /// ordering; inherited properties first, transient ones left out), and the `versionHashModifier`s. It equals the
    /// `ManagedObjectModel.versionHash` of the generated model (the generated code's `versionHash`
    /// says it, and a test compares the two), which the SQL stores record: two versions with the same
    /// hash need no migration between them.
    public var versionHash: String {
        var identity = "model \(name.value)\n"
        var propertiesByEntity: [String: String] = [:]
        func modifier(_ value: Located<String>?) -> String { value.map { " modifier \($0.value)" } ?? "" }
        /// The stored properties' lines of an entity, its ancestors' first (as the runtime's slot layout).
        func properties(of entity: Entity, depth: Int = 0) -> String {
            if let known = propertiesByEntity[entity.name.value] { return known }
            var text = ""
            if depth < entities.count, let parent = entity.parent.flatMap({ self.entity(named: $0.value) }) {
                text = properties(of: parent, depth: depth + 1)
            }
            for attribute in entity.attributes.flatMap(storedAttributes(of:)) where !attribute.isTransient && attribute.type.value != .undefined {
                text += " a \(attribute.name.value) \(attribute.type.value.rawValue) \(attribute.isOptional)\(modifier(attribute.versionHashModifier))\n"
            }
            for relationship in entity.relationships where !relationship.isTransient {
                text += " r \(relationship.name.value) \(relationship.destination.value) \(relationship.isToMany) \(relationship.isOrdered)\(modifier(relationship.versionHashModifier))\n"
            }
            propertiesByEntity[entity.name.value] = text
            return text
        }
        for entity in entities {
            identity += "entity \(entity.name.value) parent \(entity.parent?.value ?? "-")\(modifier(entity.versionHashModifier))\n"
            identity += properties(of: entity)
        }
        // FNV-1a, 64 bits, in hex: the runtime's.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
