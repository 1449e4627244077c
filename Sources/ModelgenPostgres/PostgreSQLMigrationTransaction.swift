#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// A schema change of a PostgreSQL schema on one connection, in a transaction (PostgreSQL's schema
/// changes are transactional, so a kill leaves the layout before or after it): an opening's
/// lightweight migration, or one stage of a staged migration, with stores on it for the stage's code.
struct PostgreSQLMigrationTransaction: MigrationTransaction {
    let connection: PostgresConnection
    let configuration: PostgreSQLConfiguration

    func store(model: ManagedObjectModel, schema: SQLSchema, readOnly: Bool, onCommit: @escaping @Sendable (Int) -> Void) throws -> any PersistentStore {
        PostgreSQLStore(stage: connection, model: model, configuration: configuration, schema: schema, readOnly: readOnly, onCommit: onCommit)
    }

    func addStorage(_ plan: SQLSchemaPlanner.Plan, previous: SQLSchema?, model: ManagedObjectModel) throws {
        for statement in PostgreSQLSQL.migration(to: plan, from: previous, model: model) { try connection.execute(statement) }
    }

    func dropStorage(_ plan: SQLSchemaPlanner.Plan) throws {
        for statement in plan.removals.flatMap(PostgreSQLSQL.drop) { try connection.execute(statement) }
        try PostgreSQLStore.dropLeftoverIndexes(keeping: plan.modelIndexNames, schema: configuration.schema, connection)
    }

    func count(_ sql: String) throws -> Int {
        Int(try connection.rows(sql).first?.makeRandomAccess()[0].decode(Int64.self) ?? 0)
    }

    func record(_ schema: SQLSchema) throws {
        try PostgreSQLStore.record(schema, connection)
    }

    func recordedSchema() throws -> SQLSchema? {
        try PostgreSQLStore.recordedSchema(connection, schema: configuration.schema)
    }
}
#endif
