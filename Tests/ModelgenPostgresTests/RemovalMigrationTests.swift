import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

final class Gadget: ManagedObject {}
final class SpecialGadget: ManagedObject {}
final class Shelf: ManagedObject {}
final class Label: ManagedObject {}
final class Memo: ManagedObject {}
final class Holder: ManagedObject {}

/// Opening a store with a model that removed stored things, on both SQL stores: refused by default
/// with every loss listed and nothing changed; dropped, data and all, with `.dropRemoved`.
@Suite struct RemovalMigrationTests {
    /// Version 1: Gadget (unique code, a `legacy` attribute, a many-to-many to Label, a shelf) with a
    /// subentity SpecialGadget; Memo, an entity of its own; Holder, which picks a gadget (no inverse).
    static func version1() throws -> ManagedObjectModel {
        try ManagedObjectModel(name: "Shop", entities: [
            EntityDescription("Gadget", class: Gadget.self,
                              attributes: [AttributeDescription("name", .string), AttributeDescription("code", .string),
                                           AttributeDescription("legacy", .string, optional: true)],
                              relationships: [RelationshipDescription("labels", destination: "Label", inverse: "gadgets", toMany: true),
                                              RelationshipDescription("shelf", destination: "Shelf", inverse: "gadgets")],
                              unique: [["code"]]),
            EntityDescription("SpecialGadget", class: SpecialGadget.self, parent: "Gadget",
                              attributes: [AttributeDescription("extra", .string, optional: true)]),
            EntityDescription("Shelf", class: Shelf.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("gadgets", destination: "Gadget", inverse: "shelf", toMany: true, ordered: true)]),
            EntityDescription("Label", class: Label.self, attributes: [AttributeDescription("text", .string)],
                              relationships: [RelationshipDescription("gadgets", destination: "Gadget", inverse: "labels", toMany: true)]),
            EntityDescription("Memo", class: Memo.self, attributes: [AttributeDescription("body", .string)]),
            EntityDescription("Holder", class: Holder.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("pick", destination: "Gadget", inverse: nil)]),
        ])
    }

    /// Version 2 removes `legacy`, the labels relationship (both sides), the uniqueness of `code`,
    /// SpecialGadget and Memo; `memo` says whether Memo comes back (as a new, empty entity).
    static func version2(memo: Bool = false) throws -> ManagedObjectModel {
        var entities = [
            EntityDescription("Gadget", class: Gadget.self,
                              attributes: [AttributeDescription("name", .string), AttributeDescription("code", .string)],
                              relationships: [RelationshipDescription("shelf", destination: "Shelf", inverse: "gadgets")]),
            EntityDescription("Shelf", class: Shelf.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("gadgets", destination: "Gadget", inverse: "shelf", toMany: true, ordered: true)]),
            EntityDescription("Label", class: Label.self, attributes: [AttributeDescription("text", .string)]),
            EntityDescription("Holder", class: Holder.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("pick", destination: "Gadget", inverse: nil)]),
        ]
        if memo { entities.append(EntityDescription("Memo", class: Memo.self, attributes: [AttributeDescription("body", .string)])) }
        return try ManagedObjectModel(name: "Shop", entities: entities)
    }

    /// A place for a new store of `kind`, and a way to open it with a model and a migration policy.
    func location(_ kind: StoreKind) throws -> (ManagedObjectModel, MigrationPolicy) throws -> any PersistentStore {
        switch kind {
        case .sqlite:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("removal-\(UUID().uuidString).sqlite")
            return { model, policy in try SQLiteStore(url: url, model: model, configuration: SQLiteConfiguration(migration: policy)) }
        case .postgres:
            #if PostgreSQL
            var configuration = try #require(try testConfiguration())
            return { model, policy in
                configuration.migration = policy
                return try PostgreSQLStore(model: model, configuration: configuration)
            }
            #else
            throw StoreKind.SkipReason.noServer
            #endif
        case .inMemory:
            throw StoreKind.SkipReason.noServer
        }
    }

    func names(_ context: ManagedObjectContext, _ entity: String, _ key: String) throws -> [String] {
        try context.fetch(FetchRequest<ManagedObject>(entityName: entity, sortDescriptors: [SortDescriptor(key)]))
            .map { try $0.value(forKey: key) as? String ?? "nil" }
    }

    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func removedEntitiesAttributesAndRelationshipsAreDroppedOnlyWhenAsked(_ kind: StoreKind) throws {
        let open = try location(kind)
        let v1 = try Self.version1()
        do {
            let context = ManagedContainer(model: v1, store: try open(v1, .additive)).newContext()
            let shelf = try context.insertObject(entityName: "Shelf")
            try shelf.setValue("top", forKey: "title")
            let label = try context.insertObject(entityName: "Label")
            try label.setValue("new", forKey: "text")
            var gadgets: [ManagedObject] = []
            for (entity, name) in [("Gadget", "lamp"), ("SpecialGadget", "robot"), ("Gadget", "clock")] {
                let gadget = try context.insertObject(entityName: entity)
                try gadget.setValue(name, forKey: "name"); try gadget.setValue(name.uppercased(), forKey: "code")
                try gadget.setValue("old \(name)", forKey: "legacy")
                try gadget.setValue([label], forKey: "labels")
                gadgets.append(gadget)
            }
            try shelf.setValue(gadgets, forKey: "gadgets")
            for (name, pick) in [("first", gadgets[0]), ("second", gadgets[1])] {
                let holder = try context.insertObject(entityName: "Holder")
                try holder.setValue(name, forKey: "name"); try holder.setValue(pick, forKey: "pick")
            }
            let memo = try context.insertObject(entityName: "Memo")
            try memo.setValue("remember", forKey: "body")
            try context.save()
        }

        // Additive (the default): refused, every loss named with how to allow it, nothing changed.
        let v2 = try Self.version2()
        do {
            _ = try open(v2, .additive)
            Issue.record("\(kind): a model that removed stored data opened without being asked")
        } catch {
            let text = "\(error)"
            for loss in ["entity SpecialGadget", "entity Memo", "attribute Gadget.legacy", "relationship Gadget.labels", "relationship Label.gadgets"] {
                #expect(text.contains(loss), "\(kind): \(loss) not named in \(text)")
            }
            #expect(text.contains("migration: .dropRemoved"), "\(kind)")
        }
        do {
            let context = ManagedContainer(model: v1, store: try open(v1, .additive)).newContext()
            #expect(try names(context, "Gadget", "legacy") == ["old clock", "old lamp", "old robot"], "\(kind): still version 1's data")
        }

        // .dropRemoved: applied; what stays is intact, the links to removed records are gone.
        let container = ManagedContainer(model: v2, store: try open(v2, .dropRemoved))
        let context = container.newContext()
        #expect(try names(context, "Gadget", "name") == ["clock", "lamp"], "\(kind)")
        #expect(try names(context, "Label", "text") == ["new"], "\(kind)")
        let shelf = try #require(try context.fetch(FetchRequest<ManagedObject>(entityName: "Shelf")).first)
        #expect(try (shelf.value(forKey: "gadgets") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String } == ["lamp", "clock"], "\(kind)")
        let holders = try context.fetch(FetchRequest<ManagedObject>(entityName: "Holder", sortDescriptors: [SortDescriptor("name")]))
        #expect(try holders.map { try ($0.value(forKey: "pick") as? ManagedObject)?.value(forKey: "name") as? String } == ["lamp", nil], "\(kind): the robot's holder lets go")
        // The uniqueness of code went with the model: two gadgets may share a code now.
        let twin = try context.insertObject(entityName: "Gadget")
        try twin.setValue("lamp 2", forKey: "name"); try twin.setValue("LAMP", forKey: "code")
        try context.save()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Gadget", predicate: "code == 'LAMP'")) == 2, "\(kind)")

        // Memo's table is gone: a later model that brings Memo back starts it empty (creating it again).
        let v3 = try Self.version2(memo: true)
        let reader = ManagedContainer(model: v3, store: try open(v3, .additive)).newContext()
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Memo")) == 0, "\(kind)")
        #expect(try names(reader, "Gadget", "name") == ["clock", "lamp", "lamp 2"], "\(kind)")
    }
}
