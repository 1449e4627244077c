/// Why a staged migration (`MigrationPlan`) did not run or did not finish. A stage that fails is
/// rolled back: the store stays at the last version a stage reached.
public enum MigrationError: Error, CustomStringConvertible {
    /// The plan cannot be used for this store's model (see `MigrationPlan`).
    case invalidPlan(problems: [String])
    /// A stage's schema change cannot be made (a lightweight stage that would lose data under
    /// `MigrationPolicy.additive`, or a change no stage can make, like an entity's parent).
    case incompatibleStage(stage: String, problems: [String])
    /// After a custom stage's code, records still have no value for a required attribute or
    /// relationship the stage introduced (`Entity.property`, how many records).
    case requiredValuesMissing(stage: String, property: String, records: Int)
    /// A custom stage's closure threw.
    case stageFailed(stage: String, error: any Error)
    /// The store was written by a version older than the oldest the plan keeps (`oldestVersion`):
    /// this build cannot migrate it. Numbers are the versions' in their version folder.
    case versionRetired(storeVersion: Int, oldestKept: Int)

    public var description: String {
        switch self {
        case .invalidPlan(let problems):
            return "the migration plan cannot be used: " + problems.joined(separator: "; ")
        case .incompatibleStage(let stage, let problems):
            return "\(stage) cannot change the schema; the store stays at the version before it:\n" + problems.map { "  - \($0)" }.joined(separator: "\n")
        case .requiredValuesMissing(let stage, let property, let records):
            return "\(stage): \(records) record\(records == 1 ? "" : "s") still ha\(records == 1 ? "s" : "ve") no value for the required \(property) after the stage's code ran; "
                + "set it in didMigrate (or give it a default value). The store stays at the version before the stage"
        case .stageFailed(let stage, let error):
            return "\(stage) failed: \(error); the store stays at the version before it"
        case .versionRetired(let storeVersion, let oldestKept):
            return "the store was written by version \(storeVersion) of the model, and this build migrates stores from version \(oldestKept) on "
                + "(versions before it are no longer generated: oldestVersion); open it once with a build that still migrates version \(storeVersion), or start a new store"
        }
    }
}
