#if PostgreSQL
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
            let configuration = try #require(try testConfiguration())
            return { model, plan in try PostgreSQLStore(model: model, configuration: configuration, migrationPlan: plan) }
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
}
#endif
