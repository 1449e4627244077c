/// A connection that runs statements given as text: both SQL stores' connections, whose
/// transactions are written here once.
package protocol SQLStatementRunning {
    /// Runs one statement without bindings.
    func execute(_ sql: String) throws
}

extension SQLStatementRunning {
    /// Runs `body` in a transaction opened by `begin` (`BEGIN`, SQLite's `BEGIN IMMEDIATE` for a
    /// write): committed when it returns, rolled back when it throws.
    package func inTransaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }
}
