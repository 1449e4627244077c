import Foundation

/// Persistent history: every save writes one row of `modelgen.history` in its own transaction
/// (author, time, the change set as JSON), so another process with the same file can catch up from a
/// token, and a running process notices other processes' saves by `PRAGMA data_version`.
extension SQLiteStore {
    static let createHistoryTable = """
        CREATE TABLE IF NOT EXISTS "modelgen.history" ("token" INTEGER PRIMARY KEY AUTOINCREMENT, \
        "author" TEXT NOT NULL, "timestamp" REAL NOT NULL, "changes" BLOB NOT NULL)
        """

    /// Records what a save (or a batch statement) changed, in its transaction.
    func writeHistory(_ changeSet: ChangeSet, author: String, _ connection: SQLiteConnection) throws {
        // A migration stage's saves are part of the schema change: other processes reopen the store.
        guard stage == nil else { return }
        try connection.statement("INSERT INTO \"modelgen.history\" (\"author\", \"timestamp\", \"changes\") VALUES (?, ?, ?)")
            .run([.text(author), .real(Date().timeIntervalSinceReferenceDate), .blob(changeSet.historyJSON())])
    }

    public func historyTransactions(after token: Int64) throws -> [HistoryTransaction] {
        try reads { try $0.historyTransactions(after: token) }
    }

    public func latestHistoryToken() throws -> Int64 {
        try reads { try $0.latestHistoryToken() }
    }

    public func pruneHistory(through token: Int64) throws {
        try pool.requireWritable()
        try writing { connection in
            try connection.statement("DELETE FROM \"modelgen.history\" WHERE \"token\" <= ?").run([.integer(token)])
        }
    }

    /// The writer's `PRAGMA data_version`: it changes when another connection (another process, or
    /// another store on the file) commits, not on this store's own saves.
    public func externalChangeCounter() throws -> Int64? {
        try writing { connection in
            let pragma = try connection.statement("PRAGMA data_version")
            defer { pragma.reset() }
            return try pragma.step() ? pragma.int64(0) : nil
        }
    }
}
