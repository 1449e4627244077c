extension ObjectModel {
    /// The attributes an entity attribute is stored as, in slot and column order: the attribute
    /// itself, or for a composite attribute its fields flattened under its name (`address.street`,
    /// `address.geo.latitude` for a nested composite), as Core Data stores composites.
    ///
    /// An optional composite (`address: Address?`) starts with a presence attribute named like it
    /// (an optional bool: NULL when the value is nil), so `nil` and a value whose fields are all nil
    /// stay apart; its fields are optional in storage and take no defaults, since a nil composite
    /// leaves them empty. A composite that contains itself (an error the validator reports) stops
    /// at the repetition.
    public func storedAttributes(of attribute: Attribute) -> [Attribute] {
        guard attribute.type.value == .composite else { return [attribute] }
        var result: [Attribute] = []
        var visiting: Set<String> = []
        appendFields(of: attribute, prefix: "", insideOptional: false, visiting: &visiting, into: &result)
        return result
    }

    /// How many storage slots an attribute takes (1, or its composite's flattened fields).
    public func slotCount(of attribute: Attribute) -> Int {
        attribute.type.value == .composite ? storedAttributes(of: attribute).count : 1
    }

    /// How many storage slots a value of a composite type takes: its flattened fields (a nested
    /// optional composite's presence included), as `ManagedComposite.managedSlotCount` says.
    public func slotCount(ofComposite type: CompositeType) -> Int {
        var result: [Attribute] = []
        var visiting: Set<String> = [type.name.value]
        for field in type.attributes {
            appendFields(of: field, prefix: "", insideOptional: false, visiting: &visiting, into: &result)
        }
        return result.count
    }

    /// A composite attribute's field by dotted path (`address.city`, `address.geo.latitude`), if the
    /// path names a field of a composite attribute `root`.
    public func compositeField(_ path: ArraySlice<String>, of root: Attribute) -> Attribute? {
        var current = root
        for name in path {
            guard current.type.value == .composite, let type = current.composite.flatMap({ composite(named: $0.value) }),
                  let field = type.attributes.first(where: { $0.name.value == name }) else { return nil }
            current = field
        }
        return current
    }

    private func appendFields(of attribute: Attribute, prefix: String, insideOptional: Bool,
                              visiting: inout Set<String>, into result: inout [Attribute]) {
        let name = prefix + attribute.name.value
        guard attribute.type.value == .composite else {
            var field = attribute
            field.name.value = name
            if insideOptional {
                field.isOptional = true
                field.defaultValue = nil
            }
            result.append(field)
            return
        }
        let optional = insideOptional || attribute.isOptional
        if attribute.isOptional {
            var presence = Attribute(name: Located(name, at: attribute.name.location), type: Located(.bool, at: attribute.type.location))
            presence.isOptional = true
            result.append(presence)
        }
        guard let typeName = attribute.composite?.value, let type = composite(named: typeName),
              visiting.insert(typeName).inserted else { return }
        for field in type.attributes {
            appendFields(of: field, prefix: name + ".", insideOptional: optional, visiting: &visiting, into: &result)
        }
        visiting.remove(typeName)
    }
}
