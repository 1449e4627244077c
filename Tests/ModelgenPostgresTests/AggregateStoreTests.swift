import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Aggregates give the same rows on every store kind, PostgreSQL included (one query on the SQL
/// stores; ModelgenRuntimeTests.AggregateTests covers them on in-memory and SQLite).
@Suite struct AggregateStoreTests {
    @Test(arguments: availableKinds)
    func aGroupedReportAgreesOnEveryStore(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let context = container.newContext()
        for (title, budget, tasks) in [("Engine", Int64(100), 3), ("Loom", Int64(40), 1), ("Idle", Int64(7), 0)] {
            let project = try context.insertObject(entityName: "Project")
            try project.setValue(title, forKey: "title")
            try project.setValue(budget, forKey: "budget")
            for index in 0..<tasks {
                let task = try context.insertObject(entityName: "Task")
                try task.setValue("\(title) \(index)", forKey: "summary")
                try task.setValue(project, forKey: "project")
            }
        }
        try context.save()
        let tasks = try context.aggregate(AggregateRequest(FetchRequest<ManagedObject>(entityName: "Task"), groupBy: ["project.title"],
                                                           columns: [.count(as: "tasks"), .sum("project.budget", as: "budget")],
                                                           sortBy: [(key: "project.title", ascending: true)]))
        #expect(tasks.map { "\($0.string("project.title") ?? "?") \($0.int("tasks") ?? -1) \($0.int("budget") ?? -1)" } == ["Engine 3 300", "Loom 1 40"], "\(kind)")
        let byProject = try context.aggregate(AggregateRequest(FetchRequest<ManagedObject>(entityName: "Task"), groupBy: ["project"], columns: [.count()]))
        #expect(Set(byProject.compactMap { $0.objectID("project")?.entityName }) == ["Project"] && byProject.count == 2, "\(kind)")
        let budgets = try context.aggregate(AggregateRequest(try FetchRequest<ManagedObject>(entityName: "Project", predicate: "budget > 10"),
                                                             columns: [.sum("budget", as: "total"), .average("budget", as: "mean")]))
        #expect(budgets.first?.int("total") == 140 && budgets.first?.double("mean") == 70, "\(kind)")
    }

    /// Grouped through a many-to-many relationship whose members live in a shared inheritance table
    /// (employees among customers), from either side: each link counts once, records without members
    /// fall in the nil group, and the rows equal what the whole objects say on every store.
    @Test(arguments: availableKinds)
    func groupsThroughAManyToManyAgreeWithTheObjects(_ kind: StoreKind) throws {
        let container = ManagedContainer(model: semanticsModel, store: try kind.makeStore().store)
        let context = container.newContext()
        let people = try ["Ada", "Bea", "Cy"].map { (name: String) in try context.make("Employee", ["name": name, "email": "\(name)@example.com"]) }
        _ = try context.make("Customer", ["name": "Dee", "email": "dee@example.com"])
        let members = [[0, 1], [0], [], [1, 2]]
        for (index, (title, budget)) in [("Engine", Int64(100)), ("Loom", Int64(40)), ("Idle", Int64(7)), ("Mill", Int64(12))].enumerated() {
            _ = try context.make("Project", ["title": title, "budget": budget, "members": members[index].map { people[$0] }])
        }
        try context.save()
        let reader = container.newContext()
        let byMember = try reader.aggregate(AggregateRequest(FetchRequest<ManagedObject>(entityName: "Project"), groupBy: ["members.name"],
                                                             columns: [.count(as: "projects"), .sum("budget", as: "budget")],
                                                             sortBy: [(key: "members.name", ascending: true)]))
        var expected: [String: (Int64, Int64)] = [:]
        for project in try reader.fetch(FetchRequest<ManagedObject>(entityName: "Project")) {
            let names = try #require(try project.value(forKey: "members") as? [ManagedObject]).map { try $0.value(forKey: "name") as! String }
            let budget = try project.value(forKey: "budget") as! Int64
            for name in names.isEmpty ? ["nil"] : names { expected[name, default: (0, 0)].0 += 1; expected[name, default: (0, 0)].1 += budget }
        }
        #expect(byMember.map { "\($0.string("members.name") ?? "nil") \($0.int("projects") ?? -1) \($0.int("budget") ?? -1)" }
                    == ["nil", "Ada", "Bea", "Cy"].map { "\($0) \(expected[$0]!.0) \(expected[$0]!.1)" }, "\(kind)")
        #expect(expected["Ada"]! == (2, 140) && expected["nil"]! == (1, 7), "\(kind)")
        // From the employees' side, by the project itself: Cy's one project, and a row per link.
        let byProject = try reader.aggregate(AggregateRequest(FetchRequest<ManagedObject>(entityName: "Employee"), groupBy: ["projects"],
                                                              columns: [.count(as: "members")]))
        #expect(byProject.count == 3 && byProject.compactMap { $0.int("members") }.sorted() == [1, 2, 2], "\(kind): \(byProject)")
    }

    /// An aggregate template (what a model file's `groupBy`/`columns`/`having` generate) answers alike on
    /// every store, and every groupable attribute type comes back typed (`AggregateRow.value(_:as:)`,
    /// which the generated row types use): the SQL stores return booleans, small integers, decimals,
    /// dates, UUIDs and URLs in their own column types.
    @Test(arguments: availableKinds)
    func aTemplatesTypedRowsAgreeOnEveryStore(_ kind: StoreKind) throws {
        let sample = semanticsModel.entity(named: "Sample")!
        let model = try ManagedObjectModel(name: "SampleReport", entities: [EntityDescription(
            "Sample", class: Sample.self, attributes: sample.ownAttributes)],
            fetchRequestTemplates: [FetchRequestTemplate(
                "byFlag", entity: "Sample", predicate: "large >= $MIN", sort: ["flag"],
                groupBy: ["flag", "small", "medium", "amount", "text", "moment", "identifier", "link"],
                columns: [AggregateColumn("count", .count), AggregateColumn("total", .sum, of: "large"), AggregateColumn("mean", .average, of: "real"),
                          AggregateColumn("least", .minimum, of: "single"), AggregateColumn("latest", .maximum, of: "moment")],
                having: "total > $MIN")])
        let container = ManagedContainer(model: model, store: try kind.makeStore(model: model).store)
        let context = container.newContext()
        let moment = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        let identifier = UUID()
        for (flag, large) in [(true, Int64(10)), (false, Int64(3)), (false, Int64(4))] {
            _ = try context.make("Sample", ["flag": flag, "small": Int16(-7), "medium": Int32(70_000), "large": large, "real": 0.5, "single": Float(1.25),
                                            "amount": Decimal(string: "12.75")!, "text": "Zoë", "moment": moment, "identifier": identifier,
                                            "link": URL(string: "https://example.com/x")!])
        }
        try context.save()
        let typed = TypedAggregateRequest(try model.aggregateRequest(fromTemplate: "byFlag", variables: ["MIN": 1], as: ManagedObject.self)) { row in
            "\(row.value("flag", as: Bool.self).map(String.init) ?? "nil") \(row.value("small", as: Int16.self) ?? 0) \(row.value("medium", as: Int32.self) ?? 0) "
                + "\(row.value("amount", as: Decimal.self) ?? 0) \(row.value("text", as: String.self) ?? "") \(row.value("moment", as: Date.self) == moment) "
                + "\(row.value("identifier", as: UUID.self) == identifier) \(row.value("link", as: URL.self)?.host ?? "") "
                + "\(row.value("count", as: Int.self) ?? -1) \(row.value("total", as: Int64.self) ?? -1) \(row.value("mean", as: Double.self) ?? -1) "
                + "\(row.value("least", as: Float.self) ?? -1) \(row.value("latest", as: Date.self) == moment)"
        }
        #expect(try context.aggregate(typed) == ["false -7 70000 12.75 Zoë true true example.com 2 7 0.5 1.25 true",
                                                 "true -7 70000 12.75 Zoë true true example.com 1 10 0.5 1.25 true"], "\(kind)")
        var stricter = typed
        stricter.request.fetch.variables = ["MIN": 8]
        #expect(try context.aggregate(stricter).count == 1, "\(kind)")
    }
}
