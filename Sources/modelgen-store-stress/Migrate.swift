// The staged-migration kill test's child, on the clinic's four versions (ClinicVersions):
//   modelgen-store-stress migrate-seed PATH N    a version-1 store with N patients (and their visits)
//   modelgen-store-stress migrate PATH           open with version 4 and the plan: runs the stages from the
//                                                store's version, printing "finished N" as each commits, then "done"
//   modelgen-store-stress migrate-check PATH N   print "version=V" and "ok", or the rows that are wrong
// PATH may be a postgres:// URL (schema= names the schema) in a build with the PostgreSQL trait.
import ClinicVersions
import Foundation
import ModelgenRuntime
#if PostgreSQL
import ModelgenPostgres
#endif

/// A container of the clinic at `model` on PATH, migrated through `plan` when given.
func clinicContainer(_ path: String, _ model: ManagedObjectModel, plan: MigrationPlan? = nil) throws -> ManagedContainer {
    #if PostgreSQL
    if path.hasPrefix("postgres") {
        return try ManagedContainer(model: model, postgres: try PostgreSQLConfiguration(url: path), migrationPlan: plan)
    }
    #endif
    // A process opening the file while another runs a stage waits for the stage's write lock, however
    // long a loaded machine makes the stage take (the default busy timeout would fail the opening).
    let configuration = SQLiteConfiguration(busyTimeout: .seconds(300))
    return try ManagedContainer(model: model, store: .sqliteConfigured(URL(fileURLWithPath: path), configuration), migrationPlan: plan)
}

/// Runs a `migrate…` mode; false for a check that found wrong rows.
func runMigrate(_ mode: String, path: String, count: Int) throws -> Bool {
    switch mode {
    case "migrate-seed":
        if !path.hasPrefix("postgres") { try? FileManager.default.removeItem(atPath: path) }
        try ClinicVersions.seedVersion1(try clinicContainer(path, ClinicVersions.v1).newContext(observation: .unobserved), ClinicVersions.patients(count))
        print("seeded \(count)")
    case "migrate":
        let plan = ClinicVersions.plan { progress in
            if progress.phase == .finished {
                FileHandle.standardOutput.write(Data("finished \(progress.toVersion)\n".utf8))   // unbuffered: the test kills us
            }
        }
        _ = try clinicContainer(path, ClinicVersions.v4, plan: plan)
        print("done")
    default:   // migrate-check
        guard let version = try recordedClinicVersion(path) else {
            print("version=none")
            return false
        }
        let context = try clinicContainer(path, [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4][version - 1])
            .newContext(observation: .unobserved)
        let problems = try ClinicVersions.mismatches(atVersion: version, context, count: count)
        print("version=\(version)")
        print(problems.isEmpty ? "ok" : problems.joined(separator: "\n"))
        return problems.isEmpty
    }
    return true
}

/// The version of the clinic a store records (1 to 4), from the version hash the store keeps.
func recordedClinicVersion(_ path: String) throws -> Int? {
    let hash: String?
    #if PostgreSQL
    if path.hasPrefix("postgres") {
        hash = try PostgreSQLStore.recordedVersionHash(configuration: try PostgreSQLConfiguration(url: path))
    } else {
        hash = try SQLiteStore.recordedVersionHash(of: URL(fileURLWithPath: path))
    }
    #else
    hash = try SQLiteStore.recordedVersionHash(of: URL(fileURLWithPath: path))
    #endif
    return [ClinicVersions.v1, ClinicVersions.v2, ClinicVersions.v3, ClinicVersions.v4].firstIndex { $0.versionHash == hash }.map { $0 + 1 }
}
