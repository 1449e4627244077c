import Foundation

/// SQLite's SQL: `?N` placeholders, 1 and 0 for booleans, `IS` for NULL-safe equality, decimals
/// compared as REAL, and the functions `mg_fold` and `mg_match` that `SQLiteConnection` registers
/// (the in-memory evaluator's own Swift code, so both answer alike).
struct SQLiteDialect: SQLDialect {
    func placeholder(_ index: Int) -> String { "?\(index)" }
    var trueLiteral: String { "1" }
    var falseLiteral: String { "0" }
    func isSame(_ a: String, _ b: String) -> String { "\(a) IS \(b)" }
    func decimalColumn(_ sql: String) -> String { "CAST(\(sql) AS REAL)" }
    var noLimit: String { " LIMIT -1" }
    /// SQLite sorts NULL first ascending itself.
    func orderTerm(_ sql: String, ascending: Bool, mayBeNull: Bool) -> String { "\(sql) \(ascending ? "ASC" : "DESC")" }
    /// A list of keys is bound as JSON text (`[1,2,3]`) and read with `json_each`.
    func inKeys(_ parameter: String) -> String { "IN (SELECT value FROM json_each(\(parameter)))" }
    func keyRows(_ parameters: [String]) -> String {
        let columns = parameters.indices.map { "a\($0).value AS mg_c\($0)" }.joined(separator: ", ")
        let joins = parameters.indices.dropFirst().map { " JOIN json_each(\(parameters[$0])) AS a\($0) ON a\($0).key = a0.key" }.joined()
        return "(SELECT \(columns), a0.key AS mg_i FROM json_each(\(parameters[0])) AS a0\(joins))"
    }
    var lockingRows: String { "" }
    /// `EXPLAIN QUERY PLAN` (`SEARCH Item USING INDEX …`, `SCAN Item`): id, parent, notused, detail.
    func explain(_ sql: String) -> (sql: String, column: Int) { ("EXPLAIN QUERY PLAN " + sql, 3) }
    var doomedTable: (name: String, create: String) {
        ("temp.\"modelgen.doomed\"", "CREATE TEMP TABLE IF NOT EXISTS \"modelgen.doomed\" (\"t\" TEXT, \"k\" INTEGER, PRIMARY KEY (\"t\", \"k\"))")
    }
    /// SQLite's fetches load objects' to-many relationships after their rows (`DirectLoadingStore`).
    func keyArray(_ select: String) -> String? { nil }
    func insertSkippingDuplicates(into table: String, _ select: String) -> String { "INSERT OR IGNORE INTO \(table) (\"t\", \"k\") " + select }

    /// A binding as SQLite keeps values of the column it meets (decimals compared as REAL: they meet
    /// `CAST(… AS REAL)`; a value written to a column as the column keeps it).
    static func value(_ binding: QueryBinding) -> SQLiteValue {
        if let type = binding.columnType, type != .decimal || binding.isStored { return SQLiteValueCodec.sqlValue(binding.value, type: type) }
        if case .decimal(let d) = binding.value { return .real(NSDecimalNumber(decimal: d).doubleValue) }
        return SQLiteValueCodec.sqlValue(binding.value)
    }
}
