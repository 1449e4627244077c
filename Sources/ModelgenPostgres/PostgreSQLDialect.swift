#if PostgreSQL
import Foundation
import ModelgenRuntime
import PostgresNIO

/// PostgreSQL's SQL for the shared query translator: `$N` placeholders, `TRUE`/`FALSE`,
/// `IS NOT DISTINCT FROM`, decimals compared exactly as `numeric`, and two SQL functions the store
/// creates in its schema for `[c]`/`[d]` and the string operators.
///
/// Folding and matching (what "the same results as the other stores" means here):
/// - `[c]`: `lower()` under the database's `LC_CTYPE` (use a UTF-8 locale such as `C.UTF-8`; under
///   `C` only ASCII letters fold). Swift folds a few characters differently (`ß` stays `ß` here).
/// - `[d]`: canonical decomposition (`normalize(…, NFD)`) and removal of the combining marks
///   U+0300–U+036F: `é` → `e`, `ñ` → `n`; letters without a decomposition (`ø`, `ł`) stay.
/// - `LIKE`: `*` and `?` wildcards, the rest literal, as in memory.
/// - `MATCHES`: PostgreSQL's regular expressions (POSIX ARE) over the whole string, where the
///   in-memory evaluator uses ICU's; common patterns agree, exotic syntax may not.
struct PostgreSQLDialect: SQLDialect {
    func placeholder(_ index: Int) -> String { "$\(index)" }
    var trueLiteral: String { "TRUE" }
    var falseLiteral: String { "FALSE" }
    func isSame(_ a: String, _ b: String) -> String { "\(a) IS NOT DISTINCT FROM \(b)" }
    func decimalColumn(_ sql: String) -> String { sql }
    var noLimit: String { "" }
    /// PostgreSQL sorts NULL last ascending unless told (which an index on the column cannot serve:
    /// said only where the value may be NULL).
    func orderTerm(_ sql: String, ascending: Bool, mayBeNull: Bool) -> String {
        "\(sql) \(ascending ? "ASC" : "DESC")" + (mayBeNull ? (ascending ? " NULLS FIRST" : " NULLS LAST") : "")
    }
    /// (`= ANY` of a long array bound as a value made the planner scan the table and test each row.)
    func inKeys(_ parameter: String) -> String { "IN (SELECT unnest(\(parameter)::bigint[]))" }
    func keyRows(_ parameters: [String]) -> String {
        let columns = parameters.indices.map { "mg_c\($0)" }
        return "(SELECT \(columns.joined(separator: ", ")), mg_i - 1 AS mg_i FROM unnest(\(parameters.map { $0 + "::bigint[]" }.joined(separator: ", "))) "
            + "WITH ORDINALITY AS x(\(columns.joined(separator: ", ")), mg_i))"
    }
    var lockingRows: String { " FOR UPDATE" }
    /// `EXPLAIN` (`Index Scan using …`, `Seq Scan on …`).
    func explain(_ sql: String) -> (sql: String, column: Int) { ("EXPLAIN " + sql, 0) }
    /// Its rows are dropped at each commit.
    var doomedTable: (name: String, create: String) {
        ("pg_temp.\"modelgen.doomed\"", "CREATE TEMP TABLE IF NOT EXISTS \"modelgen.doomed\" (\"t\" TEXT, \"k\" BIGINT, PRIMARY KEY (\"t\", \"k\")) ON COMMIT DELETE ROWS")
    }
    func keyArray(_ select: String) -> String? { "ARRAY(\(select))" }
    func insertSkippingDuplicates(into table: String, _ select: String) -> String { "INSERT INTO \(table) (\"t\", \"k\") " + select + " ON CONFLICT DO NOTHING" }

    /// The functions the dialect and the store call, created (or replaced) in the store's schema when
    /// it opens. `mg_record_history` writes a history row and its notification: it takes the history
    /// lock before the row draws its token, so rows commit in token order (the lock is held to commit).
    static let functions = [
        """
        CREATE OR REPLACE FUNCTION mg_record_history(author text, at double precision, changes bytea, lock text, channel text)
          RETURNS bigint LANGUAGE plpgsql AS $$
        DECLARE written bigint;
        BEGIN
          PERFORM pg_advisory_xact_lock(hashtext(lock));
          INSERT INTO "modelgen.history" ("author", "timestamp", "changes") VALUES (author, at, changes) RETURNING "token" INTO written;
          PERFORM pg_notify(channel, written::text);
          RETURN written;
        END $$
        """,
        """
        CREATE OR REPLACE FUNCTION mg_fold(t text, options integer) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
          SELECT CASE WHEN options & 2 = 2
                      THEN regexp_replace(normalize(CASE WHEN options & 1 = 1 THEN lower(t) ELSE t END, NFD), '[\\u0300-\\u036f]', '', 'g')
                      WHEN options & 1 = 1 THEN lower(t) ELSE t END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION mg_like_regex(p text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
          SELECT '^' || replace(replace(regexp_replace(p, '([.^$+(){}\\[\\]|\\\\])', '\\\\\\1', 'g'), '*', '.*'), '?', '.') || '$'
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION mg_match(op text, options integer, t text, p text) RETURNS boolean LANGUAGE sql IMMUTABLE STRICT AS $$
          SELECT CASE op
            WHEN 'CONTAINS' THEN strpos(mg_fold(t, options), mg_fold(p, options)) > 0
            WHEN 'BEGINSWITH' THEN starts_with(mg_fold(t, options), mg_fold(p, options))
            WHEN 'ENDSWITH' THEN right(mg_fold(t, options), length(mg_fold(p, options))) = mg_fold(p, options)
            WHEN 'LIKE' THEN mg_fold(t, options) ~ mg_like_regex(mg_fold(p, options))
            WHEN 'MATCHES' THEN CASE WHEN options & 1 = 1 THEN mg_fold(t, options) ~* ('^(?:' || p || ')$')
                                     ELSE mg_fold(t, options) ~ ('^(?:' || p || ')$') END
            ELSE FALSE END
        $$
        """,
    ]

    /// The bindings of a translated query, each typed by the column it meets (or by its own value).
    static func bindings(_ bindings: [QueryBinding]) throws -> PostgresBindings {
        try typedBindings(bindings).bindings
    }

    /// The bindings of a translated query and their PostgreSQL types (for a prepared statement).
    static func typedBindings(_ bindings: [QueryBinding]) throws -> (bindings: PostgresBindings, types: [PostgresDataType]) {
        var result = PostgresBindings(capacity: bindings.count)
        var types: [PostgresDataType] = []
        for binding in bindings {
            let type = binding.columnType ?? naturalType(of: binding.value)
            types.append(try PostgreSQLSQL.bind(binding.value, type: type, into: &result, entity: "predicate", key: "value"))
        }
        return (result, types)
    }

    private static func naturalType(of value: StoreValue) -> AttributeType {
        switch value {
        case .bool: return .bool
        case .int, .reference: return .int64
        case .double, .date: return .double
        case .decimal: return .decimal
        case .uuid: return .uuid
        case .data: return .binary
        default: return .string
        }
    }
}
#endif
