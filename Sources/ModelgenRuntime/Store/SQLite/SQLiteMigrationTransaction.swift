import Foundation

/// A schema change of a SQLite file on the writer connection, in a transaction (`BEGIN IMMEDIATE` …
/// `COMMIT`, so a kill at any moment leaves the layout before or after it): an opening's lightweight
/// migration, or one stage of a staged migration, with stores on it for the stage's code.
struct SQLiteMigrationTransaction: MigrationTransaction {
    let connection: SQLiteConnection
    let url: URL
    let externalStorageThreshold: Int
    let configuration: SQLiteConfiguration

    func store(model: ManagedObjectModel, schema: SQLSchema, readOnly: Bool, onCommit: @escaping @Sendable (Int) -> Void) throws -> any PersistentStore {
        var configuration = configuration
        configuration.readOnly = readOnly
        return SQLiteStore(stage: connection, url: url, model: model, schema: schema, externalStorageThreshold: externalStorageThreshold,
                           configuration: configuration, onCommit: onCommit)
    }

    func addStorage(_ plan: SQLSchemaPlanner.Plan, previous: SQLSchema?, model: ManagedObjectModel) throws {
        for statement in plan.statements { try connection.execute(statement) }
    }

    func dropStorage(_ plan: SQLSchemaPlanner.Plan) throws {
        for removal in plan.removals { try SQLiteStore.drop(removal, connection) }
        try SQLiteStore.dropLeftoverIndexes(keeping: plan.modelIndexNames, connection)
    }

    func count(_ sql: String) throws -> Int {
        let select = try connection.statement(sql)
        defer { select.reset() }
        return try select.step() ? Int(select.int64(0)) : 0
    }

    func record(_ schema: SQLSchema) throws {
        try SQLiteStore.record(schema, connection)
    }

    func recordedSchema() throws -> SQLSchema? {
        try SQLiteStore.readSchema(connection, path: url.path)
    }
}
