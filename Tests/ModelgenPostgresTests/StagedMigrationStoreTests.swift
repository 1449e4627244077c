import ClinicVersions
import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Synchronization
import Testing

/// Staged migrations on both SQL stores: the clinic's four versions, every row checked after; a
/// failing stage leaving the version before it; a to-one becoming a many-to-many by code.
@Suite struct StagedMigrationStoreTests {
    /// A place for a new store of `kind`, and how to open it with a model and a plan.
    func location(_ kind: StoreKind) throws -> (ManagedObjectModel, MigrationPlan?) throws -> any PersistentStore {
        switch kind {
        case .sqlite:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("staged-\(UUID().uuidString).sqlite")
            return { model, plan in try SQLiteStore(url: url, model: model, migrationPlan: plan) }
        case .postgres:
            #if PostgreSQL
            let configuration = try #require(try testConfiguration())
            return { model, plan in try PostgreSQLStore(model: model, configuration: configuration, migrationPlan: plan) }
            #else
            throw StoreKind.SkipReason.noServer
            #endif
        case .inMemory:
            throw StoreKind.SkipReason.noServer
        }
    }

    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func theClinicGoesThroughFourVersions(_ kind: StoreKind) throws {
        let open = try location(kind)
        let patients = ClinicVersions.patients(600)
        try ClinicVersions.seedVersion1(ManagedContainer(model: ClinicVersions.v1, store: try open(ClinicVersions.v1, nil)).newContext(), patients)
        let finished = Mutex<[Int]>([])
        let plan = ClinicVersions.plan { progress in if progress.phase == .finished { finished.withLock { $0.append(progress.toVersion) } } }
        let context = ManagedContainer(model: ClinicVersions.v4, store: try open(ClinicVersions.v4, plan)).newContext()
        #expect(finished.withLock { $0 } == [2, 3, 4])
        #expect(try ClinicVersions.mismatchesAtVersion4(context, patients) == [])
        // The version-4 store keeps working: a new patient, the new uniqueness constraint.
        let patient = try context.insertObject(entityName: "Patient")
        for (key, value) in [("firstName", "Grace"), ("lastName", "Hopper"), ("chartNumber", ClinicVersions.chartNumber(1))] {
            try patient.setValue(value, forKey: key)
        }
        #expect(throws: (any Error).self) { try context.save() }
        try patient.setValue("P-NEW", forKey: "chartNumber")
        try context.save()
        // Opened again, nothing runs.
        finished.withLock { $0 = [] }
        let again = ManagedContainer(model: ClinicVersions.v4, store: try open(ClinicVersions.v4, plan)).newContext()
        #expect(finished.withLock { $0 }.isEmpty)
        #expect(try again.count(for: FetchRequest<ManagedObject>(entityName: "Patient")) == patients.count + 1)
    }

    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func aFailingStageLeavesTheVersionBeforeIt(_ kind: StoreKind) throws {
        let open = try location(kind)
        let patients = ClinicVersions.patients(50)
        try ClinicVersions.seedVersion1(ManagedContainer(model: ClinicVersions.v1, store: try open(ClinicVersions.v1, nil)).newContext(), patients)
        let empty = MigrationStage.custom(from: ClinicVersions.v3, to: ClinicVersions.v4, willMigrate: { context in
            // Saved in the stage, undone with it.
            for patient in try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient")) { try patient.setValue("changed", forKey: "name") }
            try context.save()
        })
        let plan = MigrationPlan(versions: [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4],
                                 stages: [ClinicVersions.weightsInKilograms, empty])
        #expect { _ = try open(ClinicVersions.v4, plan) } throws: { error in
            guard case MigrationError.requiredValuesMissing(_, let property, let records) = error else { return false }
            return property == "Patient.firstName" && records == patients.count
        }
        let context = ManagedContainer(model: ClinicVersions.v3, store: try open(ClinicVersions.v3, nil)).newContext()
        let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient")).map { try $0.value(forKey: "name") as? String }
        #expect(Set(names) == Set(patients.map(\.name)))
        let weights = try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient", predicate: "weight != nil")).count
        #expect(weights == patients.filter { ClinicVersions.kilograms($0.weight) != nil }.count)
    }

    /// A to-one relationship becoming a many-to-many one, by code, and a retyped attribute read from the
    /// old storage: the old column goes after the stage on both stores.
    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func aToOneBecomesAManyToManyByCode(_ kind: StoreKind) throws {
        let before = try ManagedObjectModel(name: "Shelf", entities: [
            EntityDescription("Book", class: ManagedObject.self, attributes: [AttributeDescription("title", .string), AttributeDescription("year", .string)],
                              relationships: [RelationshipDescription("author", destination: "Author", inverse: "books")]),
            EntityDescription("Author", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true)]),
        ])
        let after = try ManagedObjectModel(name: "Shelf", entities: [
            EntityDescription("Book", class: ManagedObject.self, attributes: [AttributeDescription("title", .string), AttributeDescription("year", .int32)],
                              relationships: [RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true,
                                                                      renamingIdentifier: "author")]),
            EntityDescription("Author", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)]),
        ])
        let open = try location(kind)
        do {
            let context = ManagedContainer(model: before, store: try open(before, nil)).newContext()
            let authors = try (0..<4).map { i in
                let author = try context.insertObject(entityName: "Author")
                try author.setValue("author \(i)", forKey: "name")
                return author
            }
            for i in 0..<60 {
                let book = try context.insertObject(entityName: "Book")
                try book.setValue("book \(i)", forKey: "title")
                try book.setValue("\(1950 + i)", forKey: "year")
                try book.setValue(i % 6 == 5 ? nil : authors[i % 4], forKey: "author")
            }
            try context.save()
        }
        let stage = MigrationStage.custom(from: before, to: after, didMigrate: { migration in
            try migration.forEachRecord(of: "Book", batchSize: 25) { old, new in
                try new.setValue(Int32(try old.value(forKey: "year") as! String), forKey: "year")
                guard let author = try old.value(forKey: "author") as? ManagedObject else { return }
                try new.setValue([try migration.current(of: author)], forKey: "authors")
            }
        })
        let context = ManagedContainer(model: after, store: try open(after, MigrationPlan(versions: [before, after], stages: [stage]))).newContext()
        let books = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book"))
        #expect(books.count == 60)
        for book in books {
            let i = Int((try book.value(forKey: "title") as! String).dropFirst("book ".count))!
            #expect(try book.value(forKey: "year") as? Int64 == Int64(1950 + i))   // key-value access gives integers as Int64
            let names = try (book.value(forKey: "authors") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String }
            #expect(names == (i % 6 == 5 ? [] : ["author \(i % 4)"]))
        }
    }
}
