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

    /// Every version, with the custom stages.
    public static func plan(progress: (@Sendable (MigrationProgress) -> Void)? = nil) -> MigrationPlan {
        MigrationPlan(versions: [v1, v2, v3, v4], stages: [weightsInKilograms, splitNamesAndNumberCharts], progress: progress)
    }
}
