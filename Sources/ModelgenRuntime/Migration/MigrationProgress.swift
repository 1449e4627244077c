/// Where a staged migration is: reported to `MigrationPlan.progress` as each stage begins, changes
/// phase and ends, and as a custom stage's code saves.
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// What a stage is doing.
    public enum Phase: String, Sendable, Hashable {
        /// The stage began (its transaction is open).
        case started
        /// A custom stage's `willMigrate` is running.
        case willMigrate
        /// The schema was changed (new tables and columns added).
        case schemaChanged
        /// A custom stage's `didMigrate` is running.
        case didMigrate
        /// The stage committed: the store is at `toVersion`.
        case finished
    }

    /// The stage, from 1.
    public let stage: Int
    /// How many stages this opening runs.
    public let stageCount: Int
    /// The versions the stage goes between (positions in `MigrationPlan.versions`, from 1).
    public let fromVersion: Int
    /// See `fromVersion`.
    public let toVersion: Int
    /// True for a custom stage.
    public let isCustom: Bool
    /// What the stage is doing.
    public let phase: Phase
    /// Records the stage's code saved so far (inserted, updated or deleted).
    public let savedRecords: Int
    /// In `MigrationContext.forEachRecord`: the records of the entity done so far and in all.
    public let completed: Int
    /// See `completed` (0 when not in `forEachRecord`).
    public let total: Int

    /// An event of the stage from version `fromVersion` to the next.
    init(stage: Int, stageCount: Int, fromVersion: Int, isCustom: Bool, phase: Phase, savedRecords: Int = 0, completed: Int = 0, total: Int = 0) {
        self.stage = stage
        self.stageCount = stageCount
        self.fromVersion = fromVersion
        self.toVersion = fromVersion + 1
        self.isCustom = isCustom
        self.phase = phase
        self.savedRecords = savedRecords
        self.completed = completed
        self.total = total
    }

    public var description: String {
        var text = "stage \(stage)/\(stageCount) (version \(fromVersion) → \(toVersion), \(isCustom ? "custom" : "lightweight")): \(phase.rawValue)"
        if savedRecords > 0 { text += ", \(savedRecords) records saved" }
        if total > 0 { text += ", \(completed)/\(total)" }
        return text
    }
}
