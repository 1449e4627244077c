import Foundation

/// The one place where the template context carries Swift written out, for the built-in templates:
/// the model description's declarations (`static let post: EntityDescription = EntityDescription(…)`
/// with its attribute, relationship and fetched property descriptions, constraints, indexes,
/// dependencies and key paths, one line a list element) and value literals (`Decimal(string: "1.5",
/// …)!`, `Date(…)`) here, and an entity's members (`SwiftFormatter+Members.swift`: each property's
/// declaration, its `Keys` constant, a to-many relationship's functions). Everything it writes is made
/// from data the context also gives, so a template can write the same itself
/// (`Templates/Explicit/entity.mustache` does, and a test keeps its output identical).
struct SwiftFormatter {
    let builder: ModelViewBuilder
    var model: ObjectModel { builder.model }

    /// A default value as a Swift expression of the field's type.
    func swiftLiteral(_ value: AttributeValue) -> String {
        switch value {
        case .string(let s): return SwiftLiterals.string(s)
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .floatingPoint(let d, _): return SwiftLiterals.double(d)
        case .decimal(_, let text): return "Decimal(string: \(SwiftLiterals.string(text)), locale: Locale(identifier: \"en_US_POSIX\"))!"
        case .date(let d): return "Date(timeIntervalSinceReferenceDate: \(SwiftLiterals.double(d.timeIntervalSinceReferenceDate)))"
        case .uuid(let u): return "UUID(uuidString: \(SwiftLiterals.string(u.uuidString)))!"
        case .uri(let u): return "URL(string: \(SwiftLiterals.string(u.absoluteString)))!"
        }
    }

    /// Where the built-in model template writes the declarations (inside `enum Entities`).
    static let builtinIndent = "        "

    /// An entity's declaration as one text for the built-in template: one line a list element, lines
    /// after the first indented by `builtinIndent` (the template writes the first line's), built in one
    /// string (lines joined afterwards cost a third more).
    ///
    /// `untyped` (an earlier version of the model, see `EarlierVersionsWriter`): the class is
    /// `ManagedObject` and nothing names the user's types (no key paths, codecs or Swift types).
    func entityDescription(_ entity: Entity, untyped: Bool = false) -> String {
        var text = "static let \(builder.entityMember(entity)): EntityDescription = EntityDescription(\(SwiftLiterals.string(entity.name.value)), class: \(untyped ? "ManagedObject" : entity.swiftClassName).self"
        // About 150 bytes a property (its description and its key path): one allocation instead of a growing string's six.
        text.reserveCapacity(256 + 150 * (entity.attributes.count + entity.relationships.count + entity.fetchedProperties.count))
        if entity.isAbstract { text += ", abstract: true" }
        if let parent = entity.parent { text += ", parent: \(SwiftLiterals.string(parent.value))" }
        if let renaming = entity.renamingIdentifier { text += ", renamingIdentifier: \(SwiftLiterals.string(renaming.value))" }
        if let modifier = entity.versionHashModifier { text += ", versionHashModifier: \(SwiftLiterals.string(modifier.value))" }
        text += ","
        var lineCount = 1
        func line(_ content: String) {
            text += "\n"
            text += Self.builtinIndent
            text += content
            lineCount += 1
        }
        func list(_ label: String, _ items: [String]) {
            guard !items.isEmpty else { return }
            line("    \(label): [")
            for item in items { line("        " + item + ",") }
            line("    ],")
        }
        // A composite attribute is described by its stored fields; others as they are (not copied
        // into a list of one: an `Attribute` is 760 bytes).
        var attributes: [String] = []
        for attribute in entity.attributes {
            if attribute.type.value == .composite {
                attributes += model.storedAttributes(of: attribute).map { attributeDescription($0, untyped: untyped) }
            } else {
                attributes.append(attributeDescription(attribute, untyped: untyped))
            }
        }
        list("attributes", attributes)
        list("relationships", entity.relationships.map(relationshipDescription))
        list("fetchedProperties", entity.fetchedProperties.map { f in
            var text = "FetchedPropertyDescription(\(SwiftLiterals.string(f.name.value)), destination: \(SwiftLiterals.string(f.destination.value)), predicate: \(SwiftLiterals.string(f.predicate?.source.text ?? "TRUEPREDICATE"))"
            if !f.sortDescriptors.isEmpty { text += ", sort: [\(f.sortDescriptors.map { SwiftLiterals.string($0.source.text) }.joined(separator: ", "))]" }
            if !f.userInfo.isEmpty { text += ", userInfo: \(userInfo(f.userInfo))" }
            return text + ")"
        })
        func names(_ lists: [PropertyNameList]) -> String {
            "[" + lists.map { "[" + $0.names.map { SwiftLiterals.string($0.value) }.joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
        }
        if !entity.uniquenessConstraints.isEmpty { line("    unique: \(names(entity.uniquenessConstraints)),") }
        if !entity.indexes.isEmpty { line("    indexes: \(names(entity.indexes)),") }
        if !entity.computedProperties.isEmpty {
            let entries = entity.computedProperties.map { c in
                "\(SwiftLiterals.string(c.name.value)): [" + c.dependsOn.map { SwiftLiterals.string($0.value) }.joined(separator: ", ") + "]"
            }
            line("    dependencies: [\(entries.joined(separator: ", "))],")
        }
        if !entity.userInfo.isEmpty { line("    userInfo: \(userInfo(entity.userInfo)),") }
        // The class's key paths by property name, inherited ones included, for `#Predicate` queries (the
        // class of a none-mode entity is the user's: its properties are not known here).
        if model.codegen(of: entity) != .none && !untyped {
            func paths(of owner: Entity) -> [(swift: String, name: String)] {
                owner.attributes.flatMap { keyPaths(of: $0) } + owner.relationships.map { (SwiftLiterals.identifier($0.name.value), $0.name.value) }
            }
            let all = builder.ancestors(entity).flatMap { paths(of: model.entities[$0]) } + paths(of: entity)
            list("keyPaths", all.map { "\\\(entity.swiftClassName).\($0.swift): \(SwiftLiterals.string($0.name))" })
        }
        // Drop the trailing comma of the last argument and close the call (on the head's line
        // when nothing follows it).
        text.removeLast()
        if lineCount == 1 { text += ")" } else { line(")") }
        return text
    }

    func userInfo(_ entries: [UserInfoEntry]) -> String {
        "[" + entries.map { "\(SwiftLiterals.string($0.key.value)): \(SwiftLiterals.string($0.value.value))" }.joined(separator: ", ") + "]"
    }

    func storeValueLiteral(_ value: AttributeValue) -> String {
        let literal = swiftLiteral(value)
        switch value {
        case .string: return ".string(\(literal))"
        case .bool: return ".bool(\(literal))"
        case .integer: return ".int(\(literal))"
        case .floatingPoint: return ".double(\(literal))"
        case .decimal: return ".decimal(\(literal))"
        case .date: return ".date(\(literal))"
        case .uuid: return ".uuid(\(literal))"
        case .uri: return ".url(\(literal))"
        }
    }

    func boundLiteral(_ value: AttributeValue) -> String? {
        switch value {
        case .integer(let i): return SwiftLiterals.double(Double(i))
        case .floatingPoint(let d, _): return SwiftLiterals.double(d)
        case .decimal(let d, _): return SwiftLiterals.double(NSDecimalNumber(decimal: d).doubleValue)
        case .date(let d): return SwiftLiterals.double(d.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }

    func attributeDescription(_ a: Attribute, untyped: Bool = false) -> String {
        // The runtime holds an undefined attribute's values as a transformable's, and never stores them (transient).
        var text = "AttributeDescription(\(SwiftLiterals.string(a.name.value)), .\(a.type.value == .undefined ? "transformable" : a.type.value.rawValue)"
        if a.isOptional { text += ", optional: true" }
        if a.isTransient { text += ", transient: true" }
        if let value = a.defaultValue?.value { text += ", defaultValue: \(storeValueLiteral(value))" }
        if let min = a.minimum.flatMap({ boundLiteral($0.value) }) { text += ", minimum: \(min)" }
        if let max = a.maximum.flatMap({ boundLiteral($0.value) }) { text += ", maximum: \(max)" }
        if let regex = a.regex { text += ", regex: \(SwiftLiterals.string(regex.value))" }
        if a.allowsExternalStorage?.value == true { text += ", externalStorage: true" }
        if let derivation = a.derivation { text += ", derivation: \(SwiftLiterals.string(derivation.source.text))" }
        if let renaming = a.renamingIdentifier { text += ", renamingIdentifier: \(SwiftLiterals.string(renaming.value))" }
        if let modifier = a.versionHashModifier { text += ", versionHashModifier: \(SwiftLiterals.string(modifier.value))" }
        if let swiftType = a.swiftType?.value, !untyped {
            if a.type.value == .undefined {
                // No codec: never stored.
            } else if a.type.value == .transformable {
                text += a.transformer.map { ", codec: .transformer(\($0.value).self)" } ?? ", codec: .codable(\(swiftType).self)"
            } else {
                text += ", acceptsRawValue: ValueCodec.acceptsRawValue(of: \(swiftType).self)"
            }
            text += ", swiftTypeName: \(SwiftLiterals.string(swiftType))"
        }
        if !a.userInfo.isEmpty { text += ", userInfo: \(userInfo(a.userInfo))" }
        return text + ")"
    }

    /// An attribute's key path and name, and for a composite those of its fields (`billing.city`,
    /// `shipping?.city` through an optional one): a `SortDescriptor` holds such a path as one key path.
    func keyPaths(of a: Attribute, depth: Int = 0) -> [(swift: String, name: String)] {
        let own = (SwiftLiterals.identifier(a.name.value), a.name.value)
        guard a.type.value == .composite, depth < 16, let type = model.composite(named: a.composite?.value ?? "") else { return [own] }
        let separator = a.isOptional ? "?." : "."
        return [own] + type.attributes.flatMap { field in
            keyPaths(of: field, depth: depth + 1).map { (own.0 + separator + $0.swift, own.1 + "." + $0.name) }
        }
    }

    func relationshipDescription(_ r: Relationship) -> String {
        var text = "RelationshipDescription(\(SwiftLiterals.string(r.name.value)), destination: \(SwiftLiterals.string(r.destination.value))"
        if case .named(let inverse) = r.inverse { text += ", inverse: \(SwiftLiterals.string(inverse.value))" } else { text += ", inverse: nil" }
        if r.isToMany { text += ", toMany: true" }
        if r.isOrdered { text += ", ordered: true" }
        if !r.isOptional { text += ", optional: false" }
        if r.isTransient { text += ", transient: true" }
        if r.effectiveDeleteRule != .nullify { text += ", deleteRule: .\(r.effectiveDeleteRule.rawValue)" }
        if let min = r.minCount { text += ", minCount: \(min.value)" }
        if let max = r.maxCount { text += ", maxCount: \(max.value)" }
        if let renaming = r.renamingIdentifier { text += ", renamingIdentifier: \(SwiftLiterals.string(renaming.value))" }
        if let modifier = r.versionHashModifier { text += ", versionHashModifier: \(SwiftLiterals.string(modifier.value))" }
        if !r.userInfo.isEmpty { text += ", userInfo: \(userInfo(r.userInfo))" }
        return text + ")"
    }
}
