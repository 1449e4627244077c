import Foundation
import ModelgenArchive

/// A model file's version as archive lines: the description the generated code would give the runtime
/// for it, untyped (what `EarlierVersionsWriter` stores of each earlier version). The runtime archives
/// the generated current model the same way (`ArchivedModel(describing:)`), and the two agree line for
/// line: the history's edits start from the runtime's lines, checked by their digest.
extension ArchivedModel {
    /// The archive of `model`'s descriptions.
    init(model: ObjectModel) {
        self.init(name: model.name.value, entities: model.entities.map { entity in
            var archived = ArchivedEntity(name: entity.name.value)
            archived.isAbstract = entity.isAbstract
            archived.parent = entity.parent?.value
            archived.renamingIdentifier = entity.renamingIdentifier?.value
            archived.versionHashModifier = entity.versionHashModifier?.value
            archived.attributes = entity.attributes.flatMap(model.storedAttributes(of:)).map(ArchivedAttribute.init(attribute:))
            archived.relationships = entity.relationships.map(ArchivedRelationship.init(relationship:))
            archived.fetchedProperties = entity.fetchedProperties.map { property in
                var fetched = ArchivedFetchedProperty(name: property.name.value, destination: property.destination.value,
                                                      predicate: property.predicate?.source.text ?? "TRUEPREDICATE")
                fetched.sort = property.sortDescriptors.map(\.source.text)
                fetched.userInfo = property.userInfo.archived
                return fetched
            }
            archived.unique = entity.uniquenessConstraints.map { $0.names.map(\.value) }
            archived.indexes = entity.indexes.map { $0.names.map(\.value) }
            archived.dependencies = Dictionary(entity.computedProperties.map { ($0.name.value, $0.dependsOn.map(\.value)) }, uniquingKeysWith: { first, _ in first })
            archived.userInfo = entity.userInfo.archived
            return archived
        })
    }
}

extension ArchivedAttribute {
    init(attribute a: Attribute) {
        // The runtime holds an undefined attribute's values as a transformable's (see SwiftFormatter).
        self.init(name: a.name.value, type: a.type.value == .undefined ? "transformable" : a.type.value.rawValue)
        isOptional = a.isOptional
        isTransient = a.isTransient
        defaultValue = a.defaultValue.map { ArchivedValue($0.value) }
        minimum = a.minimum.flatMap { Self.bound($0.value) }
        maximum = a.maximum.flatMap { Self.bound($0.value) }
        regex = a.regex?.value
        allowsExternalStorage = a.allowsExternalStorage?.value == true
        derivation = a.derivation?.source.text
        renamingIdentifier = a.renamingIdentifier?.value
        versionHashModifier = a.versionHashModifier?.value
        userInfo = a.userInfo.archived
    }

    /// A bound as the runtime holds it (`SwiftFormatter.boundLiteral`'s value).
    static func bound(_ value: AttributeValue) -> Double? {
        switch value {
        case .integer(let i): return Double(i)
        case .floatingPoint(let d, _): return d
        case .decimal(let d, _): return NSDecimalNumber(decimal: d).doubleValue
        case .date(let d): return d.timeIntervalSinceReferenceDate
        default: return nil
        }
    }
}

extension ArchivedValue {
    /// A default value as the runtime holds it (`SwiftFormatter.storeValueLiteral`'s value).
    init(_ value: AttributeValue) {
        switch value {
        case .string(let s): self = .string(s)
        case .bool(let b): self = .bool(b)
        case .integer(let i): self = .int(i)
        case .floatingPoint(let d, _): self = .double(d)
        case .decimal(_, let text): self = .decimal(Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))?.description ?? text)
        case .date(let d): self = .date(d.timeIntervalSinceReferenceDate)
        case .uuid(let u): self = .uuid(u.uuidString)
        case .uri(let u): self = .url(u.absoluteString)
        }
    }
}

extension ArchivedRelationship {
    init(relationship r: Relationship) {
        self.init(name: r.name.value, destination: r.destination.value)
        if case .named(let inverse) = r.inverse { self.inverse = inverse.value }
        isToMany = r.isToMany
        isOrdered = r.isOrdered
        isOptional = r.isOptional
        isTransient = r.isTransient
        deleteRule = r.effectiveDeleteRule.rawValue
        minCount = r.minCount?.value
        maxCount = r.maxCount?.value
        renamingIdentifier = r.renamingIdentifier?.value
        versionHashModifier = r.versionHashModifier?.value
        userInfo = r.userInfo.archived
    }
}

extension [UserInfoEntry] {
    /// The entries as the runtime's description holds them (a key written twice keeps its first value).
    var archived: ArchivedUserInfo {
        Dictionary(map { ($0.key.value, $0.value.value) }, uniquingKeysWith: { first, _ in first })
    }
}
