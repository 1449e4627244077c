/// The predicate language's reserved words, upper-cased (they are case-insensitive): one list for
/// the parser, which refuses or reads them where an expression begins, and the printer, which writes
/// a key of such a spelling as `#name` so the text reads back as the same key.
enum ReservedWords {
    /// Operators and predicate constants: an error where an expression begins.
    static let operators: Set<String> = [
        "AND", "OR", "NOT", "ANY", "ALL", "NONE", "SOME", "IN", "BETWEEN", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE",
    ]
    /// Literals and `SELF`: read as values where an expression begins.
    static let values: Set<String> = ["TRUE", "YES", "FALSE", "NO", "NIL", "NULL", "SELF"]
    /// Words that begin a call when `(` follows them.
    static let calls: Set<String> = ["SUBQUERY", "FUNCTION", "CAST"]
    /// Every word a key spelled alike must be escaped for where an expression begins.
    static let all = operators.union(values).union(calls)
}
