import Foundation
import ModelgenRuntime

// The smoke run of an imported real-world model (compiled by RealWorldModelTests with the model's
// generated code): in the in-memory store and in SQLite, insert one object of each concrete entity
// with its required values (and the related objects it requires), save, then fetch each entity back
// in a new context and read every property.

/// A value of the Swift type a transformable attribute names, from the stubs the test wrote.
typealias SampleValues = [String: any Sendable]

func smokeRun(_ model: ManagedObjectModel, samples: SampleValues, storeURL: URL) throws {
    for store in [StoreDescription.inMemory, .sqlite(storeURL)] {
        let container = try ManagedContainer(model: model, store: store)
        let context = container.newContext()
        let concrete = model.entities.filter { !$0.isAbstract }
        var inserted: [ManagedObject] = []
        for entity in concrete {
            let object = try insert(entity, into: context, samples: samples)
            try satisfyRelationships(of: object, in: model, context: context, samples: samples, depth: 0)
            inserted.append(object)
        }
        try context.save()
        let check = container.newContext()
        for (entity, original) in zip(concrete, inserted) {
            let request = FetchRequest<ManagedObject>(entityName: entity.name)
            let objects = try check.fetch(request)
            guard let object = objects.first(where: { $0.objectID == original.objectID }) else {
                throw SmokeFailure("\(entity.name): the saved object was not fetched back (\(objects.count) objects fetched)")
            }
            guard type(of: object) == entity.managedClass else {
                throw SmokeFailure("\(entity.name): fetched a \(type(of: object)), expected \(entity.managedClass)")
            }
            for slot in 0..<entity.properties.count {
                _ = try object.value(forKey: entity.property(at: slot).name)
            }
        }
        print("\(model.name) \(store): \(concrete.count) entities inserted, saved and fetched back")
    }
}

struct SmokeFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Inserts an object with every required attribute, and every attribute of a uniqueness constraint, set to a sample
/// value no other object has.
private func insert(_ entity: EntityDescription, into context: ManagedObjectContext, samples: SampleValues) throws -> ManagedObject {
    let object = try context.insertObject(entityName: entity.name)
    var unique: Set<String> = []
    var current: EntityDescription? = entity
    while let level = current {
        unique.formUnion(level.uniquenessConstraints.joined())
        current = level.parentName.flatMap { name in context.container.model.entity(named: name) }
    }
    for slot in 0..<entity.properties.count {
        guard case .attribute(let attribute) = entity.property(at: slot), !attribute.isTransient, attribute.derivation == nil,
              unique.contains(attribute.name) || !attribute.isOptional else { continue }
        try object.setValue(try sample(for: attribute, samples: samples), forKey: attribute.name)
    }
    return object
}

/// Counts samples, so each one differs from the last.
nonisolated(unsafe) private var sampleCounter = 0

/// The subentity to create for a relationship: the concrete one that requires the fewest related objects itself.
private func creatable(_ destination: EntityDescription) -> EntityDescription? {
    func required(_ entity: EntityDescription) -> Int {
        (0..<entity.properties.count).filter { slot in
            guard case .relationship(let r) = entity.property(at: slot) else { return false }
            return !r.isOptional || (r.minCount ?? 0) > 0
        }.count
    }
    return destination.selfAndDescendants.filter { !$0.isAbstract }.min { required($0) < required($1) }
}

/// Creates the objects a required to-one or a to-many minimum count needs.
private func satisfyRelationships(of object: ManagedObject, in model: ManagedObjectModel, context: ManagedObjectContext,
                                  samples: SampleValues, depth: Int) throws {
    guard depth < 4 else { return }
    let entity = object.entity
    for slot in 0..<entity.properties.count {
        guard case .relationship(let relationship) = entity.property(at: slot), !relationship.isTransient else { continue }
        guard let destination = model.entity(named: relationship.destinationName),
              let concrete = creatable(destination) else { continue }
        if relationship.isToMany {
            let needed = max(relationship.minCount ?? 0, relationship.isOptional ? 0 : 1)
            var current = (try object.value(forKey: relationship.name) as? [ManagedObject]) ?? []
            if let set = try object.value(forKey: relationship.name) as? Set<ManagedObject> { current = Array(set) }
            while current.count < needed {
                let related = try insert(concrete, into: context, samples: samples)
                current.append(related)
                try object.setValue(current, forKey: relationship.name)
                try satisfyRelationships(of: related, in: model, context: context, samples: samples, depth: depth + 1)
            }
        } else if !relationship.isOptional, try object.value(forKey: relationship.name) == nil {
            let related = try insert(concrete, into: context, samples: samples)
            try object.setValue(related, forKey: relationship.name)
            try satisfyRelationships(of: related, in: model, context: context, samples: samples, depth: depth + 1)
        }
    }
}

/// A value that passes the attribute's validation (bounds); transformables from the stubs' samples.
private func sample(for attribute: AttributeDescription, samples: SampleValues) throws -> Any {
    sampleCounter += 1
    let n = sampleCounter
    var number = (attribute.minimum ?? 1) + Double(n)
    if let maximum = attribute.maximum, number > maximum { number = attribute.minimum ?? maximum }
    let length = max(Int(attribute.minimum ?? 1), 1)
    switch attribute.type {
    case .string: return String("s\(n)" + String(repeating: "x", count: length)).prefix(max(Int(attribute.maximum ?? 1_000), length))
        .description
    case .bool: return true
    case .int16: return Int16(number)
    case .int32: return Int32(number)
    case .int64: return Int64(number)
    case .float: return Float(number)
    case .double: return number
    case .decimal: return Decimal(number)
    case .date: return Date(timeIntervalSinceReferenceDate: number)
    case .binary: return Data(repeating: UInt8(n % 256), count: length)
    case .uuid: return UUID()
    case .uri: return URL(string: "https://example.com/\(n)")!
    case .transformable:
        guard let name = attribute.swiftTypeName, let value = samples[name] else {
            throw SmokeFailure("no sample value for \(attribute.name)'s type \(attribute.swiftTypeName ?? "?")")
        }
        return value
    }
}
