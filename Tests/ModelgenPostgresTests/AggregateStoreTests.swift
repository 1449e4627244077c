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
