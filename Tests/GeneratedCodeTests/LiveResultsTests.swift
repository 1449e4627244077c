import Foundation
import ModelgenRuntime
import Observation
import Testing

/// Live results over Examples/Staff's generated classes: updated from change sets, equal to a fresh
/// fetch after every change, with the difference each update made.
@Suite struct LiveResultsTests {
    func salesRequest(_ salesID: ObjectID) -> FetchRequest<Employee> {
        var request = Employee.fetchRequest()
        request.predicate = try! FetchPredicate("department == $DEPARTMENT AND level >= 2")
        request.variables = ["DEPARTMENT": salesID]
        request.sortDescriptors = [SortDescriptor("lastName"), SortDescriptor("firstName")]
        return request
    }

    @MainActor @Test func mainContextResultsFollowBackgroundSaves() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        let main = container.mainContext
        let sales = Department(context: main, name: "Sales")
        for (first, last) in [("Ann", "Baker"), ("Dan", "Fox")] {
            let employee = Employee(context: main, firstName: first, lastName: last)
            employee.level = .senior
            employee.department = sales
        }
        try main.save()
        let salesID = sales.objectID
        let results = try LiveResults(salesRequest(salesID), in: main)
        #expect(results.objects.map(\.lastName) == ["Baker", "Fox"])
        func matchesAFreshFetch() throws -> Bool {
            try results.objects.map(\.objectID) == main.fetch(salesRequest(salesID)).map(\.objectID)
        }

        // Inserts elsewhere: two match, one does not (junior).
        let fired = Fired()
        withObservationTracking { _ = results.objects } onChange: { fired.hit() }
        let cy = try await container.performBackgroundTask { context in
            let sales = try context.existingObject(with: salesID) as! Department
            var ids: [ObjectID] = []
            for (first, last, level) in [("Cy", "Cole", Level.lead), ("Eve", "Adams", .senior), ("Gus", "Hill", .junior)] {
                let employee = Employee(context: context, firstName: first, lastName: last)
                employee.level = level
                employee.department = sales
                ids.append(employee.objectID)
            }
            try context.save()
            return try context.fetch(Employee.fetchRequest()).first { $0.firstName == "Cy" }!.objectID
        }
        #expect(try await eventually { results.objects.count == 4 })
        #expect(fired.value == 1)
        #expect(results.objects.map(\.lastName) == ["Adams", "Baker", "Cole", "Fox"])
        #expect(results.lastDifference.inserted == [0, 2] && results.lastDifference.removed.isEmpty)
        #expect(try matchesAFreshFetch())

        // An update that moves a row, and one that takes a row out of the predicate.
        try await container.performBackgroundTask { context in
            let cy = try context.existingObject(with: cy) as! Employee
            cy.lastName = "Zane"
            try context.save()
        }
        #expect(try await eventually { results.objects.last?.lastName == "Zane" })
        #expect(results.lastDifference.moved.map(\.from) == [2] && results.lastDifference.moved.map(\.to) == [3])
        #expect(try matchesAFreshFetch())
        let adams = results.objects[0]
        adams.level = .junior                                     // a local save of the results' own context
        try main.save()
        #expect(results.objects.map(\.lastName) == ["Baker", "Fox", "Zane"])
        #expect(results.lastDifference.removed == [0])
        #expect(try matchesAFreshFetch())

        // A delete elsewhere.
        let foxID = results.objects[1].objectID
        try await container.performBackgroundTask { context in
            context.delete(context.object(with: foxID))
            try context.save()
        }
        #expect(try await eventually { results.objects.count == 2 })
        #expect(results.lastDifference.removed == [1])
        #expect(try matchesAFreshFetch())
    }

    @Test func snapshotsSectionsAndUpdatesInPlace() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        let context = container.newContext()
        let sales = Department(context: context, name: "Sales"), ops = Department(context: context, name: "Ops")
        let people = [("Ann", ops), ("Bob", sales), ("Cy", sales)].map { name, department in
            let employee = Employee(context: context, firstName: name, lastName: "X")
            employee.department = department
            return employee
        }
        try context.save()
        var request = Employee.fetchRequest()
        request.sortDescriptors = [SortDescriptor("department.name"), SortDescriptor("firstName")]
        let results = try LiveResults(request, in: context, sectionKeyPath: "department.name")
        #expect(results.sections.map(\.name) == ["Ops", "Sales"])
        #expect(results.sections.map { $0.objects.map(\.firstName) } == [["Ann"], ["Bob", "Cy"]])
        var snapshots = results.snapshots.makeAsyncIterator()
        #expect(await snapshots.next()?.ids == people.map(\.objectID))
        people[1].salary = 100                                    // changes no position: an update in place
        try context.save()
        let snapshot = try #require(await snapshots.next())
        #expect(snapshot.ids == people.map(\.objectID))
        #expect(snapshot.difference.updated == [1] && snapshot.difference.moved.isEmpty && snapshot.difference.inserted.isEmpty)
    }
}
