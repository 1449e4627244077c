#if PostgreSQL
import Foundation
import ModelgenPostgres
import ModelgenRuntime
import PostgresNIO
import Testing

/// What the random histories found under server faults (`make history`, `--terminate`), each kept
/// here as a case: a connection whose server process was ended fails the call at once (it waited
/// forever), the untyped API throws where a to-many fault cannot load (it stopped the program), the
/// store reconnects, and history rows are written in commit order.
/// Runs `body`, which blocks (a save waiting for a lock), on a thread of its own: on the concurrency
/// pool it would hold one of its few threads, which the test's own awaits need.
func onThread(_ body: @escaping @Sendable () throws -> Void) -> Task<Void, any Error> {
    Task {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}

@Suite(.enabled(if: StoreKind.postgresURL != nil, "needs MODELGEN_POSTGRES_URL (make test-postgres)"), .timeLimit(.minutes(1)))
struct ServerFaultTests {
    /// A configuration whose connections name themselves `application` (so that a test ends only its own).
    func configuration(application: String) throws -> PostgreSQLConfiguration? {
        var configuration = try testConfiguration()
        configuration?.connection.options.additionalStartupParameters = [("application_name", application)]
        return configuration
    }

    /// Ends the server processes of the connections named `application`.
    func terminateBackends(_ configuration: PostgreSQLConfiguration, application: String) async throws -> Int {
        var own = configuration.connection
        own.options.additionalStartupParameters = []
        let connection = try await PostgresConnection.connect(configuration: own, id: 99, logger: Logger(label: "test"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE application_name = \(application)", logger: Logger(label: "test"))
        for try await count in rows.decode(Int64.self) { return Int(count) }
        return 0
    }

    func project(_ context: ManagedObjectContext) throws -> ManagedObject {
        try #require(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title == 'Plan'")).first)
    }

    @Test func aCallOnAConnectionWhoseServerProcessEndedFailsAndTheNextReconnects() async throws {
        let application = "fault-" + UUID().uuidString.prefix(8)
        var configuration = try #require(try configuration(application: application))
        configuration.maximumConnections = 1   // the one idle connection is the one ended
        let container = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let context = container.newContext()
        let plan = try context.make("Project", ["title": "Plan"])
        try context.make("Task", ["summary": "first"]).setValue(plan, forKey: "project")
        try context.save()

        let reader = container.newContext()
        let loaded = try project(reader)                  // its tasks: a to-many fault, not loaded
        #expect(try await terminateBackends(configuration, application: application) >= 1)
        try await Task.sleep(for: .milliseconds(200))     // the connection hears that it was closed
        let error = try #require(throws: (any Error).self) { try loaded.value(forKey: "tasks") }
        #expect(error is PostgreSQLStoreError, "\(error)")
        // The pool dropped the closed connection: the same read now opens a new one.
        let tasks = try #require(try loaded.value(forKey: "tasks") as? [ManagedObject])
        #expect(try tasks.map { try $0.value(forKey: "summary") as? String } == ["first"])

        // A save on an ended connection fails, changes nothing, and the next save goes through.
        try loaded.setValue(Int64(7), forKey: "budget")
        #expect(try await terminateBackends(configuration, application: application) >= 1)
        try await Task.sleep(for: .milliseconds(200))
        #expect(throws: PostgreSQLStoreError.self) { try reader.save() }
        try reader.save()
        let check = container.newContext()
        #expect(try project(check).value(forKey: "budget") as? Int64 == 7)
    }

    /// A save that PostgreSQL rolls back to break a deadlock is run again (found by serializable
    /// random histories, whose saves lock what they read): here another transaction holds one of the
    /// save's two rows and then asks for the other, which the save holds.
    @Test func aSaveRolledBackToBreakADeadlockIsRunAgain() async throws {
        let configuration = try #require(try testConfiguration())
        let container = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let setup = container.newContext()
        let first = try setup.make("Project", ["title": "One"]), second = try setup.make("Project", ["title": "Two"])
        try setup.save()
        let keys = [first.objectID.key, second.objectID.key].sorted()

        let other = try await PostgresConnection.connect(configuration: configuration.connection, id: 97, logger: Logger(label: "test"))
        defer { Task { try? await other.close() } }
        let logger = Logger(label: "test")
        _ = try await other.query("SET search_path TO \(unescaped: "\"" + configuration.schema + "\"")", logger: logger)
        _ = try await other.query("BEGIN", logger: logger)
        _ = try await other.query("SELECT 1 FROM \"Project\" WHERE \"Z_PK\" = \(keys[1]) FOR UPDATE", logger: logger)

        let saved = onThread {
            let context = container.newContext()
            for project in try context.fetch(FetchRequest<ManagedObject>(entityName: "Project")) {
                try project.setValue(Int64(9), forKey: "budget")
            }
            try context.save()   // locks the first row, then waits for the second
        }
        try await Task.sleep(for: .milliseconds(300))
        // Waits for the first row: a cycle. The save, waiting longer, is rolled back after the deadlock
        // timeout (1 s), and this transaction gets the row.
        _ = try await other.query("SELECT 1 FROM \"Project\" WHERE \"Z_PK\" = \(keys[0]) FOR UPDATE", logger: logger)
        _ = try await other.query("COMMIT", logger: logger)
        try await saved.value
        let check = container.newContext()
        #expect(try check.fetch(FetchRequest<ManagedObject>(entityName: "Project")).map { try $0.value(forKey: "budget") as? Int64 } == [9, 9])
    }

    /// History rows are written under a lock taken just before COMMIT, so their tokens follow commit
    /// order: a save waits while another transaction holds it.
    @Test func aSaveWritesItsHistoryRowUnderTheHistoryLock() async throws {
        let configuration = try #require(try testConfiguration())
        let container = ManagedContainer(model: semanticsModel, store: try PostgreSQLStore(model: semanticsModel, configuration: configuration))
        let holder = try await PostgresConnection.connect(configuration: configuration.connection, id: 98, logger: Logger(label: "test"))
        defer { Task { try? await holder.close() } }
        _ = try await holder.query("BEGIN", logger: Logger(label: "test"))
        let name = "modelgen.history:" + configuration.schema
        _ = try await holder.query("SELECT pg_advisory_xact_lock(hashtext(\(name)))", logger: Logger(label: "test"))

        let saved = onThread {
            let context = container.newContext()
            _ = try context.make("Project", ["title": "Waiting"])
            try context.save()
        }
        try await Task.sleep(for: .milliseconds(500))
        #expect(try container.history().isEmpty, "the save committed while another transaction held the history lock")
        _ = try await holder.query("COMMIT", logger: Logger(label: "test"))
        try await saved.value
        #expect(try container.history().count == 1)
    }
}
#endif
