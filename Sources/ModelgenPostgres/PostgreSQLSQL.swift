#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// PostgreSQL's side of the store layout: column types, the statements that create or extend the
/// tables of a layout, values bound and read, and server errors as store errors.
///
/// The layout is the SQLite store's (the same planner decides tables, columns, codes, join tables and
/// what a model change may migrate): one table per entity hierarchy with `Z_PK` (key, from a sequence
/// per table), `Z_ENT` (entity code) and `Z_OPT` (version); a column per stored attribute; a to-one
/// relationship as key and entity-code columns; many-to-many relationships in join tables.
enum PostgreSQLSQL {
    static func quote(_ name: String) -> String { SQLSchemaPlanner.quote(name) }

    /// Column types. Dates are seconds since 2001-01-01 00:00:00 GMT as `double precision` (as Core
    /// Data and the SQLite store keep them: every `Date` reads back exactly, where `timestamptz` would
    /// round to microseconds); floats are kept as doubles (so both compare alike in SQL); decimals
    /// as `numeric` (exact).
    static func type(_ type: AttributeType) -> String {
        switch type {
        case .bool: return "boolean"
        case .int16: return "smallint"
        case .int32: return "integer"
        case .int64: return "bigint"
        case .float, .double, .date: return "double precision"
        case .string, .uri: return "text"
        case .decimal: return "numeric"
        case .uuid: return "uuid"
        case .binary, .transformable: return "bytea"
        }
    }

    /// The key sequence of a table.
    static func sequence(_ table: String) -> String { quote(table + ".Z_PK") }

    /// The statements that bring the database from `previous` (nil: nothing yet) to `schema`: new
    /// tables with their key sequences, new columns (with the attribute's default for existing rows),
    /// new join tables, and every index (`IF NOT EXISTS`: the SQLite planner's index statements, whose
    /// syntax PostgreSQL shares).
    static func migration(to plan: SQLSchemaPlanner.Plan, from previous: SQLSchema?, model: ManagedObjectModel) -> [String] {
        let schema = plan.schema
        var statements: [String] = []
        /// The model's entity a recorded one is (by name, or one renamed from it with `renamingIdentifier`).
        func modelEntity(_ name: String) -> EntityDescription? {
            model.entity(named: name) ?? model.entities.first { $0.renamingIdentifier == name }
        }
        // Each column's definition; an added attribute's carries its default for the rows already there.
        func columns(of layout: SQLSchema) -> [String: [(name: String, definition: String, added: String)]] {
            var tables: [String: [(String, String, String)]] = [:]
            for stored in layout.entities {
                guard let entity = modelEntity(stored.name) else { continue }
                if tables[stored.table] == nil { tables[stored.table] = [] }
                for attribute in stored.attributes {
                    let description = entity.ownAttributes.first { $0.name == attribute.name }
                    let defaultClause = description.map { Self.defaultClause($0) } ?? ""
                    let definition = "\(quote(attribute.column)) \(type(description?.type ?? .string))"
                    tables[stored.table]!.append((attribute.column, definition, definition + defaultClause))
                }
                for r in stored.relationships {
                    if let column = r.column {
                        tables[stored.table]!.append((column, "\(quote(column)) bigint", "\(quote(column)) bigint"))
                        tables[stored.table]!.append((column + ".entity", "\(quote(column + ".entity")) bigint", "\(quote(column + ".entity")) bigint"))
                    }
                }
            }
            for stored in layout.entities {
                for r in stored.relationships {
                    guard let order = r.orderColumn, let destination = modelEntity(r.destination) else { continue }
                    var root = destination
                    while let parent = root.parent { root = parent }
                    guard let table = layout.entities.first(where: { modelEntity($0.name) === root })?.table else { continue }
                    tables[table, default: []].append((order, "\(quote(order)) bigint", "\(quote(order)) bigint"))
                }
            }
            return tables
        }
        let new = columns(of: schema)
        let old = previous.map(columns(of:)) ?? [:]
        for (table, tableColumns) in new.sorted(by: { $0.key < $1.key }) {
            if let existing = old[table] {
                let known = Set(existing.map(\.name))
                for column in tableColumns where !known.contains(column.name) {
                    statements.append("ALTER TABLE \(quote(table)) ADD COLUMN \(column.added)")
                }
            } else {
                let definitions = ["\"Z_PK\" bigint PRIMARY KEY", "\"Z_ENT\" integer NOT NULL", "\"Z_OPT\" bigint NOT NULL"]
                    + tableColumns.map(\.definition)
                statements.append("CREATE TABLE \(quote(table)) (\(definitions.joined(separator: ", ")))")
                statements.append("CREATE SEQUENCE \(sequence(table))")
            }
        }
        let oldJoinTables = Set(previous?.entities.flatMap { $0.relationships.compactMap(\.joinTable) } ?? [])
        let paired = Set(schema.entities.flatMap { $0.relationships.filter { $0.joinColumns != nil }.compactMap(\.joinTable) })
        for join in Set(schema.entities.flatMap({ $0.relationships.compactMap(\.joinTable) })).sorted() where !oldJoinTables.contains(join) {
            statements += SQLSchemaPlanner.joinTableStatements(join, paired: paired.contains(join), integer: "bigint")
        }
        // A store of format 1: each many-to-many pair's two tables become one.
        for merge in plan.joinMerges { statements += merge.statements(integer: "bigint") }
        // The model's indexes keep NULL first in the columns that may hold it, the order sorts ask for.
        let nullsFirst = Dictionary(plan.modelIndexes.map { ($0.statement(nullsFirst: false), $0.statement(nullsFirst: true)) }) { first, _ in first }
        statements += plan.statements.filter { $0.hasPrefix("CREATE INDEX") || $0.hasPrefix("CREATE UNIQUE INDEX") }.map { nullsFirst[$0] ?? $0 }
        return statements
    }

    /// The statements dropping one thing the model removed (`MigrationPolicy.dropRemoved`): the
    /// planner's, and a table's key sequence with the table (PostgreSQL drops a column's indexes itself).
    static func drop(_ removal: SQLSchemaPlanner.Removal) -> [String] {
        if case .table(let table) = removal { return [removal.statement, "DROP SEQUENCE IF EXISTS \(sequence(table))"] }
        return [removal.statement]
    }

    /// ` DEFAULT value` for a column added to existing rows, from the attribute's default.
    static func defaultClause(_ attribute: AttributeDescription) -> String {
        switch attribute.defaultValue {
        case .bool(let value): return " DEFAULT \(value)"
        case .int(let value): return " DEFAULT \(value)"
        case .double(let value): return value.isFinite ? " DEFAULT \(value)" : ""
        case .decimal(let value): return " DEFAULT \(value)"
        case .date(let value): return " DEFAULT \(value.timeIntervalSinceReferenceDate)"
        case .string(let value): return " DEFAULT " + SQLSchemaPlanner.literal(value)
        case .url(let value): return " DEFAULT " + SQLSchemaPlanner.literal(value.absoluteString)
        case .uuid(let value): return " DEFAULT '\(value.uuidString)'"
        case .data(let value): return " DEFAULT '\\x\(value.map { String(format: "%02x", $0) }.joined())'"
        default: return ""
        }
    }

    /// Appends a value as a column of `type` keeps it, and returns the type the binding has (`.null`
    /// for NULL, whose type the statement infers), for statements prepared with their types.
    @discardableResult
    static func bind(_ value: StoreValue, type: AttributeType, into bindings: inout PostgresBindings, entity: String, key: String) throws -> PostgresDataType {
        switch value {
        case .null, .reference(nil), .references:
            bindings.appendNull()
            return .null
        case .bool(let v):
            bindings.append(v)
            return .bool
        case .int(let v):
            switch type {
            case .int16: bindings.append(Int16(truncatingIfNeeded: v)); return .int2
            case .int32: bindings.append(Int32(truncatingIfNeeded: v)); return .int4
            case .float, .double, .date: bindings.append(Double(v)); return .float8
            case .bool: bindings.append(v != 0); return .bool
            default: bindings.append(v); return .int8
            }
        case .double(let v):
            switch type {
            case .int16, .int32, .int64:
                return try bind(.int(Int64(exactly: v.rounded(.towardZero)) ?? 0), type: type, into: &bindings, entity: entity, key: key)
            default: bindings.append(v); return .float8
            }
        case .decimal(let v): try bindings.append(v); return .numeric
        case .string(let v):
            if v.utf8.contains(0) {
                throw PostgreSQLStoreError.unstorableValue(entity: entity, key: key, reason: "the text holds U+0000, which PostgreSQL's text type cannot keep")
            }
            bindings.append(v)
            return .text
        case .date(let v): bindings.append(v.timeIntervalSinceReferenceDate); return .float8
        case .data(let v): try bindings.append(v); return .bytea
        case .uuid(let v): bindings.append(v); return .uuid
        case .url(let v): bindings.append(v.absoluteString); return .text
        case .reference(let id?): bindings.append(id.key); return .int8
        }
    }

    /// Reads a cell of a column of `type`.
    static func value(_ cell: PostgresCell, type: AttributeType) throws -> StoreValue {
        switch type {
        case .bool: return try cell.decode(Bool?.self).map(StoreValue.bool) ?? .null
        case .int16: return try cell.decode(Int16?.self).map { .int(Int64($0)) } ?? .null
        case .int32: return try cell.decode(Int32?.self).map { .int(Int64($0)) } ?? .null
        case .int64: return try cell.decode(Int64?.self).map(StoreValue.int) ?? .null
        case .float, .double: return try cell.decode(Double?.self).map(StoreValue.double) ?? .null
        case .date: return try cell.decode(Double?.self).map { .date(Date(timeIntervalSinceReferenceDate: $0)) } ?? .null
        case .string: return try cell.decode(String?.self).map(StoreValue.string) ?? .null
        case .uri: return try cell.decode(String?.self).flatMap { URL(string: $0) }.map(StoreValue.url) ?? .null
        case .decimal: return try cell.decode(Decimal?.self).map(StoreValue.decimal) ?? .null
        case .uuid: return try cell.decode(UUID?.self).map(StoreValue.uuid) ?? .null
        case .binary, .transformable: return try cell.decode(Data?.self).map(StoreValue.data) ?? .null
        }
    }

    /// A PostgresNIO error as a store error (server errors by SQLSTATE).
    static func storeError(_ error: any Error, statement: String) -> any Error {
        if error is PostgreSQLStoreError || error is UniquenessViolationError { return error }
        guard let error = error as? PSQLError else { return PostgreSQLStoreError.connection(String(describing: error)) }
        guard let state = error.serverInfo?[.sqlState] ?? (error.serverInfo == nil ? nil : "") else {
            return PostgreSQLStoreError.connection("\(error.code): \(String(reflecting: error))")
        }
        let message = error.serverInfo?[.message] ?? ""
        switch state {
        case "55P03": return PostgreSQLStoreError.lockTimeout(statement: statement)
        case "23505": return UniquenessViolationError(indexName: error.serverInfo?[.constraintName] ?? "", message: message)
        default: return PostgreSQLStoreError.server(sqlState: state, message: message, statement: statement)
        }
    }
}
#endif
