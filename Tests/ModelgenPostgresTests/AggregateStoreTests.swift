#if PostgreSQL
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
}
#endif
