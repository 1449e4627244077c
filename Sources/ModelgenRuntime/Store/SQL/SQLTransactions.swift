/// A connection that runs statements given as text: both SQL stores' connections, whose
/// transactions are written here once.
package protocol SQLStatementRunning {
    /// Runs one statement without bindings.
    func execute(_ sql: String) throws
}

extension SQLStatementRunning {
    /// Runs `body` in a transaction opened by `begin` (`BEGIN`, SQLite's `BEGIN IMMEDIATE` for a
    /// write, or a `SAVEPOINT`): ended by `commit` when it returns, by the `rollback` statements
    /// when it throws.
    package func inTransaction<T>(begin: String = "BEGIN", commit: String = "COMMIT", rollback: [String] = ["ROLLBACK"],
                                  _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute(commit)
            return result
        } catch {
            for statement in rollback { try? execute(statement) }
            throw error
        }
    }
}
