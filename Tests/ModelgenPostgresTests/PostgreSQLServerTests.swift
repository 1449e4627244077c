#if PostgreSQL
import Foundation
import ModelgenPostgres
import ModelgenRuntime
import PostgresNIO
import Testing

/// A configuration for a new schema on the test server; nil (and the test is skipped) without one.
func testConfiguration() throws -> PostgreSQLConfiguration? {
    guard let url = StoreKind.postgresURL else { return nil }
    var configuration = try PostgreSQLConfiguration(url: url)
    configuration.schema = "test_" + UUID().uuidString.prefix(8).lowercased()
    return configuration
}

/// The first element of an async sequence, or nil after `seconds`.
func first<S: AsyncSequence & Sendable>(of sequence: S, within seconds: Double, where match: @escaping @Sendable (S.Element) -> Bool) async -> S.Element?
where S.Element: Sendable {
    await withTaskGroup(of: S.Element?.self) { group in
        group.addTask {
            do { for try await element in sequence where match(element) { return element } } catch {}
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

final class MigrationNote: ManagedObject {}
final class MigrationFolder: ManagedObject {}

@Suite(.enabled(if: StoreKind.postgresURL != nil, "needs MODELGEN_POSTGRES_URL (make test-postgres)"))
struct PostgreSQLServerTests {
    /// Two containers on one database stand for two app servers: a save on one reaches the other's
    /// change stream (NOTIFY, then its history) and its main context's live results.
    @MainActor @Test func aSaveOnOneServerReachesTheOther() async throws {
        let configuration = try #require(try testConfiguration())
        let serverA = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let serverB = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let projects = try LiveResults(FetchRequest<ManagedObject>(entityName: "Project", sortDescriptors: [SortDescriptor("title")]),
                                       in: serverB.mainContext)    // starts B's watcher
        let changes = serverB.changes
        let saved = Task.detached { () throws -> ObjectID in
            let context = serverA.newContext()
            let project = try context.insertObject(entityName: "Project")
            try project.setValue("Gemini", forKey: "title")
            try context.save()
            return project.objectID
        }
        let id = try await saved.value
        let change = await first(of: changes, within: 10) { $0.inserted.contains(id) }
        #expect(change != nil, "server B never heard of server A's save")
        for _ in 0..<1_000 where projects.objects.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
        #expect(try projects.objects.map { try $0.value(forKey: "title") as? String } == ["Gemini"])
        #expect(try serverB.history().last?.changes.inserted == [id])
    }

    /// A statement that waits for another connection's row lock fails after the lock timeout with a
    /// clear error; the context keeps its change and saves once the lock is gone.
    @Test func aLockedRowFailsTheSaveAfterTheLockTimeout() throws {
        var configuration = try #require(try testConfiguration())
        configuration.lockTimeout = .milliseconds(200)
        let container = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let context = container.newContext()
        let project = try context.insertObject(entityName: "Project")
        try project.setValue("Mercury", forKey: "title")
        try context.save()

        let other = try lockHolder(configuration, id: 99, locking: "SELECT * FROM \"\(configuration.schema)\".\"Project\" FOR UPDATE")
        defer { try? other.close().wait() }
        let logger = Logger(label: "test")

        try project.setValue("Mercury 2", forKey: "title")
        let started = ContinuousClock.now
        #expect {
            try context.save()
        } throws: { error in
            guard case .lockTimeout? = error as? PostgreSQLStoreError else { return false }
            return "\(error)".contains("lock timeout")
        }
        #expect(ContinuousClock.now - started < .seconds(5))
        #expect(context.hasChanges)
        _ = try other.query("COMMIT", logger: logger).wait()
        try context.save()
        let check = container.newContext()
        #expect(try check.existingObject(with: project.objectID).value(forKey: "title") as? String == "Mercury 2")
    }

    /// A batch delete whose statement cannot be prepared while another connection holds its table
    /// locked fails after the lock timeout with a clear error; once the lock is gone, the same delete
    /// on the same store (and connection) deletes, and so does the next one (the store prepares it
    /// again rather than keep the failure).
    @Test func aBatchDeleteThatMetALockedTableWorksOnceTheLockIsGone() throws {
        var configuration = try #require(try testConfiguration())
        configuration.lockTimeout = .milliseconds(200)
        configuration.maximumConnections = 1
        let container = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let context = container.newContext()
        for index in 0..<6 { _ = try context.make("Task", ["summary": "task \(index)"]) }
        try context.save()
        let request = { (summary: String) in try FetchRequest<ManagedObject>(entityName: "Task", predicate: "summary == $S", variables: ["S": summary]) }

        let other = try lockHolder(configuration, id: 98, locking: "LOCK TABLE \"\(configuration.schema)\".\"Task\" IN ACCESS EXCLUSIVE MODE")
        defer { try? other.close().wait() }
        let logger = Logger(label: "test")
        #expect {
            try container.newContext().batchDelete(try request("task 0"))
        } throws: { error in
            guard case .lockTimeout? = error as? PostgreSQLStoreError else { return false }
            return true
        }
        _ = try other.query("COMMIT", logger: logger).wait()

        for index in 0..<6 {
            #expect(try container.newContext().batchDelete(try request("task \(index)")).deleted.count == 1, "task \(index)")
        }
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Task")) == 0)
    }

    /// A store's history rows are compressed with lz4 (the test server has it): a batch delete of
    /// 1,500 records writes a history row of tens of kilobytes, which another container reads back as
    /// the change set; a store whose column was made with the default compression gets lz4 when opened.
    @Test func historyRowsAreCompressedWithLz4AndReadBack() throws {
        let configuration = try #require(try testConfiguration())
        let model = workshopModel
        let container = try ManagedContainer(model: model, postgres: configuration)
        let logger = Logger(label: "test")
        let admin = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection, id: 21, logger: logger).wait()
        defer { try? admin.close().wait() }
        func compression() throws -> String? {
            let sql = "SELECT attcompression::text FROM pg_attribute WHERE attrelid = '\"\(configuration.schema)\".\"modelgen.history\"'::regclass AND attname = 'changes'"
            return try admin.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows.first?.makeRandomAccess()[0].decode(String?.self)
        }
        #expect(try compression() == "l")
        let context = container.newContext()
        for index in 0..<1_500 { _ = try context.make("Part", ["name": "p\(index)"]) }
        try context.save()
        let changes = try context.batchDelete(FetchRequest<ManagedObject>(entityName: "Part"))
        #expect(changes.deleted.count == 1_500)
        let other = try ManagedContainer(model: model, postgres: configuration)
        #expect(try other.history().last?.changes == changes)

        // A column made before (the default compression) is changed at the next opening.
        _ = try admin.query(PostgresQuery(unsafeSQL: "ALTER TABLE \"\(configuration.schema)\".\"modelgen.history\" ALTER COLUMN \"changes\" SET COMPRESSION DEFAULT"),
                            logger: logger).wait()
        let reset = try compression()
        #expect(reset == "\0" || reset == "" || reset == nil)
        _ = try ManagedContainer(model: model, postgres: configuration)
        #expect(try compression() == "l")
    }

    /// A list sorted by an optional indexed attribute reads the index in order (its NULLs first, as
    /// every store sorts them), and a store whose index kept NULLs last gets it made again when opened.
    @Test func anIndexOnAnOptionalAttributeServesASortWithNilFirst() throws {
        let configuration = try #require(try testConfiguration())
        let model = try ManagedObjectModel(name: "Dues", entities: [
            EntityDescription("Note", class: MigrationNote.self, attributes: [AttributeDescription("title", .string), AttributeDescription("due", .double, optional: true)],
                              indexes: [["due"], ["title"]]),
        ])
        let container = try ManagedContainer(model: model, postgres: configuration)
        let context = container.newContext(observation: .unobserved)
        for index in 0..<3_000 { _ = try context.make("Note", ["title": "n\(index)", "due": index % 100 == 0 ? nil : Double(index)]) }
        try context.save()
        let logger = Logger(label: "test")
        let admin = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection, id: 22, logger: logger).wait()
        defer { try? admin.close().wait() }
        func definition(_ name: String) throws -> String? {
            let sql = "SELECT indexdef FROM pg_indexes WHERE schemaname = '\(configuration.schema)' AND indexname = '\(name)'"
            return try admin.query(PostgresQuery(unsafeSQL: sql), logger: logger).wait().rows.first?.makeRandomAccess()[0].decode(String.self)
        }
        func firstTen(_ ascending: Bool) throws -> (plan: String, due: [Double?]) {
            let request = FetchRequest<ManagedObject>(entityName: "Note", sortDescriptors: [SortDescriptor("due", ascending: ascending)], fetchLimit: 10)
            let reader = container.newContext()
            let plan = try reader.queryPlan(for: request)
            let due = try reader.fetch(request).map { try $0.value(forKey: "due") as? Double }
            return (plan.description, due)
        }
        #expect(try definition("Note.index(due)")?.contains("NULLS FIRST") == true)
        #expect(try definition("Note.index(title)")?.contains("NULLS") == false, "a required attribute's index says nothing of NULLs")
        var (plan, due) = try firstTen(true)
        #expect(plan.contains("Note.index(due)"), "\(plan)")
        #expect(due == Array(repeating: nil, count: 10), "the 30 notes without a due date come first: \(due)")
        (plan, due) = try firstTen(false)
        #expect(plan.contains("Note.index(due)"), "\(plan)")
        #expect(due == [2_999, 2_998, 2_997, 2_996, 2_995, 2_994, 2_993, 2_992, 2_991, 2_990], "\(due)")

        // An index made before (NULLs last) is made again at the next opening.
        _ = try admin.query(PostgresQuery(unsafeSQL: "DROP INDEX \"\(configuration.schema)\".\"Note.index(due)\""), logger: logger).wait()
        _ = try admin.query(PostgresQuery(unsafeSQL: "CREATE INDEX \"Note.index(due)\" ON \"\(configuration.schema)\".\"Note\" (\"due\")"), logger: logger).wait()
        #expect(try definition("Note.index(due)")?.contains("NULLS FIRST") == false)
        _ = try ManagedContainer(model: model, postgres: configuration)
        #expect(try definition("Note.index(due)")?.contains("NULLS FIRST") == true)
    }

    /// Another connection that opened a transaction and took the locks `locking` takes (COMMIT ends it).
    func lockHolder(_ configuration: PostgreSQLConfiguration, id: Int, locking: String) throws -> PostgresConnection {
        let logger = Logger(label: "test")
        let other = try PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                   id: id, logger: logger).wait()
        do {
            _ = try other.query("BEGIN", logger: logger).wait()
            _ = try other.query(PostgresQuery(unsafeSQL: locking), logger: logger).wait()
        } catch {
            try? other.close().wait()
            throw error
        }
        return other
    }

    func notesModel(_ attributes: [AttributeDescription], folders: Bool = false) throws -> ManagedObjectModel {
        var entities = [EntityDescription("Note", class: MigrationNote.self, attributes: attributes)]
        if folders { entities.append(EntityDescription("Folder", class: MigrationFolder.self, attributes: [AttributeDescription("name", .string)])) }
        return try ManagedObjectModel(name: "Notes", entities: entities)
    }

    /// TLS as libpq's `sslmode` says: with `verify-full` and the server's certificate as `sslrootcert`
    /// the store saves and reads over a connection the server reports encrypted; a certificate the
    /// client does not trust (the system's roots do not know the test server's) is refused, and so is
    /// an `sslmode` that could fall back to plain text.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["MODELGEN_POSTGRES_CA"] != nil, "needs MODELGEN_POSTGRES_CA, the test server's certificate (make test-postgres)"))
    func tlsConnectionsAreEncryptedAndVerified() async throws {
        let url = try #require(StoreKind.postgresURL), ca = try #require(ProcessInfo.processInfo.environment["MODELGEN_POSTGRES_CA"])
        func configuration(_ query: String) throws -> PostgreSQLConfiguration {
            var configuration = try PostgreSQLConfiguration(url: url + (url.contains("?") ? "&" : "?") + query)
            configuration.schema = "test_" + UUID().uuidString.prefix(8).lowercased()
            return configuration
        }
        let verified = try configuration("sslmode=verify-full&sslrootcert=\(ca)")
        let model = try notesModel([AttributeDescription("title", .string)])
        let container = ManagedContainer(model: model, store: try PostgreSQLStore(model: model, configuration: verified))
        let context = container.newContext()
        let note = try context.insertObject(entityName: "Note")
        try note.setValue("sealed", forKey: "title")
        try context.save()
        let reader = container.newContext()
        #expect(try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note")).map { try $0.value(forKey: "title") as? String } == ["sealed"])

        let logger = Logger(label: "test")
        let connection = try await PostgresConnection.connect(configuration: verified.connection, id: 2, logger: logger)
        var encrypted = false
        for try await ssl in try await connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: logger).decode(Bool.self) {
            encrypted = ssl
        }
        try await connection.close()
        #expect(encrypted, "the server says the connection is not encrypted")

        do {
            _ = try PostgreSQLStore(model: model, configuration: try configuration("sslmode=verify-full"))
            Issue.record("connected to a server whose certificate the client does not trust")
        } catch {
            #expect("\(error)".lowercased().contains("certificate"), "\(error)")
        }
        #expect(throws: PostgreSQLStoreError.self) { _ = try configuration("sslmode=prefer") }
    }

    /// Added attributes (with defaults), a renamed one and a new entity migrate in place; a removed
    /// attribute is refused with every problem listed, and the database stays as it was.
    /// A store released while watchers wait for other servers' saves ends their streams (each
    /// stream's end unregisters it) and goes without stopping the program.
    @Test func aStoreReleasedWithWatchersEndsTheirStreams() async throws {
        let configuration = try #require(try testConfiguration())
        var store: PostgreSQLStore? = try PostgreSQLStore(model: semanticsModel, configuration: configuration)
        let signals = try #require(store?.externalChangeSignals())
        let more = try #require(store?.externalChangeSignals())
        store = nil
        var heard = 0
        for await _ in signals { heard += 1 }
        for await _ in more { heard += 1 }
        #expect(heard == 0)
    }

    @Test func lightweightMigrationsApplyAndIncompatibleOnesAreRefused() throws {
        let configuration = try #require(try testConfiguration())
        let v1 = try notesModel([AttributeDescription("title", .string)])
        do {
            let container = ManagedContainer(model: v1, store: try PostgreSQLStore(model: v1, configuration: configuration))
            let context = container.newContext()
            let note = try context.insertObject(entityName: "Note")
            try note.setValue("groceries", forKey: "title")
            try context.save()
        }
        let v2 = try notesModel([AttributeDescription("heading", .string, renamingIdentifier: "title"),
                                 AttributeDescription("pinned", .bool, defaultValue: .bool(false)),
                                 AttributeDescription("stars", .int16, optional: true)], folders: true)
        let migrated = ManagedContainer(model: v2, store: try PostgreSQLStore(model: v2, configuration: configuration))
        let reader = migrated.newContext()
        let notes = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Note"))
        #expect(try notes.map { try $0.value(forKey: "heading") as? String } == ["groceries"])
        #expect(try notes.map { try $0.value(forKey: "pinned") as? Bool } == [false])
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Folder")) == 0)

        let v3 = try notesModel([AttributeDescription("heading", .string, renamingIdentifier: "title")], folders: false)
        #expect {
            _ = try PostgreSQLStore(model: v3, configuration: configuration)
        } throws: { error in
            guard case .incompatibleModel(_, let problems)? = error as? PostgreSQLStoreError else { return false }
            return problems.contains { $0.contains("Note.pinned") } && problems.contains { $0.contains("Folder") }
        }
        // Still v2's database: it opens with v2 and keeps its note.
        let again = ManagedContainer(model: v2, store: try PostgreSQLStore(model: v2, configuration: configuration))
        let check = again.newContext()
        #expect(try check.count(for: FetchRequest<ManagedObject>(entityName: "Note")) == 1)
    }
}
#endif

#if PostgreSQL
/// The concurrency stress of the SQLite store, against PostgreSQL: four importer actors in one
/// process and a second OS process save into one schema (conflicting on a shared counter, each
/// retrying what it lost); the child checks that every acknowledged save is there, the counter
/// counts every save, the main context's live results equal a fresh fetch, the observer saw every
/// item, and every importer's merging context converged.
@Suite(.enabled(if: StoreKind.postgresURL != nil, "needs MODELGEN_POSTGRES_URL (make test-postgres)"))
struct PostgreSQLProcessesTests {
    @Test func twoProcessesAndFourActorsConvergeWithNothingLost() async throws {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        let binary = directory.appendingPathComponent("modelgen-store-stress")
        let url = try #require(StoreKind.postgresURL) + "?schema=stress_" + UUID().uuidString.prefix(8).lowercased()
        let output = try await Task.detached { () throws -> String in
            let process = Process()
            process.executableURL = binary
            process.arguments = ["converge", url]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }.value
        #expect(output.hasPrefix("converge: 250 acknowledged saves") && !output.contains("FAIL"), "\(output)")
    }
}
#endif

#if PostgreSQL
@Suite(.enabled(if: StoreKind.postgresURL != nil, "needs MODELGEN_POSTGRES_URL (make test-postgres)"))
struct PostgreSQLReconnectTests {
    /// The server drops the listening connection of one container (as a restart or a network cut
    /// would); saves made meanwhile by another container still reach it, from the history, once it
    /// has listened again.
    @Test func savesMadeWhileTheListenerWasGoneArriveFromHistory() async throws {
        let configuration = try #require(try testConfiguration())
        let writer = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let follower = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        follower.watchOtherProcesses(every: .milliseconds(20))
        let changes = follower.changes

        // Cut the listening connections of this schema (the follower's, and the writer's if it has one);
        // other tests' connections are left alone.
        let logger = Logger(label: "test")
        let admin = try await PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                         id: 98, logger: logger).get()
        let listening = "FROM pg_stat_activity WHERE query = 'LISTEN \"modelgen.\(configuration.schema)\"'"
        for _ in 0..<1_000 {   // until the follower listens, at most ten seconds
            let rows = try await admin.query(PostgresQuery(unsafeSQL: "SELECT pid \(listening)"), logger: logger).get()
            if !rows.rows.isEmpty { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let cut = try await admin.query(PostgresQuery(unsafeSQL: "SELECT pg_terminate_backend(pid) \(listening)"), logger: logger).get()
        try? await admin.close().get()
        #expect(cut.rows.count == 1)

        let id = try await Task.detached { () throws -> ObjectID in
            let context = writer.newContext()
            let project = try context.insertObject(entityName: "Project")
            try project.setValue("Skylab", forKey: "title")
            try context.save()   // the writer's pool drops its dead connection and opens a new one
            return project.objectID
        }.value
        let change = await first(of: changes, within: 10) { $0.inserted.contains(id) }
        #expect(change != nil, "the save made while the follower's listener was cut never arrived")
    }
}
#endif
