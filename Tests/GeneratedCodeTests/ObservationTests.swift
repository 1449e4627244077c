import Foundation
import ModelgenRuntime
import Observation
import Synchronization
import Testing

/// Whether an observation fired: set from `withObservationTracking`'s `@Sendable` onChange.
final class Fired: Sendable {
    private let count = Atomic<Int>(0)
    func hit() { count.add(1, ordering: .relaxed) }
    var value: Int { count.load(ordering: .relaxed) }
}

/// True when reading `read` under observation tracking and then running `change` tells the observer.
@discardableResult
func fires(_ read: () -> Any, when change: () throws -> Void) rethrows -> Bool {
    let fired = Fired()
    withObservationTracking { _ = read() } onChange: { fired.hit() }
    try change()
    return fired.value > 0
}

/// Observation of generated `@Managed` properties (Examples/Staff: self-inverse, self-referencing and
/// ordered relationships, inheritance, dependent keys; Examples/Blog for many-to-many).
@Suite struct ObservationTests {
    let container: ManagedContainer
    let context: ManagedObjectContext

    init() throws {
        container = try ManagedContainer(model: StaffModel.model, store: .inMemory)
        context = container.newContext()
    }

    func employee(_ first: String, _ last: String = "Doe") -> Employee {
        Employee(context: context, firstName: first, lastName: last)
    }

    @Test func aWriteFiresForThatPropertyOnlyAndOnlyWhenTheValueChanges() throws {
        let ann = employee("Ann"), bob = employee("Bob")
        #expect(fires({ ann.firstName }, when: { ann.firstName = "Anna" }))
        #expect(!fires({ ann.firstName }, when: { ann.firstName = "Anna" }))          // same value: quiet
        #expect(!fires({ ann.firstName }, when: { ann.lastName = "Smith" }))          // another property
        #expect(!fires({ ann.firstName }, when: { bob.firstName = "Robert" }))        // another object
        #expect(fires({ ann.level }, when: { ann.level = .lead }))                    // enum (raw value)
        #expect(fires({ ann.salary }, when: { ann.salary = 100 }))                    // decimal
        #expect(fires({ ann.startedOn as Any }, when: { ann.startedOn = Date() }))    // optional scalar
        #expect(fires({ ann.nickname as Any }, when: { try? ann.setValue("Annie", forKey: StaffMember.Keys.nickname) }))
        #expect(ann.nickname == "Annie")
    }

    @Test func inverseUpkeepFiresOnTheOtherObject() throws {
        let ann = employee("Ann"), bob = employee("Bob"), cat = employee("Cat")
        let sales = Department(context: context, name: "Sales")
        #expect(fires({ sales.members }, when: { ann.department = sales }))            // one-to-many, other side
        #expect(sales.members == [ann])
        #expect(fires({ ann.department as Any }, when: { sales.removeFromMembers(ann) }))
        #expect(fires({ bob.friends }, when: { ann.friends = [bob] }))                 // its own inverse
        #expect(bob.friends == [ann])
        #expect(fires({ ann.mentees }, when: { bob.mentor = ann }))                    // self-referencing
        #expect(fires({ bob.mentor as Any }, when: { ann.mentees = [cat] }))           // bob leaves ann's mentees
        #expect(bob.mentor == nil && cat.mentor === ann)
        #expect(!fires({ cat.friends }, when: { ann.friends = [bob] }))                // unchanged: quiet
    }

    @Test func orderedAndManyToManyRelationshipsFire() throws {
        let ann = employee("Ann")
        let badge = Badge(context: context, label: "10 years", holder: ann)
        let other = Badge(context: context, label: "Speaker", holder: ann)
        #expect(ann.badges == [badge, other])
        #expect(fires({ ann.badges }, when: { ann.badges = [other, badge] }))          // a new order is a change
        let blog = try ManagedContainer(model: BlogModel.model, store: .inMemory).newContext()
        let author = Author(context: blog, firstName: "A", lastName: "B", email: "a@b.c", createdAt: Date())
        let post = Post(context: blog, id: UUID(), title: "T", body: "", author: author)
        let swift = Tag(context: blog, name: "swift")
        #expect(fires({ swift.posts }, when: { post.addToTags(swift) }))              // many-to-many, other side
        #expect(fires({ author.posts }, when: { _ = Post(context: blog, id: UUID(), title: "U", body: "", author: author) }))
    }

    @Test func deleteRulesFire() throws {
        let ann = employee("Ann")
        let sales = Department(context: context, name: "Sales")
        ann.department = sales
        _ = Badge(context: context, label: "10 years", holder: ann)
        try context.save()
        #expect(fires({ ann.department as Any }, when: { context.delete(sales) }))     // nullify
        #expect(ann.department == nil)
        let bob = employee("Bob")
        bob.friends = [ann]
        try context.save()
        #expect(fires({ bob.friends }, when: { context.delete(ann) }))                 // nullify of a self-inverse
        #expect(bob.friends.isEmpty)
    }

    @Test func undoRedoAndRollbackFireForWhatTheyChange() throws {
        let ann = employee("Ann")
        try context.save()
        ann.firstName = "Anna"
        context.endUndoGroup()
        #expect(fires({ ann.firstName }, when: { context.undo() }))
        #expect(ann.firstName == "Ann")
        #expect(fires({ ann.firstName }, when: { context.redo() }))
        #expect(ann.firstName == "Anna")
        #expect(!fires({ ann.lastName }, when: { context.undo() }))                    // undo left lastName alone
        let sales = Department(context: context, name: "Sales")
        try context.save()
        ann.department = sales
        ann.lastName = "Smith"
        #expect(fires({ sales.members }, when: { context.rollback() }))                // the inverse side too
        #expect(sales.members.isEmpty && ann.lastName == "Doe")
    }

    @Test func refreshAndMergeOfAnotherContextsSaveFire() throws {
        let ann = employee("Ann")
        try context.save()
        let other = container.newContext()
        let otherAnn = try #require(other.existingObject(with: ann.objectID) as? Employee)
        otherAnn.firstName = "Anna"
        otherAnn.salary = 5
        try other.save()
        // Refresh dropping nothing (no local changes): the observer hears of the saved value at once.
        #expect(fires({ ann.firstName }, when: { context.refresh(ann, mergeChanges: false) }))
        #expect(ann.firstName == "Anna")
        #expect(!fires({ ann.lastName }, when: { context.refresh(ann, mergeChanges: false) }))   // unchanged in the store
        // Merge over a local change: the merged property fires, the local one keeps its value.
        ann.nickname = "A"
        otherAnn.lastName = "Smith"
        try other.save()
        #expect(fires({ ann.lastName }, when: { context.refresh(ann, mergeChanges: true) }))
        #expect(ann.lastName == "Smith" && ann.nickname == "A")
    }

    @Test func dependentKeysFireWhenWhatTheyDependOnChanges() throws {
        let ann = employee("Ann")
        let sales = Department(context: context, name: "Sales")
        #expect(ann.fullName == "Ann Doe")
        #expect(fires({ ann.fullName }, when: { ann.lastName = "Smith" }))
        #expect(!fires({ ann.fullName }, when: { ann.salary = 10 }))
        #expect(fires({ ann.title }, when: { ann.department = sales }))                // the to-one itself
        #expect(ann.title == "Ann Smith, Sales")
        #expect(fires({ ann.title }, when: { sales.name = "Marketing" }))              // across it
        #expect(fires({ ann.title }, when: { ann.firstName = "Anna" }))                // through fullName
        #expect(fires({ sales.headcount }, when: { _ = employee("Bob").department = sales }))
        #expect(sales.headcount == 2)
        #expect(ann.entity.dependencies(of: StaffMember.Keys.fullName) == ["firstName", "lastName"])
    }

    @Test func derivedAttributesFireWhenASaveRecomputesThem() throws {
        let blog = try ManagedContainer(model: BlogModel.model, store: .inMemory).newContext()
        let author = Author(context: blog, firstName: "A", lastName: "B", email: "a@b.c", createdAt: Date())
        let post = Post(context: blog, id: UUID(), title: "Title", body: "", author: author)
        try blog.save()
        _ = Comment(context: blog, text: "First", postedAt: Date(), post: post)
        #expect(post.commentCount == 0)                                               // derived: recomputed on save
        #expect(try fires({ post.commentCount }, when: { try blog.save() }))
        #expect(post.commentCount == 1)
        #expect(try !fires({ post.searchTitle as Any }, when: { try blog.save() }))    // nothing changed
        post.title = "Other"
        #expect(try fires({ post.searchTitle as Any }, when: { try blog.save() }))
        #expect(post.searchTitle == "other")
    }

    @Test func undoOfARelationshipChangeFiresOnBothSides() throws {
        let ann = employee("Ann")
        let sales = Department(context: context, name: "Sales")
        try context.save()
        ann.department = sales
        context.endUndoGroup()
        let fired = Fired()
        withObservationTracking { _ = (ann.department, sales.members) } onChange: { fired.hit() }
        let other = Fired()
        withObservationTracking { _ = sales.members } onChange: { other.hit() }
        context.undo()
        #expect(fired.value == 1 && other.value == 1)
        #expect(ann.department == nil && sales.members.isEmpty)
    }

    @Test func unobservedContextsRegisterNoReads() throws {
        let quiet = container.newContext(observation: .unobserved)
        let ann = Employee(context: quiet, firstName: "Ann", lastName: "Doe")
        #expect(!fires({ ann.firstName }, when: { ann.firstName = "Anna" }))
        #expect(ann.firstName == "Anna")
    }

    @Test func observationKeepsNoObjectAlive() throws {
        weak var weakEmployee: Employee?
        weak var weakDepartment: Department?
        do {
            let context = container.newContext()
            let ann = Employee(context: context, firstName: "Ann", lastName: "Doe")
            let sales = Department(context: context, name: "Sales")
            ann.department = sales
            withObservationTracking { _ = (ann.title, sales.members, ann.friends) } onChange: {}
            weakEmployee = ann
            weakDepartment = sales
        }
        #expect(weakEmployee == nil && weakDepartment == nil)
    }

    @Test func deletedAndSavedObjectsAreNotKeptAlive() throws {
        weak var weakEmployee: Employee?
        do {
            let ann = employee("Ann")
            try context.save()
            withObservationTracking { _ = ann.firstName } onChange: {}
            context.delete(ann)
            try context.save()
            weakEmployee = ann
        }
        #expect(weakEmployee == nil)
    }

    @available(macOS 26.0, iOS 26.0, watchOS 26.0, tvOS 26.0, visionOS 26.0, *)
    @Test func observationsSequenceYieldsEachNewValue() async throws {
        let context = container.newContext()
        let ann = Employee(context: context, firstName: "Ann", lastName: "Doe")
        let id = ann.objectID
        // Observations runs its closure on this task's isolation; the object stays in this task.
        nonisolated(unsafe) let object = ann
        let names = Observations { object.fullName }
        var iterator = names.makeAsyncIterator()
        #expect(await iterator.next() == "Ann Doe")
        object.lastName = "Smith"
        #expect(await iterator.next() == "Ann Smith")
        #expect(object.objectID == id)
    }
}
