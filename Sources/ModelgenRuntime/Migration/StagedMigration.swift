import Foundation
import Synchronization

/// What a store does to change its schema inside a transaction: each stage of a staged migration,
/// and the lightweight migration of an ordinary opening (SQLite and PostgreSQL each have one).
package protocol MigrationTransaction {
    /// A store working in this transaction, for `model` laid out as `schema` (`readOnly`: saves throw);
    /// `onCommit` hears how many records each save wrote.
    func store(model: ManagedObjectModel, schema: SQLSchema, readOnly: Bool, onCommit: @escaping @Sendable (Int) -> Void) throws -> any PersistentStore
    /// Adds what `plan` adds to the layout `previous` records (nil: a new store): tables, columns,
    /// join tables, indexes.
    func addStorage(_ plan: SQLSchemaPlanner.Plan, previous: SQLSchema?, model: ManagedObjectModel) throws
    /// Drops what `plan` removes (and model indexes the new version no longer has).
    func dropStorage(_ plan: SQLSchemaPlanner.Plan) throws
    /// The number a `SELECT count(*)` statement returns.
    func count(_ sql: String) throws -> Int
    /// Records `schema` as the store's layout (the stage's last write).
    func record(_ schema: SQLSchema) throws
    /// The layout the store records now, read in this transaction.
    func recordedSchema() throws -> SQLSchema?
}

extension MigrationTransaction {
    /// The lightweight migration of an opening, in this transaction: what `plan` removes from the
    /// layout `previous` records (when the policy allowed it), then what it adds, then its layout
    /// recorded.
    package func migrate(_ plan: SQLSchemaPlanner.Plan, from previous: SQLSchema?, model: ManagedObjectModel) throws {
        try dropStorage(plan)
        try addStorage(plan, previous: previous, model: model)
        try record(plan.schema)
    }
}

/// Runs the stages of a `MigrationPlan` from a store's recorded version to the current one, each in a
/// transaction the store opens (`inTransaction`), for both SQL stores.
package struct StagedMigration {
    package let plan: MigrationPlan
    package let model: ManagedObjectModel
    /// For lightweight stages: whether removed storage may be dropped.
    package let policy: MigrationPolicy

    package init(plan: MigrationPlan, model: ManagedObjectModel, policy: MigrationPolicy) {
        self.plan = plan
        self.model = model
        self.policy = policy
    }

    /// Brings a store recorded as `recorded` to the current version: one transaction per stage, each
    /// run by `inTransaction` (which commits when its body returns). Returns the layout the store then
    /// records, or `recorded` when it is at the current version or at none of the plan's versions.
    package func run(from recorded: SQLSchema,
                     inTransaction: ((any MigrationTransaction) throws -> SQLSchema) throws -> SQLSchema) throws -> SQLSchema {
        // A store at the current version needs nothing of the plan (and a history decodes nothing).
        guard recorded.versionHash != model.versionHash else { return recorded }
        let problems = plan.problems(current: model)
        guard problems.isEmpty else { throw MigrationError.invalidPlan(problems: problems) }
        if let retired = plan.retiredVersionHashes.firstIndex(of: recorded.versionHash) {
            throw MigrationError.versionRetired(storeVersion: retired + 1, oldestKept: plan.firstNumber)
        }
        guard let start = plan.version(withHash: recorded.versionHash), start < plan.versionCount - 1 else { return recorded }
        var schema = recorded
        let last = plan.versionCount - 1
        let count = last - start
        var index = start
        while index < last {
            let from = index
            var ranByOther = false
            schema = try inTransaction { transaction in
                // Another process may have run this stage since the store was read (SQLite: between
                // two stages' transactions): then the store is past it, and nothing is done again.
                if let now = try transaction.recordedSchema(), now.versionHash != schema.versionHash {
                    ranByOther = true
                    return now
                }
                return try runStage(from: from, number: from - start + 1, of: count, recorded: schema, transaction)
            }
            if ranByOther {
                guard let reached = plan.version(withHash: schema.versionHash), reached > from else {
                    throw MigrationError.invalidPlan(problems: ["another process changed the store to a version this plan does not have (hash \(schema.versionHash)) while it migrated"])
                }
                index = reached
                continue
            }
            plan.progress?(MigrationProgress(stage: from - start + 1, stageCount: count, fromVersion: from + 1,
                                             isCustom: plan.customStage(from: from) != nil, phase: .finished))
            index += 1
        }
        return schema
    }

    private func runStage(from index: Int, number: Int, of count: Int, recorded: SQLSchema,
                          _ transaction: any MigrationTransaction) throws -> SQLSchema {
        let (old, new) = (plan.model(at: index), plan.model(at: index + 1))
        let custom = plan.customStage(from: index)
        let name = "migration stage \(number) of \(count) (version \(plan.firstNumber + index) → \(plan.firstNumber + index + 1), \(custom == nil ? "lightweight" : "custom"))"
        let saved = SavedCount()
        let (progress, isCustom) = (plan.progress, custom != nil)
        let report: @Sendable (MigrationProgress.Phase, Int, Int) -> Void = { phase, completed, total in
            progress?(MigrationProgress(stage: number, stageCount: count, fromVersion: index + 1, isCustom: isCustom, phase: phase,
                                        savedRecords: saved.value, completed: completed, total: total))
        }
        let onCommit: @Sendable (Int) -> Void = { records in
            saved.add(records)
            report(.didMigrate, 0, 0)
        }
        report(.started, 0, 0)

        if let willMigrate = custom?.willMigrate {
            report(.willMigrate, 0, 0)
            let context = ManagedContainer(model: old, store: try transaction.store(model: old, schema: recorded, readOnly: false, onCommit: onCommit))
                .newContext(observation: .unobserved)
            do {
                try willMigrate(context)
                if context.hasChanges { try context.save() }
            } catch {
                throw MigrationError.stageFailed(stage: name, error: error)
            }
        }

        let planned = SQLSchemaPlanner(model: new, previous: recorded, customStage: custom != nil).plan()
        let refusals = custom != nil ? planned.problems : planned.refusals(under: policy)
        guard refusals.isEmpty else { throw MigrationError.incompatibleStage(stage: name, problems: refusals) }
        try transaction.addStorage(planned, previous: recorded, model: new)
        report(.schemaChanged, 0, 0)

        if let didMigrate = custom?.didMigrate {
            report(.didMigrate, 0, 0)
            let context = ManagedContainer(model: new, store: try transaction.store(model: new, schema: planned.schema, readOnly: false, onCommit: onCommit))
                .newContext(observation: .unobserved)
            let previous = ManagedContainer(model: old, store: try transaction.store(model: old, schema: recorded, readOnly: true, onCommit: { _ in }))
                .newContext(observation: .unobserved)
            var currentNames: [String: String] = [:]
            for entity in recorded.entities {
                if let now = planned.schema.entities.first(where: { $0.code == entity.code }) { currentNames[entity.name] = now.name }
            }
            let migration = MigrationContext(context: context, previous: previous, currentNames: currentNames) { completed, total in
                report(.didMigrate, completed, total)
            }
            do {
                try didMigrate(migration)
                if context.hasChanges { try context.save() }
            } catch {
                throw MigrationError.stageFailed(stage: name, error: error)
            }
        }

        try transaction.dropStorage(planned)
        for check in planned.requiredChecks {
            let missing = try transaction.count(check.countStatement)
            if missing > 0 { throw MigrationError.requiredValuesMissing(stage: name, property: check.property, records: missing) }
        }
        try transaction.record(planned.schema)
        return planned.schema
    }
}

/// Records a stage's saves wrote, counted from the store's commits.
private final class SavedCount: Sendable {
    private let count = Atomic<Int>(0)
    var value: Int { count.load(ordering: .relaxed) }
    func add(_ records: Int) { count.add(records, ordering: .relaxed) }
}
