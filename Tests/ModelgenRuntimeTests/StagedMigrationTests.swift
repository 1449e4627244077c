import ClinicVersions
import Foundation
import TestScratch
import ModelgenRuntime
import Synchronization
import Testing

/// Staged migrations (`MigrationPlan`) of SQLite files: the clinic's four versions (an entity and a
/// relationship renamed, a type changed by code, an attribute split by code, a new required attribute
/// filled by code), each stage atomic, failures leaving the version before.
@Suite struct StagedMigrationTests {
    static let patients = ClinicVersions.patients()

    /// A version-1 store with `patients`.
    static func seedVersion1(_ url: URL) throws {
        try ClinicVersions.seedVersion1(try ManagedContainer(model: ClinicVersions.v1, store: .sqlite(url)).newContext(), patients)
    }

    /// Every record of a version-4 store checked against `patients`.
    static func checkVersion4(_ context: ManagedObjectContext) throws {
        #expect(try ClinicVersions.mismatchesAtVersion4(context, patients) == [])
    }

    @Test func aVersion1StoreGoesThroughEveryStageToVersion4() throws {
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        let events = Mutex<[MigrationProgress]>([])
        let plan = ClinicVersions.plan { progress in events.withLock { $0.append(progress) } }
        do {
            let context = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: plan).newContext()
            try Self.checkVersion4(context)
            // The new version works as a store of it: a save, the uniqueness constraint it added.
            let patient = try context.insertObject(entityName: "Patient")
            try patient.setValue("Grace", forKey: "firstName")
            try patient.setValue("Hopper", forKey: "lastName")
            try patient.setValue(ClinicVersions.chartNumber(1), forKey: "chartNumber")
            #expect(throws: (any Error).self) { try context.save() }
            try patient.setValue("P-NEW", forKey: "chartNumber")
            try context.save()
        }
        // The old storage went with the stages: the name and the weight text, the old visits' columns.
        #expect(sqliteStrings(url.path, "SELECT name FROM pragma_table_info('Patient')")
                    == ["Z_PK", "Z_ENT", "Z_OPT", "Patient.weight", "firstName", "lastName", "chartNumber"])
        #expect(sqliteMasterNames(url.path, type: "table") == ["Patient", "Visit", "modelgen.metadata", "modelgen.history", "modelgen.keys", "sqlite_sequence"])
        let log = events.withLock { $0 }
        let finished = log.filter { $0.phase == .finished }
        #expect(finished.map { "\($0.fromVersion)→\($0.toVersion) \($0.isCustom)" } == ["1→2 false", "2→3 true", "3→4 true"])
        #expect(log.contains { $0.phase == .didMigrate && $0.stage == 3 && $0.total == Self.patients.count && $0.completed == Self.patients.count })
        // Stage 2 saved the patients whose weight reads (the others stay nil, unchanged).
        let converted = Self.patients.filter { ClinicVersions.kilograms($0.weight) != nil }.count
        #expect(log.filter { $0.stage == 2 }.map(\.savedRecords).max() == converted)
        // Opened again: at version 4, nothing runs.
        events.withLock { $0 = [] }
        let again = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: plan).newContext()
        #expect(events.withLock { $0 }.isEmpty)
        #expect(try again.count(for: FetchRequest<ManagedObject>(entityName: "Patient")) == Self.patients.count + 1)
    }

    @Test func aStoreAtAMiddleVersionRunsOnlyTheStagesAfterIt() throws {
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        // Opened with version 2 (no plan: renames migrate lightweight), then with the plan.
        _ = try ManagedContainer(model: ClinicVersions.v2, store: .sqlite(url))
        let stages = Mutex<[Int]>([])
        let plan = ClinicVersions.plan { if $0.phase == .finished { let from = $0.fromVersion; stages.withLock { $0.append(from) } } }
        let context = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: plan).newContext()
        #expect(stages.withLock { $0 } == [2, 3])
        try Self.checkVersion4(context)
    }

    @Test func aStageThatLeavesARequiredValueUnsetFailsAndLeavesTheVersionBefore() throws {
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        // No code at all: the new required attributes stay empty, found after the stage's code.
        let empty = MigrationStage.custom(from: ClinicVersions.v3, to: ClinicVersions.v4)
        let plan = MigrationPlan(versions: [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4],
                                 stages: [ClinicVersions.weightsInKilograms, empty])
        #expect { _ = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: plan) } throws: { error in
            guard case MigrationError.requiredValuesMissing(let stage, let property, let records) = error else { return false }
            return property == "Patient.firstName" && records == Self.patients.count && stage == "migration stage 3 of 3 (version 3 → 4, custom)"
                && "\(error)".contains("240 records still have no value for the required Patient.firstName")
        }
        // Code that forgets one: its save is refused by validation, naming the attribute.
        let forgetful = MigrationStage.custom(from: ClinicVersions.v3, to: ClinicVersions.v4, didMigrate: { migration in
            try migration.forEachRecord(of: "Patient") { old, new in
                let (first, last) = ClinicVersions.split(try old.value(forKey: "name") as? String ?? "")
                try new.setValue(first, forKey: "firstName")
                try new.setValue(last, forKey: "lastName")
            }
        })
        let retry = MigrationPlan(versions: [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4],
                                  stages: [ClinicVersions.weightsInKilograms, forgetful])
        #expect { _ = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: retry) } throws: { error in
            guard case MigrationError.stageFailed(let stage, let underlying) = error else { return false }
            return stage == "migration stage 1 of 1 (version 3 → 4, custom)" && "\(underlying)".contains("Patient.chartNumber")
        }
        // The stages before it committed: the store is at version 3, weights converted, names whole.
        let context = try ManagedContainer(model: ClinicVersions.v3, store: .sqlite(url)).newContext()
        let patients = try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient", sortDescriptors: [SortDescriptor("name")]))
        #expect(patients.count == Self.patients.count)
        let byName = Dictionary(uniqueKeysWithValues: Self.patients.map { ($0.name, $0.weight) })
        for patient in patients {
            let name = try patient.value(forKey: "name") as! String
            #expect(try patient.value(forKey: "weight") as? Double == ClinicVersions.kilograms(byName[name]!))
        }
    }

    @Test func aStageWhoseCodeThrowsChangesNothing() throws {
        struct Refused: Error {}
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        _ = try ManagedContainer(model: ClinicVersions.v2, store: .sqlite(url))
        let failing = MigrationStage.custom(from: ClinicVersions.v2, to: ClinicVersions.v3, willMigrate: { context in
            // Changes saved before the throw go with the stage.
            let patient = try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient")).first!
            try patient.setValue("renamed", forKey: "name")
            try context.save()
            throw Refused()
        })
        let plan = MigrationPlan(versions: [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3], stages: [failing])
        #expect { _ = try ManagedContainer(model: ClinicVersions.v3, store: .sqlite(url), migrationPlan: plan) } throws: { error in
            guard case MigrationError.stageFailed(let stage, let underlying) = error else { return false }
            return underlying is Refused && stage.contains("version 2 → 3")
        }
        let context = try ManagedContainer(model: ClinicVersions.v2, store: .sqlite(url)).newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Patient", predicate: "name == 'renamed'")) == 0)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Appointment")) == Self.patients.flatMap(\.days).count)
    }

    @Test func aPlanThatDoesNotEndAtTheModelIsRefused() throws {
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        let plan = MigrationPlan(versions: [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3],
                                 stages: [ClinicVersions.splitNamesAndNumberCharts])
        #expect { _ = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(url), migrationPlan: plan) } throws: { error in
            guard case MigrationError.invalidPlan(let problems) = error else { return false }
            return problems.count == 2 && problems[0].contains("is not the model the store is opened with")
                && problems[1].contains("custom stage 1 is not from one version of the plan to the next")
        }
    }

    @Test func aLightweightStageThatWouldLoseDataIsRefusedUnderTheAdditivePolicy() throws {
        let url = try temporaryDirectory().appendingPathComponent("clinic.sqlite")
        try Self.seedVersion1(url)
        let withoutRoom = try ManagedObjectModel(name: "Clinic", entities: [
            EntityDescription("Patient", class: ManagedObject.self, attributes: [
                AttributeDescription("name", .string), AttributeDescription("weight", .string, optional: true),
            ], relationships: [RelationshipDescription("visits", destination: "Visit", inverse: "patient", toMany: true)]),
            EntityDescription("Visit", class: ManagedObject.self, attributes: [AttributeDescription("day", .int64)],
                              relationships: [RelationshipDescription("patient", destination: "Patient", inverse: "visits")]),
        ])
        let plan = MigrationPlan(versions: [ClinicVersions.v1, withoutRoom])
        #expect { _ = try ManagedContainer(model: withoutRoom, store: .sqlite(url), migrationPlan: plan) } throws: { error in
            guard case MigrationError.incompatibleStage(_, let problems) = error else { return false }
            return problems.count == 1 && problems[0].contains("Visit.room was removed")
        }
        // With .dropRemoved the same stage runs.
        let context = try ManagedContainer(model: withoutRoom, store: .sqliteConfigured(url, SQLiteConfiguration(migration: .dropRemoved)),
                                           migrationPlan: plan).newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Visit")) == Self.patients.flatMap(\.days).count)
    }

    /// Two attributes merged into one by a stage's code, and a willMigrate that deletes what the new
    /// version has no place for (people without a last name), on the old model.
    @Test func attributesMergedByCodeAndRecordsDroppedBeforeTheSchemaChanges() throws {
        let before = try ManagedObjectModel(name: "People", entities: [
            EntityDescription("Person", class: ManagedObject.self, attributes: [
                AttributeDescription("first", .string), AttributeDescription("last", .string, optional: true),
            ]),
        ])
        let after = try ManagedObjectModel(name: "People", entities: [
            EntityDescription("Person", class: ManagedObject.self, attributes: [AttributeDescription("fullName", .string)]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("people.sqlite")
        do {
            let context = try ManagedContainer(model: before, store: .sqlite(url)).newContext()
            for i in 0..<1_500 {
                let person = try context.insertObject(entityName: "Person")
                try person.setValue("F\(i)", forKey: "first")
                try person.setValue(i % 5 == 0 ? nil : "L\(i)", forKey: "last")
            }
            try context.save()
        }
        let stage = MigrationStage.custom(from: before, to: after, willMigrate: { context in
            for person in try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", predicate: "last == nil")) { context.delete(person) }
        }, didMigrate: { migration in
            try migration.forEachRecord(of: "Person", batchSize: 400) { old, new in
                try new.setValue("\(try old.value(forKey: "first") as! String) \(try old.value(forKey: "last") as! String)", forKey: "fullName")
            }
        })
        let context = try ManagedContainer(model: after, store: .sqlite(url), migrationPlan: MigrationPlan(versions: [before, after], stages: [stage]))
            .newContext()
        let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person")).map { try $0.value(forKey: "fullName") as! String }
        #expect(Set(names) == Set((0..<1_500).filter { $0 % 5 != 0 }.map { "F\($0) L\($0)" }))
        #expect(sqliteStrings(url.path, "SELECT name FROM pragma_table_info('Person')") == ["Z_PK", "Z_ENT", "Z_OPT", "fullName"])
    }

    /// A new required attribute without a default given one value in every record by a batch update
    /// (one statement) in didMigrate, inside the stage's transaction.
    @Test func aBatchUpdateInDidMigrateFillsARequiredAttribute() throws {
        let before = try ManagedObjectModel(name: "People", entities: [
            EntityDescription("Person", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)]),
        ])
        let after = try ManagedObjectModel(name: "People", entities: [
            EntityDescription("Person", class: ManagedObject.self, attributes: [AttributeDescription("name", .string), AttributeDescription("status", .string)]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("people.sqlite")
        do {
            let context = try ManagedContainer(model: before, store: .sqlite(url)).newContext()
            for i in 0..<2_000 { try context.insertObject(entityName: "Person").setValue("P\(i)", forKey: "name") }
            try context.save()
        }
        let stage = MigrationStage.custom(from: before, to: after, didMigrate: { migration in
            _ = try migration.context.batchUpdate(FetchRequest<ManagedObject>(entityName: "Person"), set: ["status": "active"])
        })
        let container = try ManagedContainer(model: after, store: .sqlite(url), migrationPlan: MigrationPlan(versions: [before, after], stages: [stage]))
        let context = container.newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Person", predicate: "status == 'active'")) == 2_000)
        #expect(try container.history().isEmpty || container.history().allSatisfy { $0.changes.updated.isEmpty })   // the stage wrote no history
    }

    /// A to-one relationship becoming a many-to-many one: the stage's code links each book to the
    /// author it had; the old column goes after.
    @Test func aToOneBecomesAToManyByCode() throws {
        let before = try ManagedObjectModel(name: "Shelf", entities: [
            EntityDescription("Book", class: ManagedObject.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("author", destination: "Author", inverse: "books")]),
            EntityDescription("Author", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true)]),
        ])
        let after = try ManagedObjectModel(name: "Shelf", entities: [
            EntityDescription("Book", class: ManagedObject.self, attributes: [AttributeDescription("title", .string)],
                              relationships: [RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true,
                                                                      renamingIdentifier: "author")]),
            EntityDescription("Author", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                              relationships: [RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true)]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("shelf.sqlite")
        do {
            let context = try ManagedContainer(model: before, store: .sqlite(url)).newContext()
            let authors = try (0..<5).map { i in
                let author = try context.insertObject(entityName: "Author")
                try author.setValue("author \(i)", forKey: "name")
                return author
            }
            for i in 0..<40 {
                let book = try context.insertObject(entityName: "Book")
                try book.setValue("book \(i)", forKey: "title")
                try book.setValue(i % 8 == 7 ? nil : authors[i % 5], forKey: "author")
            }
            try context.save()
        }
        let stage = MigrationStage.custom(from: before, to: after, didMigrate: { migration in
            try migration.forEachRecord(of: "Book", batchSize: 7) { old, new in
                guard let author = try old.value(forKey: "author") as? ManagedObject else { return }
                try new.setValue([try migration.current(of: author)], forKey: "authors")
            }
        })
        let context = try ManagedContainer(model: after, store: .sqlite(url), migrationPlan: MigrationPlan(versions: [before, after], stages: [stage]))
            .newContext()
        for book in try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")) {
            let i = Int((try book.value(forKey: "title") as! String).split(separator: " ")[1])!
            let names = try (book.value(forKey: "authors") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String }
            #expect(names == (i % 8 == 7 ? [] : ["author \(i % 5)"]))
        }
        let author0 = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author", predicate: "name == 'author 0'")).first!
        #expect(try (author0.value(forKey: "books") as! [ManagedObject]).count == 8 - 1)
    }
}

/// SIGKILL during a staged migration, as the store's crash tests do it: after every kill the store is
/// at one of the versions with every row as that version has it (never between), and opening it again
/// finishes the work. `make migration-kill` runs the same with 1,000,000 patients (release build).
@Suite(.serialized) struct StagedMigrationKillTests {
    @Test func killedDuringAMigrationTheStoreIsAtOneVersionAndReopeningFinishes() throws {
        let rows = 10_000
        let directory = try temporaryDirectory()
        let seeded = directory.appendingPathComponent("seeded.sqlite").path
        #expect(try runStress(["migrate-seed", seeded, "\(rows)"]) == "seeded \(rows)")
        // One whole migration first, timed: the kills below are spread over its length (random
        // delays alone can all fall after a fast migration has ended).
        let timed = directory.appendingPathComponent("timed.sqlite").path
        try FileManager.default.copyItem(atPath: seeded, toPath: timed)
        let start = Date()
        #expect(try runStress(["migrate", timed]).hasSuffix("done"))
        let whole = Date().timeIntervalSince(start)
        var versionsAtKill: [Int] = []
        for round in 0..<8 {
            // Each round migrates a copy of the version-1 store and is killed at a random moment of it.
            let path = directory.appendingPathComponent("round\(round).sqlite").path
            try FileManager.default.copyItem(atPath: seeded, toPath: path)
            let process = Process()
            process.executableURL = stressBinary()
            process.arguments = ["migrate", path]
            process.standardOutput = Pipe()
            try process.run()
            usleep(UInt32(whole * (Double(round) + Double.random(in: 0.2...0.8)) / 8 * 1_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let check = try runStress(["migrate-check", path, "\(rows)"])
            let lines = check.split(separator: "\n")
            #expect(lines.count == 2 && lines[1] == "ok", "round \(round): \(check)")
            if let version = lines.first.flatMap({ Int($0.dropFirst("version=".count)) }) { versionsAtKill.append(version) }
            // Opening again finishes the work.
            #expect(try runStress(["migrate", path]).hasSuffix("done"))
            #expect(try runStress(["migrate-check", path, "\(rows)"]) == "version=4\nok", "round \(round)")
        }
        #expect(versionsAtKill.count == 8)
        #expect(versionsAtKill.contains { $0 < 4 }, "every kill came after the migration ended: \(versionsAtKill)")
    }

    /// Two processes open the same version-1 store with the plan at once: the stages run once (each
    /// checks, in its transaction, whether the other has run it), both end at version 4, every row right.
    @Test func twoProcessesMigratingAtOnceRunEachStageOnce() throws {
        let rows = 10_000
        let path = try temporaryDirectory().appendingPathComponent("clinic.sqlite").path
        #expect(try runStress(["migrate-seed", path, "\(rows)"]) == "seeded \(rows)")
        let processes = (0..<2).map { _ -> (Process, Pipe) in
            let process = Process()
            process.executableURL = stressBinary()
            process.arguments = ["migrate", path]
            let out = Pipe()
            process.standardOutput = out
            return (process, out)
        }
        for (process, _) in processes { try process.run() }
        var finished: [String] = []
        for (process, out) in processes {
            let said = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(said)")
            #expect(said.hasSuffix("done\n"), "\(said)")
            finished += said.split(separator: "\n").filter { $0.hasPrefix("finished") }.map(String.init)
        }
        // Each stage was finished by one of the two.
        #expect(finished.sorted() == ["finished 2", "finished 3", "finished 4"], "\(finished)")
        #expect(try runStress(["migrate-check", path, "\(rows)"]) == "version=4\nok")
    }
}
