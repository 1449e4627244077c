import Foundation
import ModelgenRuntime

/// Four released versions of a clinic's model, written by hand as a user would keep them (the old
/// versions without classes, read by key), with the stages between them: the staged-migration tests,
/// the PostgreSQL tests and the kill test (`modelgen-store-stress migrate`) all use it.
///
/// 1. `Patient` (name, weight as text like "72.5 kg") with `visits` → `Visit` (date, room).
/// 2. `Visit` renamed `Appointment` and `visits` renamed `appointments` (lightweight).
/// 3. `weight` becomes a double of kilograms, converted by code (custom).
/// 4. `name` split into `firstName` and `lastName`, and a new required `chartNumber` filled by code (custom).
public enum ClinicVersions {
    public static let v1 = try! ManagedObjectModel(name: "Clinic", entities: [
        EntityDescription("Patient", class: ManagedObject.self, attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("weight", .string, optional: true),
        ], relationships: [
            RelationshipDescription("visits", destination: "Visit", inverse: "patient", toMany: true, deleteRule: .cascade),
        ]),
        EntityDescription("Visit", class: ManagedObject.self, attributes: [
            AttributeDescription("day", .int64),
            AttributeDescription("room", .string, optional: true),
        ], relationships: [
            RelationshipDescription("patient", destination: "Patient", inverse: "visits"),
        ]),
    ])

    public static let v2 = try! ManagedObjectModel(name: "Clinic", entities: [
        EntityDescription("Patient", class: ManagedObject.self, attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("weight", .string, optional: true),
        ], relationships: [
            RelationshipDescription("appointments", destination: "Appointment", inverse: "patient", toMany: true, deleteRule: .cascade,
                                    renamingIdentifier: "visits"),
        ]),
        EntityDescription("Appointment", class: ManagedObject.self, renamingIdentifier: "Visit", attributes: [
            AttributeDescription("day", .int64),
            AttributeDescription("room", .string, optional: true),
        ], relationships: [
            RelationshipDescription("patient", destination: "Patient", inverse: "appointments"),
        ]),
    ])

    public static let v3 = try! ManagedObjectModel(name: "Clinic", entities: [
        EntityDescription("Patient", class: ManagedObject.self, attributes: [
            AttributeDescription("name", .string),
            AttributeDescription("weight", .double, optional: true),
        ], relationships: [
            RelationshipDescription("appointments", destination: "Appointment", inverse: "patient", toMany: true, deleteRule: .cascade),
        ]),
        appointment,
    ])

    public static let v4 = try! ManagedObjectModel(name: "Clinic", entities: [
        EntityDescription("Patient", class: ManagedObject.self, attributes: [
            AttributeDescription("firstName", .string),
            AttributeDescription("lastName", .string),
            AttributeDescription("chartNumber", .string),
            AttributeDescription("weight", .double, optional: true),
        ], relationships: [
            RelationshipDescription("appointments", destination: "Appointment", inverse: "patient", toMany: true, deleteRule: .cascade),
        ], unique: [["chartNumber"]]),
        appointment,
    ])

    private static var appointment: EntityDescription {
        EntityDescription("Appointment", class: ManagedObject.self, attributes: [
            AttributeDescription("day", .int64),
            AttributeDescription("room", .string, optional: true),
        ], relationships: [
            RelationshipDescription("patient", destination: "Patient", inverse: "appointments"),
        ])
    }

    /// "72.5 kg" or "160 lb" as kilograms; nil for no weight or one that does not read.
    public static func kilograms(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: " "), parts.count == 2, let number = Double(parts[0]) else { return nil }
        switch parts[1] {
        case "kg": return number
        case "lb": return (number * 0.45359237 * 10).rounded() / 10
        default: return nil
        }
    }

    /// Version 3 → 4's split of `name` at its first space.
    public static func split(_ name: String) -> (first: String, last: String) {
        let parts = name.split(separator: " ", maxSplits: 1)
        return (parts.first.map(String.init) ?? "", parts.count > 1 ? String(parts[1]) : "")
    }

    /// The stage from version 2 to 3: the weights, converted.
    public static let weightsInKilograms = MigrationStage.custom(from: v2, to: v3, didMigrate: { migration in
        try migration.forEachRecord(of: "Patient") { old, new in
            try new.setValue(kilograms(try old.value(forKey: "weight") as? String), forKey: "weight")
        }
    })

    /// The stage from version 3 to 4: names split, chart numbers given in key order.
    public static let splitNamesAndNumberCharts = MigrationStage.custom(from: v3, to: v4, didMigrate: { migration in
        try migration.forEachRecord(of: "Patient") { old, new in
            let (first, last) = split(try old.value(forKey: "name") as? String ?? "")
            try new.setValue(first, forKey: "firstName")
            try new.setValue(last, forKey: "lastName")
            try new.setValue(chartNumber(new.objectID.key), forKey: "chartNumber")
        }
    })

    /// The chart number version 4 gives the patient with this record key.
    public static func chartNumber(_ key: Int64) -> String { "P-" + String(repeating: "0", count: max(0, 6 - String(key).count)) + String(key) }

    /// A seeded patient: name, weight text, visit days.
    public typealias Patient = (name: String, weight: String?, days: [Int64])

    /// The `i`th patient a version-1 store is seeded with (from 0).
    public static func patient(_ i: Int) -> Patient {
        let weight: String? = switch i % 4 {
        case 0: "\(60 + i % 30).5 kg"
        case 1: "\(120 + i % 200) lb"
        case 2: nil
        default: "heavy"   // does not read: becomes nil
        }
        let name = i % 10 == 0 ? "Cher\(i)" : "Ada\(i) Lovelace von \(i)"
        return (name, weight, (0..<Int64(i % 3)).map { Int64(i) * 10 + $0 })
    }

    /// The first `count` patients.
    public static func patients(_ count: Int = 240) -> [Patient] { (0..<count).map(patient) }

    /// Inserts `patients` and their visits with a version-1 context, saving every `batch` patients.
    public static func seedVersion1(_ context: ManagedObjectContext, _ patients: [(name: String, weight: String?, days: [Int64])],
                                    batch: Int = 10_000) throws {
        for (index, patient) in patients.enumerated() {
            let object = try context.insertObject(entityName: "Patient")
            try object.setValue(patient.name, forKey: "name")
            try object.setValue(patient.weight, forKey: "weight")
            for day in patient.days {
                let visit = try context.insertObject(entityName: "Visit")
                try visit.setValue(day, forKey: "day")
                try visit.setValue("room \(day % 7)", forKey: "room")
                try visit.setValue(object, forKey: "patient")
            }
            if (index + 1) % batch == 0 {
                try context.save()
                context.reset()
            }
        }
        try context.save()
    }

    /// What a version-4 context's records get wrong against the seeded `patients` (records keep their
    /// keys, given in insertion order, so chart numbers sort as the patients were seeded); empty when
    /// every row is right.
    public static func mismatchesAtVersion4(_ context: ManagedObjectContext, _ patients: [(name: String, weight: String?, days: [Int64])]) throws -> [String] {
        var problems: [String] = []
        let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient", sortDescriptors: [SortDescriptor("chartNumber")]))
        if objects.count != patients.count { problems.append("\(objects.count) patients, not \(patients.count)") }
        for (object, patient) in zip(objects, patients) {
            let (first, last) = split(patient.name)
            let days = try (object.value(forKey: "appointments") as? [ManagedObject] ?? []).map { try $0.value(forKey: "day") as? Int64 ?? -1 }.sorted()
            let found = [try object.value(forKey: "firstName") as? String, try object.value(forKey: "lastName") as? String,
                         try object.value(forKey: "chartNumber") as? String, (try object.value(forKey: "weight") as? Double).map { "\($0)" },
                         "\(days)"]
            let wanted = [first, last, chartNumber(object.objectID.key), kilograms(patient.weight).map { "\($0)" }, "\(patient.days)"]
            if found != wanted { problems.append("\(object.objectID): \(found) is not \(wanted)") }
        }
        let rooms = try context.fetch(FetchRequest<ManagedObject>(entityName: "Appointment", predicate: "room == 'room 3'"))
        let wantedRooms = patients.flatMap(\.days).filter { $0 % 7 == 3 }.count
        if rooms.count != wantedRooms { problems.append("\(rooms.count) appointments in room 3, not \(wantedRooms)") }
        for room in rooms where try (room.value(forKey: "patient") as? ManagedObject) == nil { problems.append("\(room.objectID) has no patient") }
        return problems
    }

    /// The version (1 to 4) of `versions` whose model a SQLite file records, nil for none: each is tried
    /// read-only (a store opened read-only is not migrated, and opens only with its own model).
    public static func recordedVersion(ofSQLiteFile url: URL) -> Int? {
        for (index, model) in [v1, v2, v3, v4].enumerated() {
            if (try? SQLiteStore(url: url, model: model, configuration: SQLiteConfiguration(readOnly: true))) != nil { return index + 1 }
        }
        return nil
    }

    /// What the records of a store at `version` get wrong against the first `count` seeded patients,
    /// read a batch at a time (any row count): at most `limit` problems. Patients keep their keys
    /// (1, 2, … in seeding order), so each record is checked against the patient its key names.
    public static func mismatches(atVersion version: Int, _ context: ManagedObjectContext, count: Int, limit: Int = 10) throws -> [String] {
        var problems: [String] = []
        var seen = 0
        var appointments = 0
        let visits = version == 1 ? "visits" : "appointments"
        for object in try context.fetch(FetchRequest<ManagedObject>(entityName: "Patient"), batchSize: 5_000) {
            seen += 1
            let key = object.objectID.key
            guard key >= 1, key <= count else {
                problems.append("\(object.objectID) is not a seeded patient")
                continue
            }
            let patient = patient(Int(key) - 1)
            var found: [String?] = [(try object.value(forKey: "weight")).map { "\($0)" }]
            var wanted: [String?] = [version < 3 ? patient.weight : kilograms(patient.weight).map { "\($0)" }]
            if version < 4 {
                found.append(try object.value(forKey: "name") as? String)
                wanted.append(patient.name)
            } else {
                let (first, last) = split(patient.name)
                found += [try object.value(forKey: "firstName") as? String, try object.value(forKey: "lastName") as? String,
                          try object.value(forKey: "chartNumber") as? String]
                wanted += [first, last, chartNumber(key)]
            }
            let related = try object.value(forKey: visits) as? [ManagedObject] ?? []
            appointments += related.count
            if related.count != patient.days.count { found.append("\(related.count) \(visits)"); wanted.append("\(patient.days.count) \(visits)") }
            if found != wanted, problems.count < limit { problems.append("\(object.objectID) at version \(version): \(found) is not \(wanted)") }
        }
        if seen != count { problems.append("\(seen) patients, not \(count)") }
        let days = (0..<count).reduce(0) { $0 + $1 % 3 }
        let stored = try context.count(for: FetchRequest<ManagedObject>(entityName: version == 1 ? "Visit" : "Appointment"))
        if appointments != days || stored != days { problems.append("\(appointments) linked and \(stored) stored \(visits), not \(days)") }
        return Array(problems.prefix(limit))
    }

    /// Every version, with the custom stages.
    public static func plan(progress: (@Sendable (MigrationProgress) -> Void)? = nil) -> MigrationPlan {
        MigrationPlan(versions: [v1, v2, v3, v4], stages: [weightsInKilograms, splitNamesAndNumberCharts], progress: progress)
    }
}
