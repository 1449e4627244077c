/// A value bound to one of the shared statements (`SQLSave`, `SQLReads`): keys, entity codes, lists
/// of keys and names. A list of keys is read as a table through the dialect (`SQLDialect.inKeys`,
/// `SQLDialect.keyRows`).
package enum SQLParameter {
    case integer(Int64)
    case integers([Int64])
    case text(String)
}

/// A row of a statement's result, read by column (from 0).
package protocol SQLResultRow {
    /// The column's integer (an entity code, a key, a version, a count).
    func int64(_ column: Int) throws -> Int64
    /// Whether the column is NULL.
    func isNull(_ column: Int) throws -> Bool
    /// How many columns the row has.
    var columnCount: Int { get }
    /// The column's value as an attribute of `type` keeps it in this engine.
    func value(_ column: Int, type: AttributeType) throws -> StoreValue
    /// The column's array of keys (`SQLDialect.keyArray`).
    func keys(_ column: Int) throws -> [Int64]
}

extension SQLResultRow {
    /// For a row of `SQLLayout.membersWithRowsSQL` (the owner's key, then the member's row): the member
    /// when its row is not to be decoded — its record is gone (a link's member, named by the last two
    /// columns) or `decoded` already holds its key (a member shared by several owners) — and nil when
    /// it is, its key then noted in `decoded`.
    func memberWithoutRow(decoded: inout Set<RecordKey>, entityName: (Int64) throws -> String) throws -> ObjectID? {
        if try isNull(1) {
            let last = columnCount - 1
            return ObjectID(entityName: try entityName(try int64(last)), key: try int64(last - 1))
        }
        let key = try int64(1)
        return decoded.insert(RecordKey(key)).inserted ? nil : ObjectID(entityName: try entityName(try int64(2)), key: key)
    }
}

/// One connection of a SQL store, as the engine-neutral reads and writes use it: what an engine's
/// driver implements to run statements the shared code builds in the driver's dialect.
package protocol SQLExecutor {
    associatedtype Row: SQLResultRow
    /// The engine's SQL, which the statements given to this executor are written in.
    var dialect: any SQLDialect { get }
    /// Runs a statement whose rows are not needed. A driver may send it without waiting and report
    /// its error at the next `query` or `flush` (statements still run in the order given).
    func run(_ sql: String, _ parameters: [SQLParameter]) throws
    /// Runs a statement (after every statement `run` was given) and calls `row` for each of its rows.
    func query(_ sql: String, _ parameters: [SQLParameter], row: (Row) throws -> Void) throws
    /// Runs a translated query (its bindings typed by the columns they meet), as `query(_:_:row:)`.
    func query(_ translated: SQLQueryTranslator.SQL, row: (Row) throws -> Void) throws
    /// Runs a statement without parameters (after every statement `run` was given) and returns how
    /// many rows it changed.
    func rowsChanged(by sql: String) throws -> Int
    /// Waits until every statement `run` was given has run; throws the first one's error.
    func flush() throws
    /// The error for a row naming an entity code the model does not have (the store is not this
    /// model's).
    func unknownEntityCode(_ code: Int64) -> any Error
    /// The record of a result row holding a table's select list from column `column` on: its
    /// attributes and to-one relationships (to-many ones left out).
    func storeRow(_ row: Row, from column: Int) throws -> StoreRow
}

/// What one save asks of an engine beyond running statements: keys for new records, and writing
/// records' rows, where engines differ most in how they do it fastest (SQLite a prepared statement a
/// row; PostgreSQL COPY for many rows, `unnest` arrays for several, pipelined). `SQLSave` decides
/// what is written and in which order.
package protocol SQLSaveDriver: SQLExecutor {
    /// Draws `count` new keys for each table, ascending. `rows` and `groups` are the records that get
    /// them, for a driver that prepares their rows while the keys are drawn.
    func drawKeys(_ counts: [(table: String, count: Int)], inserting rows: [StoreRow], _ groups: [SQLRowGroup]) throws -> [String: [Int64]]
    /// Inserts the rows at `group.indices` of `rows`, the `n`th with `keys[n]` and version 1; references
    /// to new records resolved with `resolve`.
    func insert(_ rows: [StoreRow], _ group: SQLRowGroup, keys: [Int64], resolve: (ObjectID) -> ObjectID) throws
    /// Updates the rows at `group.indices` of `rows` (only the columns of `slots`, or all), raising
    /// each one's version. Returns a function answering each row's new version, nil for a row that is
    /// gone; a driver may answer only when asked (after the rest of the save has been sent).
    func update(_ rows: [StoreRow], _ group: SQLRowGroup, slots: [Int]?,
                resolve: (ObjectID) -> ObjectID) throws -> () throws -> [Int64?]
    /// Called before records' rows are deleted (a store keeping files for them notes which).
    func willDelete(keys: [Int64], of entity: SQLLayout.Entity) throws
}

extension SQLSaveDriver {
    package func willDelete(keys: [Int64], of entity: SQLLayout.Entity) throws {}
}

/// Records of one entity that one save writes alike: their positions in the save's list of rows.
package struct SQLRowGroup {
    package let entity: SQLLayout.Entity
    package var indices: [Int]
}
