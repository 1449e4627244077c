/// A model's released versions, oldest first (the last is the model stores open with), and the
/// custom stages between some of them. Opening a store written with an earlier version runs the
/// stages from that version to the last in order, each in one transaction: a lightweight stage
/// (inferred between two consecutive versions that have no custom stage) adds, renames and drops
/// what the store's migration policy allows; a custom stage runs your code before and after its
/// schema change (see `MigrationStage.custom`). A store written with a model that is none of the
/// versions is opened as without a plan (lightweight, or refused).
///
/// ```swift
/// let plan = MigrationPlan(versions: [ShopV1.model, ShopV2.model, ShopModel.model], stages: [
///     .custom(from: ShopV2.model, to: ShopModel.model, didMigrate: splitNames),
/// ])
/// let container = try ManagedContainer(model: ShopModel.model, store: .sqlite(url), migrationPlan: plan)
/// ```
public struct MigrationPlan: Sendable {
    /// Where the versions come from: given, or a generated history decoded when a migration needs them.
    private enum Source: Sendable {
        case models([ManagedObjectModel])
        case history(ModelVersionHistory)
    }

    private let source: Source
    /// The custom stages, each between two consecutive versions.
    public let stages: [MigrationStage]
    /// Hears each stage begin, change phase and end, and, during a custom stage's code, the records
    /// its saves wrote (`MigrationProgress`); called on the thread that opens the store.
    public let progress: (@Sendable (MigrationProgress) -> Void)?
    /// The hashes of the versions older than the oldest in the plan, one per version from version 1 on:
    /// a store recorded with one is refused with `MigrationError.versionRetired` instead of being opened
    /// as of no version.
    public let retiredVersionHashes: [String]

    /// A plan over `versions` (oldest first) with `stages` where a lightweight one will not do.
    public init(versions: [ManagedObjectModel], stages: [MigrationStage] = [], retiredVersionHashes: [String] = [],
                progress: (@Sendable (MigrationProgress) -> Void)? = nil) {
        self.source = .models(versions)
        self.stages = stages
        self.retiredVersionHashes = retiredVersionHashes
        self.progress = progress
    }

    /// A plan over a generated history's versions (`<Model>Model.history`), decoded only when a store of
    /// an earlier version is opened, with `stages` where a lightweight one will not do.
    public init(history: ModelVersionHistory, stages: [MigrationStage] = [],
                progress: (@Sendable (MigrationProgress) -> Void)? = nil) {
        self.source = .history(history)
        self.stages = stages
        self.retiredVersionHashes = history.retiredVersionHashes
        self.progress = progress
    }

    /// Every version, oldest first; the last is the current model (a history's are decoded here).
    public var versions: [ManagedObjectModel] {
        switch source {
        case .models(let models): return models
        case .history(let history): return history.versions
        }
    }

    /// The number of the plan's first version (the versions before it retired).
    var firstNumber: Int { retiredVersionHashes.count + 1 }

    /// How many versions the plan has.
    var versionCount: Int {
        switch source {
        case .models(let models): return models.count
        case .history(let history): return history.versionHashes.count
        }
    }

    /// The hash of the version at `index` (without decoding it).
    func versionHash(at index: Int) -> String {
        switch source {
        case .models(let models): return models[index].versionHash
        case .history(let history): return history.versionHashes[index]
        }
    }

    /// The version at `index`, decoded if it comes from a history.
    func model(at index: Int) -> ManagedObjectModel {
        switch source {
        case .models(let models): return models[index]
        case .history(let history): return history.version(history.firstNumber + index)
        }
    }

    /// The custom stage from the version at `index`, nil for a lightweight step.
    func customStage(from index: Int) -> MigrationStage? {
        let hash = versionHash(at: index)
        return stages.first { $0.from.versionHash == hash }
    }

    /// The position of the version with this hash in `versions`, nil when none has it.
    func version(withHash hash: String) -> Int? {
        (0..<versionCount).first { versionHash(at: $0) == hash }
    }

    /// The problems that make the plan unusable for a store of `model`: no versions, a last version
    /// that is not `model`, two versions with one hash, a stage not between consecutive versions.
    func problems(current model: ManagedObjectModel) -> [String] {
        guard versionCount > 0 else { return ["the plan has no versions"] }
        var problems: [String] = []
        let last = versionHash(at: versionCount - 1)
        if last != model.versionHash {
            problems.append("its last version (hash \(last)) is not the model the store is opened with (hash \(model.versionHash))")
        }
        var seen: [String: Int] = [:]
        for index in 0..<versionCount {
            let hash = versionHash(at: index)
            if let earlier = seen[hash] {
                problems.append("versions \(earlier + 1) and \(index + 1) have the same version hash \(hash): a store of either could not tell which it is")
            }
            seen[hash] = index
        }
        for (index, stage) in stages.enumerated() {
            guard let from = version(withHash: stage.from.versionHash), let to = version(withHash: stage.to.versionHash), to == from + 1 else {
                problems.append("custom stage \(index + 1) is not from one version of the plan to the next")
                continue
            }
            if stages[..<index].contains(where: { $0.from.versionHash == stage.from.versionHash }) {
                problems.append("two custom stages go from version \(from + 1)")
            }
        }
        return problems
    }
}

/// One step of a `MigrationPlan` that needs your code: from one version to the next, with
/// `willMigrate` run on the old model before the schema changes and `didMigrate` on the new model
/// after it, in the stage's one transaction.
///
/// In a custom stage, what a lightweight stage refuses is done: an attribute whose type changed, a
/// relationship whose cardinality or inverse changed, and a new required attribute without a default
/// get new storage beside the old; the old stays readable (`MigrationContext.previous`) until
/// `didMigrate` returns, then goes, with what the new version removed. Every required value the
/// stage introduced must be set by then, else the stage fails with
/// `MigrationError.requiredValuesMissing` and the store stays at the old version. Changes a closure
/// leaves unsaved are saved when it returns.
public struct MigrationStage: Sendable {
    /// The version the stage starts from.
    public let from: ManagedObjectModel
    /// The version it ends at (the next in the plan).
    public let to: ManagedObjectModel
    let willMigrate: (@Sendable (ManagedObjectContext) throws -> Void)?
    let didMigrate: (@Sendable (MigrationContext) throws -> Void)?

    /// A stage that runs `willMigrate` with a context on `from` (the records as they are), then changes
    /// the schema to `to`, then runs `didMigrate` with a context on `to` and read access to the records
    /// as `from` had them.
    public static func custom(from: ManagedObjectModel, to: ManagedObjectModel,
                              willMigrate: (@Sendable (ManagedObjectContext) throws -> Void)? = nil,
                              didMigrate: (@Sendable (MigrationContext) throws -> Void)? = nil) -> MigrationStage {
        MigrationStage(from: from, to: to, willMigrate: willMigrate, didMigrate: didMigrate)
    }
}
