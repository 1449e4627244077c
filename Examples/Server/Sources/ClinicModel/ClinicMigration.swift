import Foundation
import ModelgenRuntime

/// How a clinic store of any released version becomes a store of the current one: the plugin
/// generates the current version's classes from `Clinic.modelversions/v4.model.yaml` and the
/// earlier versions' descriptions (`ClinicModel.Versions`); the custom stages are ours.
public enum ClinicMigration {
    /// Version 2 → 3: `weight` was text ("72.5 kg", "160 lb") and becomes kilograms.
    public static let weightsInKilograms = MigrationStage.custom(from: ClinicModel.Versions.v2, to: ClinicModel.Versions.v3, didMigrate: { migration in
        try migration.forEachRecord(of: "Patient") { old, new in
            try new.setValue(kilograms(try old.value(forKey: "weight") as? String), forKey: "weight")
        }
    })

    /// Version 3 → 4 (the current version, so its records are the generated `Patient` class): `name`
    /// splits into `firstName` and `lastName`, and every patient gets a chart number.
    public static let splitNamesAndNumberCharts = MigrationStage.custom(from: ClinicModel.Versions.v3, to: ClinicModel.model, didMigrate: { migration in
        try migration.forEachRecord(of: "Patient") { old, new in
            let patient = new as! Patient
            let parts = (try old.value(forKey: "name") as? String ?? "").split(separator: " ", maxSplits: 1)
            patient.firstName = parts.first.map(String.init) ?? ""
            patient.lastName = parts.count > 1 ? String(parts[1]) : ""
            patient.chartNumber = chartNumber(patient.objectID.key)
        }
    })

    /// Every version and the stages between them (1 → 2, a rename, is lightweight).
    public static func plan(progress: (@Sendable (MigrationProgress) -> Void)? = nil) -> MigrationPlan {
        MigrationPlan(history: ClinicModel.history, stages: [weightsInKilograms, splitNamesAndNumberCharts], progress: progress)
    }

    /// "72.5 kg" or "160 lb" as kilograms (one decimal); nil for no weight or one that does not read.
    public static func kilograms(_ text: String?) -> Double? {
        guard let parts = text?.split(separator: " "), parts.count == 2, let number = Double(parts[0]) else { return nil }
        switch parts[1] {
        case "kg": return number
        case "lb": return (number * 0.45359237 * 10).rounded() / 10
        default: return nil
        }
    }

    /// The chart number of the patient with this record key.
    public static func chartNumber(_ key: Int64) -> String { "P-" + String(format: "%06lld", key) }
}
