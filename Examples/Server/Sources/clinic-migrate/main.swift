// clinic-migrate [POSTGRES_URL]: a clinic's store written by its first release is opened by the
// current one (version 4) and goes through every release in between: an entity renamed (lightweight),
// a weight kept as text becoming kilograms (code), a name split in two and a new required chart
// number (code). Every row is checked afterwards, on SQLite and, given a URL, on PostgreSQL.
import ClinicModel
import Foundation
import ModelgenPostgres
import ModelgenRuntime

let patientCount = 5_000

/// The first release's data, written through version 1's description (no classes: by key).
func seedVersion1(_ container: ManagedContainer) throws {
    let context = container.newContext()
    for i in 0..<patientCount {
        let patient = try context.insertObject(entityName: "Patient")
        try patient.setValue(i % 10 == 0 ? "Cher\(i)" : "Ada\(i) Lovelace", forKey: "name")
        try patient.setValue(i % 3 == 0 ? "\(50 + i % 40).5 kg" : i % 3 == 1 ? "\(100 + i % 90) lb" : nil, forKey: "weight")
        for day in 0..<(i % 3) {
            let visit = try context.insertObject(entityName: "Visit")
            try visit.setValue(Int64(i * 10 + day), forKey: "day")
            try visit.setValue(patient, forKey: "patient")
        }
    }
    try context.save()
}

/// Every patient of the version-4 store, through the generated classes, against what was seeded.
func check(_ container: ManagedContainer) throws -> [String] {
    let context = container.newContext()
    var problems: [String] = []
    let patients = try context.fetch(Patient.fetchRequest())
    if patients.count != patientCount { problems.append("\(patients.count) patients, not \(patientCount)") }
    for patient in patients {
        let i = Int(patient.objectID.key) - 1
        let name = i % 10 == 0 ? ("Cher\(i)", "") : ("Ada\(i)", "Lovelace")
        let weight = ClinicMigration.kilograms(i % 3 == 0 ? "\(50 + i % 40).5 kg" : i % 3 == 1 ? "\(100 + i % 90) lb" : nil)
        if patient.firstName != name.0 || patient.lastName != name.1 || patient.weight != weight
            || patient.chartNumber != ClinicMigration.chartNumber(patient.objectID.key) || patient.appointments.count != i % 3 {
            problems.append("patient \(i): \(patient.firstName) \(patient.lastName), \(patient.weight.map { "\($0)" } ?? "nil") kg, "
                + "\(patient.chartNumber), \(patient.appointments.count) appointments")
        }
    }
    return problems
}

/// Seeds a store with version 1, opens it with version 4 and the plan, checks it; prints what it did.
func migrate(_ label: String, open: (ManagedObjectModel, MigrationPlan?) throws -> ManagedContainer) throws -> Bool {
    try seedVersion1(try open(ClinicModel.Versions.v1, nil))
    let stages = Stages()
    let container = try open(ClinicModel.model, ClinicMigration.plan { progress in
        if progress.phase == .finished { stages.add("\(progress.fromVersion)→\(progress.toVersion)") }
    })
    let problems = try check(container)
    print("\(label): version 1 → 4 through \(stages.list.joined(separator: ", ")); \(patientCount) patients checked: "
        + (problems.isEmpty ? "every row right" : "\(problems.count) wrong, first: \(problems[0])"))
    return problems.isEmpty
}

/// The stages a migration reported, in order.
final class Stages: @unchecked Sendable {
    // @unchecked: the progress handler runs on the thread that opens the store.
    private(set) var list: [String] = []
    func add(_ stage: String) { list.append(stage) }
}

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clinic-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }
var ok = try migrate("sqlite") { model, plan in
    try ManagedContainer(model: model, store: .sqlite(directory.appendingPathComponent("clinic.sqlite")), migrationPlan: plan)
}
if CommandLine.arguments.count > 1 {
    var configuration = try PostgreSQLConfiguration(url: CommandLine.arguments[1])
    configuration.schema = "clinic_" + UUID().uuidString.prefix(8).lowercased()
    ok = try migrate("postgres") { model, plan in
        try ManagedContainer(model: model, postgres: configuration, migrationPlan: plan)
    } && ok
}
exit(ok ? 0 : 1)
