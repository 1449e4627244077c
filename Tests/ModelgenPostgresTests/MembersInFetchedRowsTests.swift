import Foundation
import ModelgenRuntime
import Testing

/// Reading clubs: their readers (ordered, kept by the inverse), their volumes (ordered, many-to-many
/// through a join table) and their remarks (kept by the inverse; a remark may be a reply, a
/// subentity, so a remark's key alone does not name its entity).
private let readingClubsModel = try! ManagedObjectModel(name: "Clubs", entities: [
    EntityDescription("Club", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("readers", destination: "Reader", inverse: "club", toMany: true, ordered: true),
        RelationshipDescription("volumes", destination: "Volume", inverse: "clubs", toMany: true, ordered: true),
        RelationshipDescription("remarks", destination: "Remark", inverse: "club", toMany: true),
    ]),
    EntityDescription("Reader", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)], relationships: [
        RelationshipDescription("club", destination: "Club", inverse: "readers"),
    ]),
    EntityDescription("Volume", class: ManagedObject.self, attributes: [AttributeDescription("title", .string)], relationships: [
        RelationshipDescription("clubs", destination: "Club", inverse: "volumes", toMany: true),
    ]),
    EntityDescription("Remark", class: ManagedObject.self, attributes: [AttributeDescription("text", .string)], relationships: [
        RelationshipDescription("club", destination: "Club", inverse: "remarks"),
    ]),
    EntityDescription("Reply", class: ManagedObject.self, parent: "Remark", attributes: [AttributeDescription("to", .string, optional: true)]),
])

/// A fetch that prefetches to-many relationships may get their members in its own rows
/// (`StoreQuery.toManySlotsWithRows`: PostgreSQL reads them as arrays in the fetch's statement);
/// objects, lists and orders are those of reading each relationship on its own, on every store.
@Suite struct MembersInFetchedRowsTests {
    /// 120 clubs: club n has n % 5 readers (in an order that is not their keys'), n % 4 of 30 volumes
    /// (shared between clubs, listed in a club's own order) and n % 3 remarks, every other a reply.
    func clubs(_ kind: StoreKind) throws -> ManagedContainer {
        let (store, _) = try kind.makeStore(model: readingClubsModel)
        let container = ManagedContainer(model: readingClubsModel, store: store)
        let context = container.newContext()
        let volumes = try (0..<30).map { try context.make("Volume", ["title": "V\($0)"]) }
        for n in 0..<120 {
            let club = try context.make("Club", ["name": String(format: "C%03d", n)])
            let readers = try (0..<(n % 5)).map { try context.make("Reader", ["name": "R\(n)-\($0)"]) }
            try club.setValue(Array(readers.reversed()), forKey: "readers")
            try club.setValue(Array((0..<(n % 4)).map { volumes[(n * 7 + $0 * 11) % 30] }.reversed()), forKey: "volumes")
            for index in 0..<(n % 3) {
                let remark = try context.make(index % 2 == 0 ? "Remark" : "Reply", ["text": "T\(n)-\(index)"])
                try remark.setValue(club, forKey: "club")
            }
        }
        try context.save()
        return container
    }

    /// Each club's relationships as names, in order (remarks sorted: they have none).
    func described(_ clubs: [ManagedObject]) throws -> [String] {
        try clubs.map { club in
            let readers = try (club.value(forKey: "readers") as! [ManagedObject]).map { try $0.value(forKey: "name") as! String }
            let volumes = try (club.value(forKey: "volumes") as! [ManagedObject]).map { try $0.value(forKey: "title") as! String }
            let remarks = try (club.value(forKey: "remarks") as! [ManagedObject]).map { "\($0.entity.name) \(try $0.value(forKey: "text") as! String)" }.sorted()
            return "\(try club.value(forKey: "name") as! String): \(readers) \(volumes) \(remarks)"
        }
    }

    @Test(arguments: availableKinds)
    func prefetchedListsAreThoseReadOneByOne(_ kind: StoreKind) throws {
        let container = try clubs(kind)
        var request = FetchRequest<ManagedObject>(entityName: "Club", sortDescriptors: [SortDescriptor("name")])
        let plain = container.newContext()
        let expected = try described(try plain.fetch(request))
        #expect(expected.count == 120)
        #expect(expected[9] == "C009: [\"R9-3\", \"R9-2\", \"R9-1\", \"R9-0\"] [\"V3\"] []")
        #expect(expected[11] == "C011: [\"R11-0\"] [\"V9\", \"V28\", \"V17\"] [\"Remark T11-0\", \"Reply T11-1\"]")

        request.relationshipKeyPathsForPrefetching = ["readers", "volumes.clubs", "remarks"]
        let context = container.newContext()
        let clubs = try context.fetch(request)
        let members = try clubs.flatMap { club in try ["readers", "volumes", "remarks"].flatMap { try club.value(forKey: $0) as! [ManagedObject] } }
        #expect(!members.isEmpty && members.allSatisfy { !$0.isFault }, "every prefetched member is loaded")
        #expect(try described(clubs) == expected)
        let shared = try clubs.flatMap { try $0.value(forKey: "volumes") as! [ManagedObject] }
        #expect(Set(shared.map(ObjectIdentifier.init)).count == Set(shared.map(\.objectID)).count, "a volume of several clubs is one object")

        // A context holding the clubs without their lists (the members are not asked for in its rows).
        let holding = container.newContext()
        var unprefetched = request
        unprefetched.relationshipKeyPathsForPrefetching = []
        _ = try holding.fetch(unprefetched)
        #expect(try described(try holding.fetch(request)) == expected)

        // Unsaved changes stay: a club whose readers this context reordered keeps its order.
        let edited = clubs[4]
        let reordered = Array((try edited.value(forKey: "readers") as! [ManagedObject]).reversed())
        try edited.setValue(reordered, forKey: "readers")
        let again = try context.fetch(request)
        #expect(try (again[4].value(forKey: "readers") as! [ManagedObject]).map(\.objectID) == reordered.map(\.objectID))
    }

    /// The store's answer: the members' IDs in the rows, in the relationships' order, and nothing for
    /// a relationship whose members may be of several entities. SQLite loads lists after its rows.
    @Test(arguments: availableKinds.filter { $0 != .inMemory })
    func aStoreGivesMembersInTheRowsItCan(_ kind: StoreKind) throws {
        let container = try clubs(kind)
        let store = try #require(container.store as? any QueryingStore)
        let club = try #require(readingClubsModel.entity(named: "Club"))
        let slots = ["readers", "volumes", "remarks"].map { club.slotsByName[$0]! }
        var query = StoreQuery(entityNames: ["Club"], entityName: "Club", sortDescriptors: [SortDescriptor("name")])
        query.toManySlotsWithRows = slots
        let rows = try #require(try store.fetch(query))
        #expect(rows.count == 120)
        let context = container.newContext()
        for (n, row) in rows.enumerated() {
            let object = try context.existingObject(with: row.id)
            for slot in slots {
                let value = row.values[slot]
                if kind == .sqlite || club.properties[slot].name == "remarks" {
                    #expect(value == .null, "\(row.id) \(club.properties[slot].name)")
                } else {
                    let listed = (try object.value(forKey: club.properties[slot].name) as! [ManagedObject]).map(\.objectID)
                    #expect(value == .references(listed), "club \(n), \(club.properties[slot].name)")
                }
            }
        }
    }
}
