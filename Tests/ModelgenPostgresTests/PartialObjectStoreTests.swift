import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

/// Partial objects on every store kind, in the shared Person table (employees beside customers):
/// what a fetch with `propertiesToFetch` returns equals the whole objects, on the SQL stores each
/// object is partial until a value it did not read is needed, and an edit of such a value saves
/// without losing any other.
@Suite struct PartialObjectStoreTests {
    @Test(arguments: availableKinds)
    func partialEmployeesAreTheWholeOnesAndSaveWhole(_ kind: StoreKind) throws {
        let container = try ProjectionStoreTests().staffed(kind)
        var request = FetchRequest<ManagedObject>(entityName: "Person", sortDescriptors: [SortDescriptor("name")])
        request.propertiesToFetch = ["name"]
        var wholeRequest = request
        wholeRequest.propertiesToFetch = nil
        let reader = container.newContext()
        let whole = try reader.fetch(wholeRequest)
        let context = container.newContext()
        let people = try context.fetch(request)
        #expect(people.map(\.objectID) == whole.map(\.objectID), "\(kind)")
        #expect(people.map(\.isPartial) == Array(repeating: kind != .inMemory, count: 4), "\(kind)")
        #expect(try people.map { try $0.value(forKey: "name") as? String } == ["Ada", "Bea", "Cy", "Dee"], "\(kind)")
        #expect(people.map(\.isPartial) == Array(repeating: kind != .inMemory, count: 4), "\(kind): reading the name loads nothing more")
        // A subentity's own attribute, which the fetch did not read, loads the rest.
        let level = try people[1].value(forKey: "level")
        #expect(level as? Int64 == 3, "\(kind): \(String(describing: level))")
        #expect(!people[1].isPartial, "\(kind)")
        for (person, other) in zip(people, whole) {
            #expect(try person.value(forKey: "email") as? String == (try other.value(forKey: "email") as? String), "\(kind)")
        }
        try people[3].setValue("Acme", forKey: "company")
        try people[0].setValue("ada@example.org", forKey: "email")
        try context.save()
        let check = container.newContext()
        let after = try check.fetch(try FetchRequest<ManagedObject>(entityName: "Customer", predicate: "name == 'Dee'"))
        #expect(try after.first?.value(forKey: "company") as? String == "Acme", "\(kind)")
        #expect(try after.first?.value(forKey: "email") as? String == "dee@example.com", "\(kind)")
        let ada = try check.fetch(try FetchRequest<ManagedObject>(entityName: "Employee", predicate: "name == 'Ada'"))
        #expect(try ada.first?.value(forKey: "level") as? Int64 == 2 && ada.first?.value(forKey: "email") as? String == "ada@example.org", "\(kind)")
    }
}
