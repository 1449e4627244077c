import Foundation
import ModelgenPostgres
import ModelgenRuntime
#if PostgreSQL
import PostgresNIO
#endif
import Testing

// The same cases against every store kind: in memory, SQLite, PostgreSQL. The PostgreSQL runs need
// a server: `make test-postgres` starts a throw-away one and sets MODELGEN_POSTGRES_URL; without it
// they are skipped, saying why. Each PostgreSQL case works in a schema of its own.

final class Person: ManagedObject {}
final class Employee: ManagedObject {}
final class Customer: ManagedObject {}
final class Project: ManagedObject {}
final class TaskItem: ManagedObject {}
final class Sample: ManagedObject {}

/// A model with inheritance (abstract Person: Employee, Customer in one table), a many-to-many
/// relationship (Employee.projects / Project.members), an ordered to-many with cascade
/// (Project.tasks / Task.project), nullify and deny rules, a uniqueness constraint, and one attribute
/// of every type (Sample).
let semanticsModel = try! ManagedObjectModel(name: "Semantics", entities: [
    EntityDescription("Person", class: Person.self, abstract: true,
                      attributes: [AttributeDescription("name", .string), AttributeDescription("email", .string)],
                      unique: [["email"]]),
    EntityDescription("Employee", class: Employee.self, parent: "Person",
                      attributes: [AttributeDescription("level", .int16, defaultValue: .int(1))],
                      relationships: [
                        RelationshipDescription("projects", destination: "Project", inverse: "members", toMany: true),
                        RelationshipDescription("leads", destination: "Project", inverse: "lead", toMany: true, deleteRule: .deny),
                      ]),
    EntityDescription("Customer", class: Customer.self, parent: "Person",
                      attributes: [AttributeDescription("company", .string, optional: true)]),
    EntityDescription("Project", class: Project.self,
                      attributes: [AttributeDescription("title", .string), AttributeDescription("budget", .int64, defaultValue: .int(0))],
                      relationships: [
                        RelationshipDescription("members", destination: "Employee", inverse: "projects", toMany: true, maxCount: 4),
                        RelationshipDescription("lead", destination: "Employee", inverse: "leads"),
                        RelationshipDescription("tasks", destination: "Task", inverse: "project", toMany: true, ordered: true, deleteRule: .cascade),
                      ],
                      indexes: [["title"]]),
    EntityDescription("Task", class: TaskItem.self,
                      attributes: [AttributeDescription("summary", .string)],
                      relationships: [RelationshipDescription("project", destination: "Project", inverse: "tasks")]),
    EntityDescription("Sample", class: Sample.self, attributes: [
        AttributeDescription("flag", .bool, optional: true), AttributeDescription("small", .int16, optional: true),
        AttributeDescription("medium", .int32, optional: true), AttributeDescription("large", .int64, optional: true),
        AttributeDescription("single", .float, optional: true), AttributeDescription("real", .double, optional: true),
        AttributeDescription("amount", .decimal, optional: true), AttributeDescription("text", .string, optional: true),
        AttributeDescription("moment", .date, optional: true), AttributeDescription("bytes", .binary, optional: true),
        AttributeDescription("identifier", .uuid, optional: true), AttributeDescription("link", .uri, optional: true),
        AttributeDescription("palette", .transformable, optional: true, codec: .codable(Palette.self)),
    ]),
])

/// A transformable value (stored as JSON through its codec).
struct Palette: Codable, Hashable, Sendable {
    var name: String
    var colors: [UInt32]
}

/// Where a case's records live.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory, sqlite, postgres

    var testDescription: String { rawValue }

    static let postgresURL = ProcessInfo.processInfo.environment["MODELGEN_POSTGRES_URL"]

    /// A new, empty store of this kind (PostgreSQL: a new schema), and how to open it again.
    func makeStore(model: ManagedObjectModel = semanticsModel) throws -> (store: any PersistentStore, reopen: @Sendable (ManagedObjectModel) throws -> any PersistentStore) {
        switch self {
        case .inMemory:
            let store = InMemoryStore(model: model)
            return (store, { _ in store })
        case .sqlite:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("semantics-\(UUID().uuidString).sqlite")
            return (try SQLiteStore(url: url, model: model), { try SQLiteStore(url: url, model: $0) })
        case .postgres:
            #if PostgreSQL
            guard let url = Self.postgresURL else { throw SkipReason.noServer }
            var configuration = try PostgreSQLConfiguration(url: url)
            configuration.schema = "test_" + UUID().uuidString.prefix(8).lowercased()
            let fixed = configuration
            return (try PostgreSQLStore(model: model, configuration: fixed), { try PostgreSQLStore(model: $0, configuration: fixed) })
            #else
            throw SkipReason.noServer
            #endif
        }
    }

    enum SkipReason: Error { case noServer }
}

extension ManagedObjectContext {
    /// Inserts an object of `entity` with `values` set by key (test data without classes).
    func make(_ entity: String, _ values: [String: Any?]) throws -> ManagedObject {
        let object = try insertObject(entityName: entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }
}

/// The store kinds that can run here (PostgreSQL only when built with the trait and given a server).
#if PostgreSQL
let availableKinds: [StoreKind] = StoreKind.postgresURL == nil ? [.inMemory, .sqlite] : StoreKind.allCases
#else
let availableKinds: [StoreKind] = [.inMemory, .sqlite]
#endif

@Suite struct StoreSemanticsTests {
    #if PostgreSQL
    /// The server the PostgreSQL cases run against answers; without one this test, like every
    /// PostgreSQL case, reports itself skipped with the reason (`make test-postgres` starts a server).
    @Test(.enabled(if: StoreKind.postgresURL != nil, "MODELGEN_POSTGRES_URL is not set: the PostgreSQL cases are skipped (make test-postgres starts a throw-away server)"))
    func postgreSQLServerAnswers() async throws {
        let configuration = try #require(try testConfiguration())
        let connection = try await PostgresConnection.connect(configuration: configuration.connection, id: 1, logger: Logger(label: "test"))
        defer { Task { try? await connection.close() } }
        let rows = try await connection.query("SHOW server_version", logger: Logger(label: "test"))
        var version = ""
        for try await (text) in rows.decode(String.self) { version = text }
        #expect(!version.isEmpty)
    }
    #endif

    @Test(arguments: availableKinds)
    func everyAttributeTypeRoundTripsExactly(_ kind: StoreKind) throws {
        let (store, reopen) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let context = container.newContext()
        let values: [String: Any] = [
            "flag": true, "small": Int16.min, "medium": Int32.max, "large": Int64.min + 1,
            "single": Float(1.5), "real": 0.1 + 0.2, "amount": Decimal(string: "12345678901234567890.123456789")!,
            "text": "Zoë, 東京, 🦄 and 'quotes'", "moment": Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7),
            "bytes": Data((0..<300).map { UInt8($0 % 256) }), "identifier": UUID(), "link": URL(string: "https://example.com/a?b=c#d")!,
            "palette": Palette(name: "dusk", colors: [0xFF8800, 0x112233]),
        ]
        let sample = try context.insertObject(entityName: "Sample")
        for (key, value) in values { try sample.setValue(value, forKey: key) }
        let empty = try context.insertObject(entityName: "Sample")
        try context.save()

        let reopened = ManagedContainer(model: semanticsModel, store: try reopen(semanticsModel))
        let reader = reopened.newContext()
        let read = try reader.existingObject(with: sample.objectID)
        for (key, value) in values {
            let back = try read.value(forKey: key)
            #expect(String(describing: back ?? "nil") == String(describing: value), "\(kind) \(key)")
            #expect((back as? AnyHashable) == (value as? AnyHashable), "\(kind) \(key)")
        }
        let none = try reader.existingObject(with: empty.objectID)
        for key in values.keys { #expect(try none.value(forKey: key) == nil, "\(kind) \(key) stays nil") }
    }

    /// Builds a small company: two employees (one leads), a customer, a project with both as members and three ordered tasks.
    func seed(_ context: ManagedObjectContext) throws -> (ada: ObjectID, bob: ObjectID, project: ObjectID) {
        let ada = try context.insertObject(entityName: "Employee")
        try ada.setValue("Ada", forKey: "name"); try ada.setValue("ada@example.com", forKey: "email"); try ada.setValue(Int16(3), forKey: "level")
        let bob = try context.insertObject(entityName: "Employee")
        try bob.setValue("Bob", forKey: "name"); try bob.setValue("bob@example.com", forKey: "email")
        let customer = try context.insertObject(entityName: "Customer")
        try customer.setValue("Cy", forKey: "name"); try customer.setValue("cy@example.com", forKey: "email"); try customer.setValue("Acme", forKey: "company")
        let project = try context.insertObject(entityName: "Project")
        try project.setValue("Apollo", forKey: "title")
        try project.setValue([ada, bob], forKey: "members")
        try project.setValue(ada, forKey: "lead")
        var tasks: [ManagedObject] = []
        for summary in ["design", "build", "ship"] {
            let task = try context.insertObject(entityName: "Task")
            try task.setValue(summary, forKey: "summary")
            tasks.append(task)
        }
        try project.setValue(tasks, forKey: "tasks")
        try context.save()
        return (ada.objectID, bob.objectID, project.objectID)
    }

    /// A new store of `kind` holding the seeded company, and the IDs of Ada, Bob and the project.
    func seededCompany(_ kind: StoreKind) throws -> (container: ManagedContainer, ada: ObjectID, bob: ObjectID, project: ObjectID) {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let (ada, bob, project) = try seed(container.newContext())   // IDs outlive the seeding context
        return (container, ada, bob, project)
    }

    @Test(arguments: availableKinds)
    func relationshipsInheritanceAndDeleteRules(_ kind: StoreKind) throws {
        let (container, ada, bob, project) = try seededCompany(kind)

        let reader = container.newContext()
        // Inheritance: Person fetches both subentities.
        let people = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [SortDescriptor("name")]))
        #expect(try people.map { try $0.value(forKey: "name") as! String } == ["Ada", "Bob", "Cy"], "\(kind)")
        #expect(people.map(\.entity.name) == ["Employee", "Employee", "Customer"], "\(kind)")
        // Many-to-many from both sides; ordered to-many in order; to-one.
        let readProject = try reader.existingObject(with: project)
        let members = try readProject.value(forKey: "members") as! [ManagedObject]
        #expect(Set(members.map(\.objectID)) == [ada, bob], "\(kind)")
        let readBob = try reader.existingObject(with: bob)
        #expect((try readBob.value(forKey: "projects") as! [ManagedObject]).map(\.objectID) == [project], "\(kind)")
        let tasks = try readProject.value(forKey: "tasks") as! [ManagedObject]
        #expect(try tasks.map { try $0.value(forKey: "summary") as! String } == ["design", "build", "ship"], "\(kind)")
        #expect((try readProject.value(forKey: "lead") as? ManagedObject)?.objectID == ada, "\(kind)")

        // Reordering an ordered to-many is kept.
        try readProject.setValue(Array(tasks.reversed()), forKey: "tasks")
        try reader.save()
        let againContext = container.newContext()
        let again = try againContext.existingObject(with: project)
        #expect(try (again.value(forKey: "tasks") as! [ManagedObject]).map { try $0.value(forKey: "summary") as! String } == ["ship", "build", "design"], "\(kind)")

        // Deny: Ada leads a project and cannot be deleted; nullify: Bob leaves the project's members.
        let editor = container.newContext()
        editor.delete(try editor.existingObject(with: ada))
        #expect(throws: ValidationError.self, "\(kind)") { try editor.save() }
        editor.rollback()
        editor.delete(try editor.existingObject(with: bob))
        try editor.save()
        let afterContext = container.newContext()
        let afterBob = try afterContext.existingObject(with: project)
        #expect((try afterBob.value(forKey: "members") as! [ManagedObject]).map(\.objectID) == [ada], "\(kind)")
        // Cascade: deleting the project deletes its tasks.
        let deleter = container.newContext()
        deleter.delete(try deleter.existingObject(with: project))
        try deleter.save()
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Task")) == 0, "\(kind)")
    }

    /// Prefetching to-many relationships (a many-to-many pair's join table, inheritance among the
    /// members, an ordered to-many kept by its inverse) gives the same objects on every store; the SQL
    /// stores read an inverse-kept step's members with their owners' keys in one statement.
    @Test(arguments: availableKinds)
    func prefetchingToManyGivesTheSameObjects(_ kind: StoreKind) throws {
        let (container, ada, bob, project) = try seededCompany(kind)
        let context = container.newContext()
        var request = FetchRequest<ManagedObject>(entityName: "Project")
        request.relationshipKeyPathsForPrefetching = ["members.projects", "tasks"]
        let projects = try context.fetch(request)
        #expect(projects.map(\.objectID) == [project], "\(kind)")
        let members = try projects[0].value(forKey: "members") as! [ManagedObject]
        #expect(Set(members.map(\.objectID)) == [ada, bob] && members.allSatisfy { !$0.isFault }, "\(kind)")
        #expect(Set(try members.map { try $0.value(forKey: "name") as! String }) == ["Ada", "Bob"], "\(kind)")
        #expect(try members.allSatisfy { (try $0.value(forKey: "projects") as! [ManagedObject]).map(\.objectID) == [project] }, "\(kind)")
        let tasks = try projects[0].value(forKey: "tasks") as! [ManagedObject]
        #expect(tasks.allSatisfy { !$0.isFault }, "\(kind)")
        #expect(try tasks.map { try $0.value(forKey: "summary") as! String } == ["design", "build", "ship"], "\(kind)")
        // The store's answer: the SQL stores read the members' rows with the lists, for a relationship
        // kept by its inverse (tasks) and through a join table (members: the links joined to the rows).
        let projectEntity = try #require(semanticsModel.entity(named: "Project"))
        for name in ["members", "tasks"] {
            let slot = try #require(projectEntity.slotsByName[name])
            let answer = try (container.store as? any QueryingStore)?.toManyMembersWithRows(of: [project], relationship: slot) ?? (lists: container.store.toManyIDs(of: [project], relationship: slot), rows: nil)
            #expect(answer.lists[project]?.count == (name == "members" ? 2 : 3), "\(kind) \(name)")
            if kind != .inMemory {
                #expect(answer.rows?.map(\.id) == answer.lists[project], "\(kind) \(name): the members' rows, in order")
            } else {
                #expect(answer.rows == nil, "\(kind) \(name)")
            }
        }
    }

    /// A context that changed to-many relationships (a many-to-many and an ordered one) merges batches
    /// that deleted members of them: the deleted members leave its lists, its own additions stay where
    /// it put them, and its save adds none of the deleted members back to the store.
    @Test(arguments: availableKinds)
    func aMergedDeletionLeavesToManyRelationshipsThisContextChangedAndItsSaveAddsNoneBack(_ kind: StoreKind) throws {
        let (container, _, _, project) = try seededCompany(kind)
        let editor = container.newContext()
        let edited = try editor.existingObject(with: project)
        let dee = try editor.make("Employee", ["name": "Dee", "email": "dee@example.com"])
        try edited.setValue(try (edited.value(forKey: "members") as! [ManagedObject]) + [dee], forKey: "members")
        let polish = try editor.make("Task", ["summary": "polish"])
        var tasks = try edited.value(forKey: "tasks") as! [ManagedObject]
        tasks.insert(polish, at: 1)
        try edited.setValue(tasks, forKey: "tasks")
        let other = container.newContext()
        editor.mergeChanges(try other.batchDelete(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'Bob'")))
        editor.mergeChanges(try other.batchDelete(try FetchRequest<ManagedObject>(entityName: "Task", predicate: "summary == 'build'")))
        func names(_ object: ManagedObject) throws -> (members: Set<String>, tasks: [String]) {
            (Set(try (object.value(forKey: "members") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String }),
             try (object.value(forKey: "tasks") as! [ManagedObject]).map { try $0.value(forKey: "summary") as! String })
        }
        let merged = try names(edited)
        #expect(merged.members == ["Ada", "Dee"] && merged.tasks == ["design", "polish", "ship"], "\(kind): \(merged)")
        try editor.save()
        let reader = container.newContext()
        let stored = try names(try reader.existingObject(with: project))
        #expect(stored.members == ["Ada", "Dee"] && stored.tasks == ["design", "polish", "ship"], "\(kind): \(stored)")
        #expect(try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Task")) == 3, "\(kind)")
    }

    @Test(arguments: availableKinds)
    func uniquenessAndOptimisticLocking(_ kind: StoreKind) throws {
        let (container, ada, _, _) = try seededCompany(kind)

        // A second Ada with the same email is refused by the uniqueness constraint.
        let context = container.newContext()
        let twin = try context.insertObject(entityName: "Customer")
        try twin.setValue("Ada Two", forKey: "name"); try twin.setValue("ada@example.com", forKey: "email")
        #expect(throws: ValidationError.self, "\(kind)") { try context.save() }
        context.rollback()

        // Two contexts edit Ada; the later save lost the race and names her.
        let first = container.newContext(), second = container.newContext()
        try first.existingObject(with: ada).setValue("Ada L.", forKey: "name")
        try second.existingObject(with: ada).setValue("Ada K.", forKey: "name")
        try first.save()
        #expect(throws: MergeConflictError.self, "\(kind)") { try second.save() }
        do {
            try second.save()
        } catch let error as MergeConflictError {
            #expect(error.conflicts.map(\.id) == [ada], "\(kind)")
        }
        second.mergePolicy = .overwrite
        try second.save()
        let check = container.newContext()
        #expect(try check.existingObject(with: ada).value(forKey: "name") as? String == "Ada K.", "\(kind)")
    }

    /// The model's indexes and uniqueness constraints are indexes the database uses: an equality and a
    /// range on indexed attributes search an index, a non-indexed condition scans.
    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func modelIndexesAreUsedByFetches(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let context = container.newContext(observation: .unobserved)
        for index in 0..<3_000 {
            let project = try context.insertObject(entityName: "Project")
            try project.setValue(String(format: "P%04d", index), forKey: "title")
            let customer = try context.insertObject(entityName: "Customer")
            try customer.setValue("C\(index)", forKey: "name"); try customer.setValue("c\(index)@example.com", forKey: "email")
        }
        try context.save()
        func plan(_ entity: String, _ predicate: String) throws -> String {
            let plan = try context.queryPlan(for: try FetchRequest<ManagedObject>(entityName: entity, predicate: predicate))
            return try #require(plan.sqlPlan, "\(kind) ran \(predicate) in memory: \(plan)")
        }
        let byEmail = try plan("Person", "email == 'c42@example.com'")
        let byTitle = try plan("Project", "title BETWEEN {'P0100', 'P0129'}")
        let scan = try plan("Project", "title ENDSWITH '7'")
        #expect(byEmail.contains("Person.unique(email)"), "\(kind): \(byEmail)")
        #expect(byTitle.contains("Project.index(title)"), "\(kind): \(byTitle)")
        #expect(!scan.contains("Project.index(title)"), "\(kind): \(scan)")
        if kind == .sqlite {
            #expect(byEmail.contains("SEARCH") && byTitle.contains("SEARCH") && scan.contains("SCAN"), "\(byEmail) / \(byTitle) / \(scan)")
        }
        #expect(try context.fetch(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "title BETWEEN {'P0100', 'P0129'}")).count == 30, "\(kind)")
        #expect(!(InMemoryStore(model: semanticsModel) as any PersistentStore is any QueryingStore), "the in-memory store runs no queries")
        let inMemory = ManagedContainer(model: semanticsModel, store: InMemoryStore(model: semanticsModel)).newContext()
        #expect(try inMemory.queryPlan(for: FetchRequest<ManagedObject>(entityName: "Project")).sqlPlan == nil)
    }

    /// The predicate shapes docs/predicates.md lists run where its table says: in SQL, or in memory
    /// with the reason in the query plan (only what the translator cannot express falls back).
    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func theDocumentedPredicateShapesRunWhereTheGuideSays(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        let context = ManagedContainer(model: semanticsModel, store: store).newContext(observation: .unobserved)
        let inSQL = [
            "budget >= 100", "title ==[cd] 'plan'", "budget BETWEEN {1, 5}", "budget IN {0, 1}",
            "ANY members.name IN {'Ada', 'Bo'}", "ALL members.level > 0", "NONE members.level > 3",
            "members.@count > 2", "tasks.@count > 0", "members.@sum.level > 3", "members.@max.level == 2",
            "title BEGINSWITH[c] 'p'", "title CONTAINS 'la'", "title ENDSWITH 'n'", "title LIKE 'P*'", "title MATCHES 'P.*'",
            "budget > 1 AND (title == 'x' OR NOT budget == 3)", "TRUEPREDICATE", "FALSEPREDICATE",
            "lead == nil", "lead.name == 'Ada'", "lead.email BEGINSWITH 'a'",
            "SUBQUERY(members, $m, $m.level > 1).@count >= 1", "ANY members.projects.title == 'x'",
        ]
        let inMemory = ["members.projects.@count > 2", "tasks[SIZE] > 2", "tasks[FIRST].summary == 'x'"]
        for predicate in inSQL {
            let plan = try context.queryPlan(for: FetchRequest<ManagedObject>(entityName: "Project", predicate: try FetchPredicate(predicate)))
            #expect(plan.sqlPlan != nil, "\(kind): \(predicate) ran \(plan)")
        }
        for predicate in inMemory {
            let plan = try context.queryPlan(for: FetchRequest<ManagedObject>(entityName: "Project", predicate: try FetchPredicate(predicate)))
            guard case .inMemory(let reason) = plan else {
                Issue.record("\(kind): \(predicate) ran in SQL; docs/predicates.md says it runs in memory")
                continue
            }
            #expect(!reason.isEmpty, "\(kind): \(predicate)")
        }
    }

    /// Batched fetching: the objects come back as faults and load a batch of rows at a time, with the
    /// same values as an unbatched fetch.
    @Test(arguments: availableKinds)
    func batchedFetchesLoadTheSameObjects(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let writer = container.newContext()
        for index in 0..<250 {
            let sample = try writer.insertObject(entityName: "Sample")
            try sample.setValue(String(format: "s%03d", index), forKey: "text")
            try sample.setValue(Int64(index * 3), forKey: "large")
        }
        try writer.save()
        var request = try FetchRequest<ManagedObject>(entityName: "Sample", predicate: "large >= 30", sortDescriptors: [SortDescriptor("text", ascending: false)])
        let whole = container.newContext()
        let expected = try whole.fetch(request).map { "\(try $0.value(forKey: "text") as! String)=\(try $0.value(forKey: "large") as! Int64)" }
        request.fetchBatchSize = 40
        let batched = container.newContext()
        let objects = try batched.fetch(request)
        #expect(objects.count == 240, "\(kind)")
        if kind != .inMemory {
            let faults = objects.allSatisfy { $0.isFault }
            #expect(faults, "\(kind): faults until read, then a batch of rows at a time")
        }
        #expect(try objects.map { "\(try $0.value(forKey: "text") as! String)=\(try $0.value(forKey: "large") as! Int64)" } == expected, "\(kind)")
    }

    @Test(arguments: availableKinds)
    func predicatesAndSortsGiveTheSameResults(_ kind: StoreKind) throws {
        let container = try seededCompany(kind).container
        let reader = container.newContext()
        func names(_ entity: String, _ predicate: String, sort: String = "name") throws -> [String] {
            try reader.fetch(try FetchRequest<ManagedObject>(entityName: entity, predicate: predicate, sortDescriptors: [SortDescriptor(sort)]))
                .map { try $0.value(forKey: sort) as! String }
        }
        #expect(try names("Person", "name BEGINSWITH[c] 'a' OR email ENDSWITH 'example.com'") == ["Ada", "Bob", "Cy"], "\(kind)")
        #expect(try names("Employee", "level >= 2") == ["Ada"], "\(kind)")
        #expect(try names("Employee", "ANY projects.title == 'Apollo'") == ["Ada", "Bob"], "\(kind)")
        #expect(try names("Project", "tasks.@count == 3", sort: "title") == ["Apollo"], "\(kind)")
        #expect(try names("Task", "project.lead.name ==[cd] 'ADA'", sort: "summary") == ["build", "design", "ship"], "\(kind)")
        #expect(try reader.count(for: FetchRequest<ManagedObject>(entityName: "Person", predicate: "name != 'Bob'")) == 2, "\(kind)")
    }
}

/// Predicates run by each store (pushed down to SQL by SQLite and PostgreSQL) give the in-memory
/// evaluator's answer, in the same order.
@Suite struct PredicateParityTests {
    static let predicates: [(entity: String, predicate: String, sort: String)] = [
        ("Person", "name BEGINSWITH[c] 'a' OR email ENDSWITH 'example.com'", "name"),
        ("Person", "name ==[cd] 'ADÂ'", "name"),
        ("Person", "name CONTAINS[cd] 'É'", "name"),
        ("Person", "name LIKE 'B?b' OR name LIKE[c] 'c*'", "name"),
        ("Person", "email MATCHES '[a-c]+@example\\\\.com'", "name"),
        ("Person", "name MATCHES[c] 'ada|CY'", "name"),
        ("Person", "NOT (name IN {'Ada', 'Zed'})", "name"),
        ("Customer", "company == nil", "name"),
        ("Customer", "company != nil AND company CONTAINS[c] 'ACME'", "name"),
        ("Employee", "level BETWEEN {2, 3}", "name"),
        ("Employee", "level >= 2 AND name != 'Bob'", "name"),
        ("Employee", "ANY projects.title == 'Apollo'", "name"),
        ("Employee", "NONE projects.title BEGINSWITH 'Z'", "name"),
        ("Employee", "leads.@count > 0", "name"),
        ("Project", "tasks.@count == 3", "title"),
        ("Project", "ALL tasks.summary LIKE '*i*'", "title"),
        ("Project", "lead.name == 'Ada' AND members.@count >= 2", "title"),
        ("Project", "ANY members.projects.title == 'Apollo' AND NONE members.leads.title BEGINSWITH 'Z'", "title"),
        ("Employee", "SUBQUERY(projects, $p, $p.tasks.@count >= 1 AND SUBQUERY($p.members, $m, $m.level >= 2).@count > 0).@count >= 1", "name"),
        ("Task", "project.lead.name ==[cd] 'ADA'", "summary"),
        ("Task", "summary IN {'ship', 'build'} AND project != nil", "summary"),
        ("Sample", "real > 0.25 AND amount >= 10.5", "text"),
        ("Sample", "moment < now() AND flag == YES", "text"),
        ("Sample", "moment >= CAST(400000000, \"NSDate\") AND large >= CAST(\"21\", \"NSNumber\")", "text"),
        ("Sample", "small < 0 OR large == 42", "text"),
        ("Sample", "bytes != nil AND link CONTAINS 'example'", "text"),
        ("Sample", "TRUEPREDICATE", "text"),
        ("Sample", "FALSEPREDICATE", "text"),
    ]

    /// Seeds the company of StoreSemanticsTests plus three samples.
    static func fill(_ context: ManagedObjectContext) throws {
        _ = try StoreSemanticsTests().seed(context)
        let names = try context.fetch(FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [SortDescriptor("name")]))
        try names[0].setValue("Adâ", forKey: "name")     // Ada with a circumflex: [d] finds her
        try names[2].setValue("Cé", forKey: "name")
        for (index, text) in ["one", "two", "three"].enumerated() {
            let sample = try context.insertObject(entityName: "Sample")
            try sample.setValue(text, forKey: "text")
            try sample.setValue(Double(index) * 0.5, forKey: "real")
            try sample.setValue(Decimal(string: ["1.25", "10.5", "99.99"][index])!, forKey: "amount")
            try sample.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 400_000_000), forKey: "moment")
            try sample.setValue(index != 1, forKey: "flag")
            try sample.setValue(Int16(index - 1), forKey: "small")
            try sample.setValue(Int64(index * 21), forKey: "large")
            if index == 2 { try sample.setValue(Data([1, 2]), forKey: "bytes"); try sample.setValue(URL(string: "https://example.com")!, forKey: "link") }
        }
        // One without text: sorted by it, nil comes first, as in memory.
        try context.insertObject(entityName: "Sample").setValue(Int16(5), forKey: "small")
        try context.save()
    }

    func answers(_ store: any PersistentStore) throws -> [[String]] {
        let container = ManagedContainer(model: semanticsModel, store: store)
        let filler = container.newContext()
        try Self.fill(filler)
        let reader = container.newContext()
        return try Self.predicates.map { entity, predicate, sort in
            try reader.fetch(try FetchRequest<ManagedObject>(entityName: entity, predicate: predicate, sortDescriptors: [SortDescriptor(sort)]))
                .map { try $0.value(forKey: sort) as? String ?? "nil" }
        }
    }

    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func storesAnswerAsTheInMemoryEvaluatorDoes(_ kind: StoreKind) throws {
        let expected = try answers(InMemoryStore(model: semanticsModel))
        let (store, _) = try kind.makeStore()
        let actual = try answers(store)
        for (index, entry) in Self.predicates.enumerated() {
            #expect(actual[index] == expected[index], "\(kind): \(entry.entity) \(entry.predicate)")
        }
        // Each predicate ran in the store (SQL), not in memory.
        for entry in Self.predicates {
            let predicate = try FetchPredicate(entry.predicate).predicate
            let entities = semanticsModel.entity(named: entry.entity)!.selfAndDescendants.map(\.name)
            let query = StoreQuery(entityNames: entities, entityName: entry.entity, predicate: predicate)
            #expect(try (store as? any QueryingStore)?.fetch(query) != nil, "\(kind) did not run \(entry.predicate)")
        }
        #expect(expected.contains { !$0.isEmpty })
    }
}
