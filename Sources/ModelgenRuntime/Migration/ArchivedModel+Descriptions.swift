import Foundation
import ModelgenArchive

/// A model description as archive lines and back: what `ModelVersionHistory` edits to reach a model's
/// earlier versions. The lines leave out what names Swift types (classes, codecs, key paths): an
/// earlier version's records are `ManagedObject`s read by key.
extension ArchivedModel {
    /// The archive of `model`'s descriptions.
    init(describing model: ManagedObjectModel) {
        self.init(name: model.name, entities: model.entities.map { entity in
            var archived = ArchivedEntity(name: entity.name)
            archived.isAbstract = entity.isAbstract
            archived.parent = entity.parentName
            archived.renamingIdentifier = entity.renamingIdentifier
            archived.versionHashModifier = entity.versionHashModifier
            archived.attributes = entity.ownAttributes.map(ArchivedAttribute.init(describing:))
            archived.relationships = entity.ownRelationships.map(ArchivedRelationship.init(describing:))
            archived.fetchedProperties = entity.fetchedProperties.map { property in
                var fetched = ArchivedFetchedProperty(name: property.name, destination: property.destinationName, predicate: property.predicate)
                fetched.sort = property.sortDescriptors
                fetched.userInfo = property.userInfo
                return fetched
            }
            archived.unique = entity.uniquenessConstraints
            archived.indexes = entity.indexes
            archived.dependencies = entity.dependencies
            archived.userInfo = entity.userInfo
            return archived
        })
    }

    /// The model the lines describe, its records `ManagedObject`s.
    func managedObjectModel() throws -> ManagedObjectModel {
        try ManagedObjectModel(name: name, entities: try entities.map { entity in
            EntityDescription(entity.name, class: ManagedObject.self, abstract: entity.isAbstract, parent: entity.parent,
                              renamingIdentifier: entity.renamingIdentifier, versionHashModifier: entity.versionHashModifier,
                              attributes: try entity.attributes.map { try $0.description() },
                              relationships: try entity.relationships.map { try $0.description() },
                              fetchedProperties: entity.fetchedProperties.map {
                                  FetchedPropertyDescription($0.name, destination: $0.destination, predicate: $0.predicate, sort: $0.sort,
                                                             userInfo: $0.userInfo)
                              },
                              unique: entity.unique, indexes: entity.indexes,
                              dependencies: entity.dependencies,
                              userInfo: entity.userInfo)
        })
    }
}

extension ArchivedAttribute {
    init(describing attribute: AttributeDescription) {
        self.init(name: attribute.name, type: attribute.type.rawValue)
        isOptional = attribute.isOptional
        isTransient = attribute.isTransient
        defaultValue = ArchivedValue(attribute.defaultValue)
        minimum = attribute.minimum
        maximum = attribute.maximum
        regex = attribute.regex
        allowsExternalStorage = attribute.allowsExternalStorage
        derivation = attribute.derivation
        renamingIdentifier = attribute.renamingIdentifier
        versionHashModifier = attribute.versionHashModifier
        userInfo = attribute.userInfo
    }

    func description() throws -> AttributeDescription {
        guard let type = AttributeType(rawValue: type) else { throw RuntimeError.invalidModel("archived attribute '\(name)' has the unknown type '\(self.type)'") }
        return AttributeDescription(name, type, optional: isOptional, transient: isTransient, defaultValue: defaultValue.map(StoreValue.init) ?? .null,
                                    minimum: minimum, maximum: maximum, regex: regex, externalStorage: allowsExternalStorage,
                                    derivation: derivation, renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
                                    userInfo: userInfo)
    }
}

extension ArchivedRelationship {
    init(describing relationship: RelationshipDescription) {
        self.init(name: relationship.name, destination: relationship.destinationName)
        inverse = relationship.inverseName
        isToMany = relationship.isToMany
        isOrdered = relationship.isOrdered
        isOptional = relationship.isOptional
        isTransient = relationship.isTransient
        deleteRule = relationship.deleteRule.rawValue
        minCount = relationship.minCount
        maxCount = relationship.maxCount
        renamingIdentifier = relationship.renamingIdentifier
        versionHashModifier = relationship.versionHashModifier
        userInfo = relationship.userInfo
    }

    func description() throws -> RelationshipDescription {
        guard let rule = DeleteRule(rawValue: deleteRule) else { throw RuntimeError.invalidModel("archived relationship '\(name)' has the unknown delete rule '\(deleteRule)'") }
        return RelationshipDescription(name, destination: destination, inverse: inverse, toMany: isToMany, ordered: isOrdered,
                                       optional: isOptional, transient: isTransient, deleteRule: rule, minCount: minCount, maxCount: maxCount,
                                       renamingIdentifier: renamingIdentifier, versionHashModifier: versionHashModifier,
                                       userInfo: userInfo)
    }
}

extension ArchivedValue {
    /// A default value as archived (nil for none; binary attributes have no default).
    init?(_ value: StoreValue) {
        switch value {
        case .null, .data, .reference, .references: return nil
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .decimal(let value): self = .decimal(value.description)
        case .string(let value): self = .string(value)
        case .date(let value): self = .date(value.timeIntervalSinceReferenceDate)
        case .uuid(let value): self = .uuid(value.uuidString)
        case .url(let value): self = .url(value.absoluteString)
        }
    }
}

extension StoreValue {
    init(_ value: ArchivedValue) {
        switch value {
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .double(let value): self = .double(value)
        case .decimal(let text): self = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map { .decimal($0) } ?? .null
        case .string(let value): self = .string(value)
        case .date(let seconds): self = .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid(let text): self = UUID(uuidString: text).map { .uuid($0) } ?? .null
        case .url(let text): self = URL(string: text).map { .url($0) } ?? .null
        }
    }
}
