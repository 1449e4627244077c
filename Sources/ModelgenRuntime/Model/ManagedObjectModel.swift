import ModelgenPredicate

/// A predicate and sort descriptors parsed once, when the model is built.
struct ParsedFetch {
    var predicate: FetchPredicate?
    var sortDescriptors: [SortDescriptor]
    /// An aggregate template's having predicate.
    var having: FetchPredicate?

    /// Parses a template's or fetched property's strings, naming `owner` in the error.
    init(predicate: String?, sort: [String], having: String? = nil, owner: String) throws {
        do {
            self.predicate = try predicate.map { try FetchPredicate($0) }
            sortDescriptors = try sort.map { try SortDescriptor(parsing: $0) }
            self.having = try having.map { try FetchPredicate($0) }
        } catch {
            throw RuntimeError.invalidModel("\(owner): \(error)")
        }
    }
}

/// Errors of the runtime: model problems, misuse, and values a store holds that the model does not accept.
public enum RuntimeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The model's descriptions contradict each other (the message says how).
    case invalidModel(String)
    /// No entity has this name.
    case unknownEntity(String)
    /// The entity has no property with this key.
    case unknownKey(entity: String, key: String)
    /// Abstract entities have no objects of their own.
    case abstractEntity(String)
    /// A value of the wrong type for a property.
    case typeMismatch(expected: String, found: String)
    /// No object with this ID in the context or its store.
    case objectNotFound(ObjectID)
    /// A store holds a value the model's Swift type does not accept (a raw value no enum case has, data that does not decode).
    case invalidStoredValue(entity: String, key: String, value: String, swiftType: String)
    /// A predicate that does not parse or names what the entity does not have.
    case invalidPredicate(String)
    /// A predicate's `$VARIABLE` was given no value.
    case missingVariable(String)
    /// An object used with a context that does not own it.
    case wrongContext(String)
    /// A number does not fit the attribute's type (an `int16` given 100,000; a count beyond `Int64`).
    case valueOutOfRange(entity: String, key: String, value: String, type: String)

    public var description: String {
        switch self {
        case .invalidModel(let m): return "invalid model: \(m)"
        case .unknownEntity(let n): return "unknown entity '\(n)'"
        case .unknownKey(let e, let k): return "entity '\(e)' has no property '\(k)'"
        case .abstractEntity(let n): return "entity '\(n)' is abstract: create one of its subentities instead"
        case .typeMismatch(let expected, let found): return "type mismatch: expected \(expected), found \(found)"
        case .objectNotFound(let id): return "no object with ID \(id)"
        case .invalidStoredValue(let e, let k, let v, let t): return "the store holds \(v) in \(e).\(k), which \(t) does not accept"
        case .invalidPredicate(let m): return "invalid predicate: \(m)"
        case .missingVariable(let v): return "no value given for $\(v)"
        case .wrongContext(let m): return m
        case .valueOutOfRange(let e, let k, let v, let t): return "\(v) does not fit \(e).\(k), a \(t) attribute"
        }
    }
}

/// The model: entities with their inheritance and slot layouts, fetch request templates and configurations.
/// Built once (usually as a `static let` of the generated model type) and shared by every container.
public final class ManagedObjectModel: @unchecked Sendable {
    /// The model's name (`Blog` for `BlogModel`).
    public let name: String
    /// Entities in declaration order.
    public let entities: [EntityDescription]
    /// Fetch request templates by name.
    public let fetchRequestTemplates: [String: FetchRequestTemplate]
    /// Configurations by name: the entity names each holds (`Default` holds every entity).
    public let configurations: [String: [String]]
    /// An identity for stores to record: changes when entities or stored properties change.
    public let versionHash: String
    /// The templates' predicates and sorts, parsed once.
    let parsedTemplates: [String: ParsedFetch]
    private let entitiesByName: [String: EntityDescription]
    private let entitiesByClass: [ObjectIdentifier: EntityDescription]

    /// Builds and resolves a model; throws when names do not resolve.
    public init(name: String, entities: [EntityDescription], fetchRequestTemplates: [FetchRequestTemplate] = [],
                configurations: [String: [String]] = [:]) throws {
        self.name = name
        self.entities = entities
        self.fetchRequestTemplates = Dictionary(fetchRequestTemplates.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.configurations = configurations
        var byName: [String: EntityDescription] = [:]
        for entity in entities {
            guard byName[entity.name] == nil else { throw RuntimeError.invalidModel("entity '\(entity.name)' is declared twice") }
            byName[entity.name] = entity
        }
        entitiesByName = byName
        var byClass: [ObjectIdentifier: EntityDescription] = [:]
        for entity in entities { byClass[ObjectIdentifier(entity.managedClass)] = byClass[ObjectIdentifier(entity.managedClass)] ?? entity }
        entitiesByClass = byClass

        // Parents.
        for entity in entities {
            if let parentName = entity.parentName {
                guard let parent = byName[parentName] else { throw RuntimeError.invalidModel("parent '\(parentName)' of '\(entity.name)' is not an entity") }
                entity.parent = parent
                parent.subentities.append(entity)
            }
        }
        // Slot layouts, parents first so subentities extend their parent's layout.
        var resolved: Set<ObjectIdentifier> = []
        func layout(_ entity: EntityDescription, depth: Int) throws {
            if resolved.contains(ObjectIdentifier(entity)) { return }
            guard depth < entities.count + 1 else { throw RuntimeError.invalidModel("inheritance cycle at '\(entity.name)'") }
            var properties: [PropertyDescription] = []
            if let parent = entity.parent {
                try layout(parent, depth: depth + 1)
                properties = parent.properties
            }
            properties += entity.ownAttributes.map(PropertyDescription.attribute)
            properties += entity.ownRelationships.map(PropertyDescription.relationship)
            entity.properties = properties
            entity.scalarKinds.deallocate()
            entity.scalarKinds = .allocate(capacity: max(properties.count, 1))
            for (slot, property) in properties.enumerated() {
                var kind = ScalarKind.boxed
                if case .attribute(let a) = property {
                    switch a.type {
                    case .int16, .int32, .int64: kind = .int
                    case .float, .double: kind = .double
                    case .bool: kind = .bool
                    case .date: kind = .date
                    default: kind = .boxed
                    }
                }
                entity.scalarKinds[slot] = kind.rawValue
            }
            entity.layOutSlots()
            for (slot, property) in properties.enumerated() {
                guard entity.slotsByName[property.name] == nil else {
                    throw RuntimeError.invalidModel("'\(entity.name)' declares '\(property.name)' twice (inherited properties cannot be redeclared)")
                }
                entity.slotsByName[property.name] = slot
                if property.name.contains(".") { entity.hasCompositeFields = true }
            }
            resolved.insert(ObjectIdentifier(entity))
        }
        for entity in entities { try layout(entity, depth: 0) }
        // Destinations and inverses.
        for entity in entities {
            for (slot, property) in entity.properties.enumerated() {
                guard case .relationship(let relationship) = property else { continue }
                guard let destination = byName[relationship.destinationName] else {
                    throw RuntimeError.invalidModel("destination '\(relationship.destinationName)' of '\(entity.name).\(relationship.name)' is not an entity")
                }
                var inverseSlot: Int?
                if let inverseName = relationship.inverseName {
                    guard let s = destination.slotsByName[inverseName], case .relationship = destination.properties[s] else {
                        throw RuntimeError.invalidModel("inverse '\(inverseName)' of '\(entity.name).\(relationship.name)' is not a relationship of '\(destination.name)'")
                    }
                    inverseSlot = s
                }
                entity.destinations[slot] = (destination, inverseSlot)
            }
        }
        // Dependent keys, resolved to slot paths (inherited ones included; a dependency on another
        // computed property stands for that property's own dependencies).
        func slotPaths(of key: String, in entity: EntityDescription, depth: Int) throws -> [[Int]] {
            guard depth < 32 else { throw RuntimeError.invalidModel("the dependencies of '\(entity.name).\(key)' go round in a circle") }
            var result: [[Int]] = []
            for path in entity.dependencies(of: key) {
                var slots: [Int] = [], step: EntityDescription = entity
                let names = path.split(separator: ".").map(String.init)
                var index = 0
                while index < names.count {
                    // A composite's field spans several names (`address.city`); the whole composite
                    // (`address`) stands for all its fields.
                    if let (field, end) = step.compositeKey(names, at: index) {
                        slots.append(step.slotsByName[field]!)
                        index = end
                        continue
                    }
                    let name = names[index]
                    index += 1
                    if step.hasCompositeFields, step.properties.contains(where: { $0.name.hasPrefix(name + ".") }) {
                        result += step.properties.indices
                            .filter { step.properties[$0].name == name || step.properties[$0].name.hasPrefix(name + ".") }
                            .map { slots + [$0] }
                        slots = []
                        break
                    }
                    if let slot = step.slotsByName[name] {
                        slots.append(slot)
                        if case .relationship = step.properties[slot] { step = step.destinations[slot]!.entity }
                    } else if !step.dependencies(of: name).isEmpty {
                        result += try slotPaths(of: name, in: step, depth: depth + 1).map { slots + $0 }
                        slots = []
                        break
                    } else {
                        throw RuntimeError.invalidModel("'\(path)' in the dependencies of '\(entity.name).\(key)': '\(step.name)' has no property '\(name)'")
                    }
                }
                if !slots.isEmpty { result.append(slots) }
            }
            return result
        }
        for entity in entities {
            var keys: Set<String> = []
            var current: EntityDescription? = entity
            while let e = current { keys.formUnion(e.dependencies.keys); current = e.parent }
            for key in keys { entity.dependencySlotPaths[key] = try slotPaths(of: key, in: entity, depth: 0) }
        }
        // Everything written as predicate-language text is parsed now, once: a mistake is a model error here,
        // and fetches, fetched properties and saves never parse again.
        for entity in entities {
            entity.initialSlots = entity.properties.map(ManagedObject.initialSlot)
            entity.observationKeyPaths = EntityDescription.makeObservationKeyPaths(count: entity.properties.count)
            entity.hasToManyRelationships = entity.properties.contains { property in
                if case .relationship(let r) = property { return r.isToMany && !r.isTransient }
                return false
            }
            let toManySlots = entity.properties.indices.filter { slot in
                if case .relationship(let r) = entity.properties[slot] { return r.isToMany && !r.isTransient }
                return false
            }
            entity.relationshipSlots = entity.properties.indices.filter { slot in
                if case .relationship = entity.properties[slot] { return true }
                return false
            }
            entity.lazyToManyMask = toManySlots.allSatisfy { $0 < 32 } ? toManySlots.reduce(0) { $0 | 1 << UInt32($1) } : 0
            entity.awakesFromFetch = entity.managedClass._awakesFromFetch
            entity.mayValidateValues = entity.managedClass._mayValidateValues
            entity.needsCheckedLoad = entity.properties.contains { property in
                if case .attribute(let a) = property { return a.type == .transformable || a.acceptsRawValue != nil }
                return false
            }
            entity.validationSteps = entity.properties.map(ValidationStep.init)
            entity.isPlainStoredAttribute = entity.properties.map { property in
                if case .attribute(let a) = property { return !a.isTransient && a.type != .transformable && a.acceptsRawValue == nil }
                return false
            }
            entity.slotsNotPlain = entity.isPlainStoredAttribute.indices.filter { !entity.isPlainStoredAttribute[$0] }
            for (slot, property) in entity.properties.enumerated() {
                guard case .attribute(let a) = property, let derivation = a.derivation else { continue }
                do throws(PredicateSyntaxError) {
                    entity.derivations[slot] = try PredicateParser.parseExpression(derivation)
                } catch {
                    throw RuntimeError.invalidModel("derivation '\(derivation)' of \(entity.name).\(a.name): \(error.message)")
                }
            }
            for property in entity.fetchedProperties {
                let owner = "fetched property \(entity.name).\(property.name)"
                var parsed = try ParsedFetch(predicate: property.predicate, sort: property.sortDescriptors, owner: owner)
                if let predicate = parsed.predicate?.predicate {
                    parsed.predicate = FetchPredicate(try Self.resolvingFetchedProperty(predicate, property, owner: owner))
                }
                entity.parsedFetchedProperties[property.name] = parsed
            }
        }
        var templates: [String: ParsedFetch] = [:]
        for template in fetchRequestTemplates {
            templates[template.name] = try ParsedFetch(predicate: template.predicate, sort: template.sortDescriptors, having: template.having,
                                                       owner: "fetch request template '\(template.name)'")
        }
        parsedTemplates = templates
        for entity in entities { try entity.checkManagedProperties() }

        // The version hash covers what a store keeps: entities, stored properties and their types (and
        // the version hash modifiers, which say the data changed where the layout did not).
        var identity = "model \(name)\n"
        func modifier(_ value: String?) -> String { value.map { " modifier \($0)" } ?? "" }
        for entity in entities {
            identity += "entity \(entity.name) parent \(entity.parentName ?? "-")\(modifier(entity.versionHashModifier))\n"
            for property in entity.properties where !property.isTransient {
                switch property {
                case .attribute(let a): identity += " a \(a.name) \(a.type.rawValue) \(a.isOptional)\(modifier(a.versionHashModifier))\n"
                case .relationship(let r): identity += " r \(r.name) \(r.destinationName) \(r.isToMany) \(r.isOrdered)\(modifier(r.versionHashModifier))\n"
                }
            }
        }
        versionHash = Self.fnv1a(identity)
        for entity in entities { entity.model = self }
    }

    /// The entity with this name.
    public func entity(named name: String) -> EntityDescription? { entitiesByName[name] }

    /// The entity whose class is `type`.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? { entitiesByClass[ObjectIdentifier(type)] }

    /// The property name the model gives a key path of an entity's class (`\Book.authors` is
    /// `authors`), from the key paths its description lists (generated code lists them all); nil
    /// when it names none.
    func keyPathName(_ keyPath: AnyKeyPath) -> String? {
        guard let root = type(of: keyPath).rootType as? ManagedObject.Type, let entity = entity(for: root) else { return nil }
        return entity.keyPathNames[keyPath]
    }

    /// A fetched property's predicate with `$FETCHED_PROPERTY.userInfo.<key>` replaced by the property's
    /// userInfo value (a number when it reads as one; NIL when there is no such entry), as Core Data
    /// reads the fetched property description.
    static func resolvingFetchedProperty(_ predicate: ModelgenPredicate.Predicate, _ property: FetchedPropertyDescription,
                                         owner: String) throws -> ModelgenPredicate.Predicate {
        var problem: String?
        let resolved = predicate.mapExpressions { expression in
            switch expression.kind {
            case .variableKeyPath("FETCHED_PROPERTY", let path):
                guard path.count == 2, path[0].text == "userInfo" else {
                    problem = "$FETCHED_PROPERTY is read as $FETCHED_PROPERTY.userInfo.<key>, not $FETCHED_PROPERTY.\(path.map(\.text).joined(separator: "."))"
                    return expression
                }
                // userInfo values are text; one that reads as a number compares as one (as SQLite's
                // affinity compares '400' with an integer column).
                guard let text = property.userInfo[path[1].text] else { return Expression(.null, range: expression.range) }
                let number = Double(text).flatMap { $0.isFinite && !text.contains(where: \.isLetter) ? text : nil }
                return Expression(number.map { .number($0) } ?? .string(text), range: expression.range)
            case .variable("FETCHED_PROPERTY"):
                problem = "$FETCHED_PROPERTY is read as $FETCHED_PROPERTY.userInfo.<key>"
                return expression
            default:
                return expression
            }
        }
        if let problem { throw RuntimeError.invalidModel("\(owner): \(problem)") }
        return resolved
    }

    static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return String(hash, radix: 16)
    }
}
