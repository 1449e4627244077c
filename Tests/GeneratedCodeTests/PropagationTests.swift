import Foundation
import ModelgenRuntime
import Observation
import Testing

/// Waits (yielding the main actor, where merges run) until `condition` holds, for at most ten
/// seconds (a loaded CI machine can take seconds; a passing test returns at once).
@MainActor
func eventually(_ condition: () -> Bool) async throws -> Bool {
    for _ in 0..<2_000 {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// An importer of the kind the docs describe: a user's actor that owns a context.
actor StaffImporter: ModelActor {
    let modelContext: ManagedObjectContext

    init(container: ManagedContainer) {
        modelContext = container.newContext(observation: .unobserved)
    }

    /// Inserts employees into a department given by ID; returns their IDs.
    func hire(_ names: [String], into department: ObjectID) throws -> [ObjectID] {
        let target = try #require(try modelContext.existingObject(with: department) as? Department)
        let hired = names.map { name in
            let employee = Employee(context: modelContext, firstName: name, lastName: "Hired")
            employee.department = target
            return employee
        }
        try modelContext.save()
        return hired.map(\.objectID)
    }
}

/// Saves reach the container's change stream and the main context, whose observers hear of them
/// (Examples/Staff's generated classes).
@Suite struct PropagationTests {
    @Test func aSavePublishesItsChangeSet() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        var changes = container.changes.makeAsyncIterator()
        let ids: (ObjectID, ObjectID) = try await container.performBackgroundTask { context in
            let sales = Department(context: context, name: "Sales")
            let ann = Employee(context: context, firstName: "Ann", lastName: "Doe")
            ann.department = sales
            try context.save()
            return (sales.objectID, ann.objectID)
        }
        let first = try #require(await changes.next())
        #expect(Set(first.inserted) == [ids.0, ids.1] && first.updated.isEmpty && first.deleted.isEmpty)
        try await container.performBackgroundTask { context in
            let ann = try #require(try context.existingObject(with: ids.1) as? Employee)
            ann.lastName = "Smith"
            ann.salary = 10
            context.delete(try context.existingObject(with: ids.0))
            try context.save()
        }
        let second = try #require(await changes.next())
        #expect(second.updated[ids.1] == ["lastName", "salary", "department"])   // the delete nullified department
        #expect(second.deleted == [ids.0] && second.inserted.isEmpty)
    }

    @MainActor @Test func theMainContextMergesBackgroundSavesAndItsObserversHear() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        let main = container.mainContext
        #expect(main.automaticallyMergesChanges)
        let sales = Department(context: main, name: "Sales")
        let ann = Employee(context: main, firstName: "Ann", lastName: "Doe")
        ann.department = sales
        try main.save()
        let salesID = sales.objectID, annID = ann.objectID

        // An insert elsewhere: the relationship's other side changes here.
        let members = Fired()
        withObservationTracking { _ = sales.members } onChange: { members.hit() }
        let hired = try await StaffImporter(container: container).hire(["Bob", "Cy"], into: salesID)
        #expect(try await eventually { members.value > 0 })
        #expect(Set(sales.members.map(\.objectID)) == Set(hired + [annID]))
        #expect(sales.headcount == 3)

        // An update elsewhere, over an unsaved edit here: the merged property notifies, the edit stays.
        ann.nickname = "Annie"
        let lastName = Fired(), firstName = Fired()
        withObservationTracking { _ = ann.lastName } onChange: { lastName.hit() }
        withObservationTracking { _ = ann.firstName } onChange: { firstName.hit() }
        try await container.performBackgroundTask { context in
            let other = try #require(try context.existingObject(with: annID) as? Employee)
            other.lastName = "Smith"
            try context.save()
        }
        #expect(try await eventually { lastName.value > 0 })
        #expect(ann.lastName == "Smith" && ann.nickname == "Annie" && firstName.value == 0)
        try main.save()   // the unsaved edit saves over the merged record

        // A delete elsewhere: the object leaves the main context, its observers and the inverse side hear.
        let bob = try #require(main.object(with: hired[0]) as? Employee)
        _ = bob.firstName
        let gone = Fired(), shrunk = Fired()
        withObservationTracking { _ = bob.firstName } onChange: { gone.hit() }
        withObservationTracking { _ = sales.members } onChange: { shrunk.hit() }
        try await container.performBackgroundTask { context in
            context.delete(context.object(with: hired[0]))
            try context.save()
        }
        #expect(try await eventually { gone.value > 0 && shrunk.value > 0 })
        #expect(bob.managedObjectContext == nil && !sales.members.contains { $0.objectID == hired[0] })
        #expect(main.registeredObjects.allSatisfy { $0.objectID != hired[0] })
    }

    @MainActor @Test func contextsThatDoNotMergeStayAsTheyWere() async throws {
        let container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        let reader = container.newContext()
        #expect(!reader.automaticallyMergesChanges)
        let ann = Employee(context: reader, firstName: "Ann", lastName: "Doe")
        try reader.save()
        let id = ann.objectID
        var changes = container.changes.makeAsyncIterator()
        try await container.performBackgroundTask { context in
            (try context.existingObject(with: id) as? Employee)?.lastName = "Smith"
            try context.save()
        }
        let changeSet = try #require(await changes.next())
        #expect(ann.lastName == "Doe")                    // not merged by itself
        reader.mergeChanges(changeSet)                    // merged on request
        #expect(ann.lastName == "Smith")
    }
}
