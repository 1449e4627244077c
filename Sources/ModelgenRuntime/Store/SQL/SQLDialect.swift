/// What differs between the SQL of the stores: placeholders, booleans, NULL-safe equality, decimals.
/// Both stores provide `mg_fold` and `mg_match` for `[c]`, `[d]` and the string operators (SQLite as
/// registered Swift functions, PostgreSQL as SQL functions in its schema).
package protocol SQLDialect {
    /// The placeholder of the `index`th binding (1-based).
    func placeholder(_ index: Int) -> String
    var trueLiteral: String { get }
    var falseLiteral: String { get }
    /// `a` and `b` are equal, NULL equal to NULL.
    func isSame(_ a: String, _ b: String) -> String
    /// A decimal column as compared and sorted.
    func decimalColumn(_ sql: String) -> String
    /// What `OFFSET` needs before it when there is no limit.
    var noLimit: String { get }
    /// The condition that a value is one of the keys of a list parameter (`SQLParameter.integers`),
    /// written after the value: a subquery of the keys, so that however long the list, the planner
    /// may join it through an index instead of testing every row of the table against the list.
    func inKeys(_ parameter: String) -> String
    /// A table of the rows of list parameters of the same length (`SQLParameter.integers`): their
    /// `n`th items as columns `mg_c0`, `mg_c1`, … and `n` (from 0) as `mg_i`, for a `FROM` clause.
    func keyRows(_ parameters: [String]) -> String
    /// What ends a `SELECT` that locks the rows it reads until the transaction ends ("" when the
    /// engine locks otherwise, as SQLite does with its write lock).
    var lockingRows: String { get }
    /// The statement explaining how the engine runs `sql`, and the column of its rows that says so.
    func explain(_ sql: String) -> (sql: String, column: Int)
    /// An `ORDER BY` term of `sql`: NULL sorts before every value ascending and after them descending,
    /// as in memory (`mayBeNull` false: the value is never NULL, and the term may say nothing of it).
    func orderTerm(_ sql: String, ascending: Bool, mayBeNull: Bool) -> String
    /// The connection's temporary table of a batch delete's doomed records (`"t"` table name, `"k"`
    /// key) as statements name it, and the statement that creates it when the connection has none.
    var doomedTable: (name: String, create: String) { get }
    /// An insert of a select's rows into `table` that skips the rows already there.
    func insertSkippingDuplicates(into table: String, _ select: String) -> String
    /// A column holding the keys a `SELECT` of one key column returns, in its order, as an array
    /// (`SQLResultRow.keys`); nil when the engine's rows hold no arrays.
    func keyArray(_ select: String) -> String?
}

extension SQLDialect {
    /// `text` folded as `[c]` (1) and `[d]` (2) ask: the store's `mg_fold` function.
    package func fold(_ text: String, options: UInt8) -> String { "mg_fold(\(text), \(options))" }
    /// True when the string operator (`CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE`, `MATCHES`) holds:
    /// the store's `mg_match` function.
    package func match(_ op: String, options: UInt8, _ text: String, _ pattern: String) -> String {
        "mg_match('\(op)', \(options), \(text), \(pattern))"
    }
}
