extension ModelValidator {
    func checkModel() {
        let name = model.name
        if !name.value.isEmpty && (!SwiftNames.isIdentifier(name.value) || SwiftNames.keywords.contains(name.value)) {
            error(.invalidIdentifier, "model name '\(name.value)' is not a Swift identifier; it names the generated type '\(name.value)Model'", at: name.location)
        }
        for module in model.options.imports where !module.value.split(separator: ".", omittingEmptySubsequences: false)
            .allSatisfy({ SwiftNames.isIdentifier(String($0)) }) {
            error(.invalidIdentifier, "'\(module.value)' is not a module name to import", at: module.location)
        }
        if model.entities.isEmpty && !diagnostics.hasErrors {
            warning(.noEntities, "the model declares no entities", at: name.location)
        }

        // Entity names and class names are unique; class names also differ from the generated model type.
        // Class names name files, so they must differ in more than case: on a case-insensitive file
        // system (macOS's default) Item.swift and ITEM.swift are one file.
        // Read in place, with the entity graph's table of names (a repeated name is one whose first
        // position is another's) and one table of class names, holding positions: at 200,000 entities,
        // tables of their own grown entry by entry, and each entity copied whole for its names, made
        // this loop, on one thread, a third of validating.
        let modelTypeName = name.value + "Model"
        let lowercasedModelTypeName = modelTypeName.lowercased()
        model.entities.withUnsafeBufferPointer { entities in
            // Entities with generated code also get `<Class>Keys`: no class may take that name (looked for
            // only when some class name ends in `Keys`).
            var keysOwners: [String: String] = [:]
            // (By index: `contains(where:)` over the buffer copied each entity whole for its class name.)
            if entities.indices.contains(where: { entities[$0].swiftClassName.hasSuffix("Keys") }) {
                for position in entities.indices where model.codegen(of: entities[position]) != .none {
                    let key = entities[position].swiftClassName + "Keys"
                    _ = keysOwners.insertIfAbsent(entities[position].name.value, forKey: key)
                }
            }
            var classNames: [String: Int] = [:]
            classNames.reserveCapacity(entities.count)
            for position in entities.indices {
                // Names and positions are copied only for a diagnostic: a copied `SourceLocation` is its
                // file's path retained and released, one count all 200,000 entities' locations share.
                let entityName = entities[position].name.value
                if let first = graph.position(of: entityName), first != position {
                    error(.duplicateDeclaration, "entity '\(entityName)' is declared twice", at: entities[position].name.location,
                          notes: [.init("first declared here", at: entities[first].name.location)])
                    continue
                }
                var classLocation: SourceLocation { entities[position].swiftClassNameLocation }
                let className = entities[position].swiftClassName
                let lowercasedClassName = className.lowercased()
                if let earlier = classNames.insertIfAbsent(position, forKey: lowercasedClassName) {
                    let other = (entity: entities[earlier].name.value, className: entities[earlier].swiftClassName,
                                 location: entities[earlier].swiftClassNameLocation)
                    if other.className == className {
                        error(.nameCollision, "entities '\(other.entity)' and '\(entityName)' have the same class name '\(className)'; each entity needs its own class",
                              at: classLocation, notes: [.init("'\(other.entity)' uses the class here", at: other.location)])
                    } else {
                        error(.nameCollision, "class names '\(other.className)' and '\(className)' differ only in case; their files would be one file on a case-insensitive file system (macOS's default)",
                              at: classLocation, notes: [.init("'\(other.entity)' uses '\(other.className)' here", at: other.location)])
                    }
                }
                if !keysOwners.isEmpty, let keysOwner = keysOwners[className] {
                    error(.nameCollision, "class name '\(className)' collides with '\(className)', the key-name constants generated for entity '\(keysOwner)'",
                          at: classLocation)
                }
                if className == modelTypeName {
                    error(.nameCollision, "class name '\(className)' collides with the generated model type '\(modelTypeName)'", at: classLocation)
                } else if lowercasedClassName == lowercasedModelTypeName {
                    error(.nameCollision, "class name '\(className)' differs from the generated model type '\(modelTypeName)' only in case; their files would be one file on a case-insensitive file system (macOS's default)",
                          at: classLocation)
                }
            }
        }
    }

    func checkEntity(_ entity: Entity) {
        checkTypeName(entity.name, kind: "entity name")
        if let className = entity.className { checkTypeName(className, kind: "class name") }
        if let renaming = entity.renamingIdentifier {
            if renaming.value == entity.name.value {
                warning(.redundantRenaming, "renamingIdentifier '\(renaming.value)' is the entity's own name; it names the former name, for migration", at: renaming.location)
            } else if model.entity(named: renaming.value) != nil {
                error(.inapplicableOption, "renamingIdentifier '\(renaming.value)' of entity '\(entity.name.value)' names an entity the model still has; a store's records of it cannot be both", at: renaming.location)
            }
        }

        if let parent = entity.parent {
            if parent.value == entity.name.value {
                error(.inheritanceCycle, "entity '\(entity.name.value)' names itself as its parent (an inheritance cycle)", at: parent.location)
            } else {
                requireEntity(parent, "parent of '\(entity.name.value)'")
            }
        }

        // One name per property within the entity, across attributes, relationships and fetched properties.
        var seen: [String: SourceLocation] = [:]
        for name in entity.declaredPropertyCount < 2 ? [] : entity.declaredPropertyNames.sorted(by: { $0.location < $1.location }) {
            if let first = seen[name.value] {
                error(.duplicateDeclaration, "property '\(name.value)' is declared twice in entity '\(entity.name.value)'", at: name.location,
                      notes: [.init("first declared here", at: first)])
            } else {
                seen[name.value] = name.location
            }
        }
        // A subentity may not redeclare what an ancestor declares.
        for ancestor in graph.ancestors(of: entity) {
            for name in entity.declaredPropertyNames {
                if let inherited = ancestor.declaredPropertyNames.first(where: { $0.value == name.value }) {
                    error(.shadowedProperty, "property '\(name.value)' of '\(entity.name.value)' redeclares '\(name.value)' inherited from '\(ancestor.name.value)'; a subentity cannot override an inherited property",
                          at: name.location, notes: [.init("declared in '\(ancestor.name.value)' here", at: inherited.location)])
                }
            }
        }
        for list in entity.uniquenessConstraints {
            checkPropertyList(list, in: entity, what: "uniqueness constraint", allowsToOne: false)
        }
        for list in entity.indexes {
            checkPropertyList(list, in: entity, what: "index", allowsToOne: true)
        }
    }

    func checkTypeName(_ name: Located<String>, kind: String) {
        let text = name.value
        if !SwiftNames.isIdentifier(text) || SwiftNames.keywords.contains(text) {
            error(.invalidIdentifier, "\(kind) '\(text)' is not a Swift identifier", at: name.location)
        } else if !SwiftNames.startsUpperCase(text) {
            error(.nameCase, "\(kind) '\(text)' must start with an upper-case letter", at: name.location,
                  notes: [.init("did you mean '\(text.prefix(1).uppercased() + text.dropFirst())'?")])
        } else if SwiftNames.reservedTypeNames.contains(text) {
            error(.reservedName, "\(kind) '\(text)' collides with a type of the runtime or the Swift standard library that generated code uses; choose another name",
                  at: name.location)
        }
    }

    func checkPropertyList(_ list: PropertyNameList, in entity: Entity, what: String, allowsToOne: Bool) {
        if list.names.isEmpty {
            error(.invalidIndex, "empty \(what) in '\(entity.name.value)'; list at least one attribute", at: list.location)
        }
        var seen: Set<String> = []
        for name in list.names {
            if !seen.insert(name.value).inserted {
                error(.duplicateDeclaration, "'\(name.value)' appears twice in one \(what)", at: name.location)
                continue
            }
            // A composite's field by its dotted path (`address.city`): a column of the entity's own.
            let path = name.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            if path.count > 1, case .attribute(let root, _)? = graph.property(path[0], in: entity.name.value), root.type.value == .composite {
                if let field = model.compositeField(path[1...], of: root) {
                    if field.type.value == .composite {
                        error(.invalidIndex, "\(what) in '\(entity.name.value)' names composite '\(name.value)'; name one of its fields", at: name.location)
                    }
                } else {
                    error(.invalidIndex, "\(what) in '\(entity.name.value)' names unknown field '\(name.value)' of composite attribute '\(path[0])'", at: name.location)
                }
                continue
            }
            switch graph.property(name.value, in: entity.name.value) {
            case .attribute(let attribute, _) where attribute.type.value == .composite:
                error(.invalidIndex, "\(what) in '\(entity.name.value)' names composite attribute '\(name.value)'; name its fields, as in '\(name.value).\(model.composite(named: attribute.composite?.value ?? "")?.attributes.first?.name.value ?? "field")'",
                      at: name.location)
            case .attribute(let attribute, _):
                if attribute.isTransient {
                    error(.invalidIndex, "transient attribute '\(name.value)' cannot be part of \(what == "index" ? "an index" : "a uniqueness constraint"): it is never stored", at: name.location)
                }
            case .relationship(let relationship, _) where allowsToOne && !relationship.isToMany:
                break
            case .some(let other):
                error(.invalidIndex, "\(what) in '\(entity.name.value)' names \(other.kindName) '\(name.value)'; only \(allowsToOne ? "attributes and to-one relationships" : "attributes") can be used",
                      at: name.location)
            case nil:
                let notes = Suggestions.note(for: name.value, in: graph.propertyNames(in: entity.name.value)).map { [Diagnostic.Note($0)] } ?? []
                error(.invalidIndex, "\(what) in '\(entity.name.value)' names unknown attribute '\(name.value)'", at: name.location, notes: notes)
            }
        }
    }

    /// Reports each entity on an inheritance cycle, at its `parent:` value.
    func checkInheritanceCycles() {
        var reported: Set<String> = []
        // Only entities with a parent can be in a cycle (most have none: no copy, no table for them).
        for position in model.entities.indices where model.entities[position].parent != nil {
            let entity = model.entities[position]
            var chain: [Entity] = []
            var index: [String: Int] = [:]
            var current: Entity? = entity
            while let e = current, index[e.name.value] == nil {
                index[e.name.value] = chain.count
                chain.append(e)
                current = e.parent.flatMap { graph.entity($0.value) }
            }
            guard let repeated = current, let start = index[repeated.name.value] else { continue }
            let cycle = Array(chain[start...])
            guard cycle.count > 1 else { continue } // a self-parent is reported by checkEntity
            let names = (cycle.map(\.name.value) + [cycle[0].name.value]).joined(separator: " → ")
            for member in cycle where reported.insert(member.name.value).inserted {
                if let parent = member.parent {
                    error(.inheritanceCycle, "inheritance cycle: \(names)", at: parent.location)
                }
            }
        }
    }
}
