import Foundation
import ModelgenRuntime
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
