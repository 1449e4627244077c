import Foundation
@testable import ModelgenRuntime
import Testing

/// The code `modelgen generate` writes for a version folder (Reference/Clinic, from
/// Tests/Fixtures/Versions/Clinic.modelversions): the current version's classes and the earlier
/// versions' descriptions, used as a user would, in a `MigrationPlan` from version 1 to 4.
@Suite struct VersionFolderGeneratedTests {
    @Test func theGeneratedVersionsMigrateAStoreOfVersion1() throws {
        #expect(ClinicModel.versions.count == 4)
        #expect(ClinicModel.versions.last === ClinicModel.model)
        #expect(Set(ClinicModel.versions.map(\.versionHash)).count == 4)
        #expect(ClinicModel.versions.last?.versionHash == ClinicModel.versionHash)

        let url = FileManager.default.temporaryDirectory.appendingPathComponent("clinic-\(UUID().uuidString).sqlite")
        do {
            let context = try ManagedContainer(model: ClinicModel.Versions.v1, store: .sqlite(url)).newContext()
            for i in 0..<300 {
                let patient = try context.insertObject(entityName: "Patient")
                try patient.setValue("First\(i) Last\(i)", forKey: "name")
                try patient.setValue(i % 2 == 0 ? "\(60 + i % 20) kg" : nil, forKey: "weight")
                let visit = try context.insertObject(entityName: "Visit")
                try visit.setValue(Int64(i), forKey: "day")
                try visit.setValue(patient, forKey: "patient")
            }
            try context.save()
        }
        let weights = MigrationStage.custom(from: ClinicModel.Versions.v2, to: ClinicModel.Versions.v3, didMigrate: { migration in
            try migration.forEachRecord(of: "Patient") { old, new in
                let text = try old.value(forKey: "weight") as? String
                try new.setValue(text.flatMap { Double($0.split(separator: " ")[0]) }, forKey: "weight")
            }
        })
        let names = MigrationStage.custom(from: ClinicModel.Versions.v3, to: ClinicModel.model, didMigrate: { migration in
            try migration.forEachRecord(of: "Patient") { old, new in
                let patient = new as! Patient   // the current version: the generated class
                let parts = (try old.value(forKey: "name") as! String).split(separator: " ")
                patient.firstName = String(parts[0])
                patient.lastName = String(parts[1])
                patient.chartNumber = "C\(patient.objectID.key)"
            }
        })
        let plan = MigrationPlan(versions: ClinicModel.versions, stages: [weights, names])
        let context = try ManagedContainer(model: ClinicModel.model, store: .sqlite(url), migrationPlan: plan).newContext()
        let patients = try context.fetch(Patient.fetchRequest())
        #expect(patients.count == 300)
        for patient in patients {
            let i = Int(patient.objectID.key) - 1
            #expect(patient.firstName == "First\(i)" && patient.lastName == "Last\(i)" && patient.chartNumber == "C\(i + 1)")
            #expect(patient.weight == (i % 2 == 0 ? Double(60 + i % 20) : nil))
            #expect(patient.appointments.map(\.day) == [Int64(i)])
        }
    }
}

/// The generated history decodes an earlier version only when a migration needs it, and a plan that
/// no longer keeps a store's version refuses it, saying which.
@Suite struct VersionHistoryTests {
    /// A history of its own (the generated one is shared by every test of the process).
    static func freshHistory() -> ModelVersionHistory {
        let generated = ClinicModel.history
        return ModelVersionHistory(current: generated.current, currentNumber: generated.currentNumber, firstNumber: generated.firstNumber,
                                   digest: generated.digest, history: generated.text)
    }

    static func store(of model: ManagedObjectModel, patients: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("history-\(UUID().uuidString).sqlite")
        let context = try ManagedContainer(model: model, store: .sqlite(url)).newContext()
        for i in 0..<patients {
            let patient = try context.insertObject(entityName: "Patient")
            if model === ClinicModel.model {
                try patient.setValue("First\(i)", forKey: "firstName")
                try patient.setValue("Last\(i)", forKey: "lastName")
                try patient.setValue("C\(i)", forKey: "chartNumber")
            } else {
                try patient.setValue("First\(i) Last\(i)", forKey: "name")
            }
        }
        try context.save()
        return url
    }

    @Test func aStoreAtTheCurrentVersionDecodesNothingAndAnOlderOneOnlyWhatItNeeds() throws {
        let history = Self.freshHistory()
        let current = try Self.store(of: ClinicModel.model, patients: 3)
        defer { try? FileManager.default.removeItem(at: current) }
        _ = try ManagedContainer(model: ClinicModel.model, store: .sqlite(current), migrationPlan: MigrationPlan(history: history)).newContext()
        #expect(history.decodedVersions.isEmpty)

        let older = try Self.store(of: ClinicModel.history.version(3), patients: 5)
        defer { try? FileManager.default.removeItem(at: older) }
        let names = MigrationStage.custom(from: history.version(3), to: ClinicModel.model, didMigrate: { migration in
            try migration.forEachRecord(of: "Patient") { old, new in
                let patient = new as! Patient
                let parts = (try old.value(forKey: "name") as! String).split(separator: " ")
                (patient.firstName, patient.lastName) = (String(parts[0]), String(parts[1]))
                patient.chartNumber = "C\(patient.objectID.key)"
            }
        })
        #expect(history.decodedVersions == [3])
        let context = try ManagedContainer(model: ClinicModel.model, store: .sqlite(older), migrationPlan: MigrationPlan(history: history, stages: [names])).newContext()
        #expect(try context.fetch(Patient.fetchRequest()).map(\.lastName).sorted() == (0..<5).map { "Last\($0)" })
        #expect(history.decodedVersions == [3], "versions 1 and 2 are not needed to migrate a store of version 3")
    }

    @Test func aStoreOfARetiredVersionIsRefusedSayingWhichVersionsAreKept() throws {
        let url = try Self.store(of: ClinicModel.Versions.v1, patients: 2)
        defer { try? FileManager.default.removeItem(at: url) }
        let plan = MigrationPlan(versions: [ClinicModel.Versions.v2, ClinicModel.Versions.v3, ClinicModel.model],
                                 retiredVersionHashes: [ClinicModel.Versions.v1.versionHash])
        do {
            _ = try ManagedContainer(model: ClinicModel.model, store: .sqlite(url), migrationPlan: plan)
            Issue.record("a store of a retired version opened")
        } catch {
            let text = "\(error)"
            #expect(text.contains("the store was written by version 1 of the model, and this build migrates stores from version 2 on"), "\(text)")
        }
        // The store is untouched: still version 1, with its records.
        let context = try ManagedContainer(model: ClinicModel.Versions.v1, store: .sqlite(url)).newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Patient")) == 2)
    }
}
