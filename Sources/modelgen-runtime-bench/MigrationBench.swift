// The migration section: the clinic's version-1 store with 1,000,000 patients (and about as
// many visits) taken to version 4 by the runtime's staged migration (ClinicVersions: a lightweight
// rename, then two custom stages whose Swift code converts weights, splits names and numbers charts),
// beside the same three steps hand-written as SQL on a copy of the same file (ALTER TABLE and UPDATE),
// each stage timed; both results are compared. MODELGEN_BENCH_MIGRATION_ROWS sets the patients.
import ClinicVersions
import CSQLite
import Foundation
import ModelgenRuntime
import Synchronization

/// The hand-written SQL for each stage, in one transaction per stage, as an app without the runtime
/// would write it.
let migrationSQL = [
    "ALTER TABLE \"Visit\" RENAME TO \"Appointment\"",
    """
    ALTER TABLE "Patient" ADD COLUMN "kilograms" REAL;
    UPDATE "Patient" SET "kilograms" = CASE
        WHEN "weight" LIKE '% kg' THEN CAST(substr("weight", 1, length("weight") - 3) AS REAL)
        WHEN "weight" LIKE '% lb' THEN round(CAST(substr("weight", 1, length("weight") - 3) AS REAL) * 0.45359237 * 10) / 10 END;
    ALTER TABLE "Patient" DROP COLUMN "weight"
    """,
    """
    ALTER TABLE "Patient" ADD COLUMN "firstName" TEXT; ALTER TABLE "Patient" ADD COLUMN "lastName" TEXT;
    ALTER TABLE "Patient" ADD COLUMN "chartNumber" TEXT;
    UPDATE "Patient" SET "firstName" = CASE WHEN instr("name", ' ') > 0 THEN substr("name", 1, instr("name", ' ') - 1) ELSE "name" END,
        "lastName" = CASE WHEN instr("name", ' ') > 0 THEN substr("name", instr("name", ' ') + 1) ELSE '' END,
        "chartNumber" = printf('P-%06d', "Z_PK");
    CREATE UNIQUE INDEX "Patient.unique(chartNumber)" ON "Patient" ("chartNumber");
    ALTER TABLE "Patient" DROP COLUMN "name"
    """,
]

func runMigrationBench() throws {
    let rows = Int(ProcessInfo.processInfo.environment["MODELGEN_BENCH_MIGRATION_ROWS"] ?? "") ?? 1_000_000
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("modelgen-bench-migration-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let runtimeURL = directory.appendingPathComponent("runtime.sqlite"), sqlPath = directory.appendingPathComponent("sql.sqlite").path
    let seedStart = now()
    try ClinicVersions.seedVersion1(try ManagedContainer(model: ClinicVersions.v1, store: .sqlite(runtimeURL)).newContext(observation: .unobserved),
                                    ClinicVersions.patients(rows))
    try FileManager.default.copyItem(atPath: runtimeURL.path, toPath: sqlPath)
    print("")
    print("migration: \(rows) patients (version 1 → 4, three stages), written in \(String(format: "%.1f", Double(now() - seedStart) / 1e9)) s")

    // The runtime: each stage's time from its start to its commit.
    let marks = Mutex<[(stage: Int, phase: MigrationProgress.Phase, at: UInt64)]>([])
    let plan = ClinicVersions.plan { progress in
        if progress.phase == .started || progress.phase == .finished { marks.withLock { $0.append((progress.stage, progress.phase, now())) } }
    }
    let runtimeStart = now()
    _ = try ManagedContainer(model: ClinicVersions.v4, store: .sqlite(runtimeURL), migrationPlan: plan)
    let runtimeTotal = Double(now() - runtimeStart) / 1e9
    let recorded = marks.withLock { $0 }
    let runtimeStages = (1...3).map { stage -> Double in
        guard let start = recorded.first(where: { $0.stage == stage && $0.phase == .started })?.at,
              let end = recorded.first(where: { $0.stage == stage && $0.phase == .finished })?.at else { return .nan }
        return Double(end - start) / 1e9
    }

    // Hand-written SQL on the copy.
    var db: OpaquePointer?
    sqlite3_open(sqlPath, &db)
    defer { sqlite3_close(db) }
    var sqlStages: [Double] = []
    for sql in migrationSQL {
        let start = now()
        for statement in ["BEGIN IMMEDIATE", sql, "COMMIT"] {
            var error: UnsafeMutablePointer<CChar>?
            guard sqlite3_exec(db, statement, nil, nil, &error) == SQLITE_OK else { fatalError("migration SQL failed: \(String(cString: error!))") }
        }
        sqlStages.append(Double(now() - start) / 1e9)
    }

    // The same results: counts and sums over what both wrote.
    func summary(_ path: String, weight: String) -> String {
        var handle: OpaquePointer?
        sqlite3_open(path, &handle)
        defer { sqlite3_close(handle) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(handle, """
            SELECT count(*), count(\(weight)), round(total(\(weight)), 1), total(length("firstName")), total(length("lastName")),
                   count(DISTINCT "chartNumber") FROM "Patient"
            """, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW else { return "?" }
        return (0..<6).map { String(cString: sqlite3_column_text(statement, $0)) }.joined(separator: " ")
    }
    let same = summary(runtimeURL.path, weight: "\"Patient.weight\"") == summary(sqlPath, weight: "\"kilograms\"")
    let names = ["1 → 2  rename Visit (lightweight)", "2 → 3  weight text → kilograms (code)", "3 → 4  split names, chart numbers (code)"]
    for (index, name) in names.enumerated() {
        print(String(format: "  %@   runtime %7.2f s   SQL %7.2f s   %6.1fx", name.padding(toLength: 42, withPad: " ", startingAt: 0),
                     runtimeStages[index], sqlStages[index], runtimeStages[index] / sqlStages[index]))
    }
    let sqlTotal = sqlStages.reduce(0, +)
    print(String(format: "  %@   runtime %7.2f s   SQL %7.2f s   %6.1fx   (same results: %@)", "all three stages, opening included".padding(toLength: 42, withPad: " ", startingAt: 0),
                 runtimeTotal, sqlTotal, runtimeTotal / sqlTotal, same ? "yes" : "NO"))
    if !same { fatalError("the runtime's migration and the SQL disagree") }
}
