import Foundation
import ModelgenPostgres
import ModelgenRuntime
import Testing

// Composite attributes on every store kind, with a conformance written by hand as a user of the
// runtime without the generator would (generated code writes the same): a nested optional composite,
// flattened columns `address.city`, `address.spot.lat`, …, a fetch index on a field.

struct Spot: Hashable, Sendable, ManagedComposite {
    var lat: Double
    var lon: Double

    static var managedSlotCount: Int { 2 }
    init(lat: Double, lon: Double) { self.lat = lat; self.lon = lon }
    init(managedFields fields: inout CompositeFields) { self.init(lat: fields.value(), lon: fields.value()) }
    func writeManagedFields(to fields: inout CompositeFields) { fields.put(lat); fields.put(lon) }
}

struct Place: Hashable, Sendable, ManagedComposite {
    var city: String
    var zip: Int32
    var spot: Spot?

    static var managedSlotCount: Int { 5 }
    init(city: String, zip: Int32, spot: Spot? = nil) { self.city = city; self.zip = zip; self.spot = spot }
    init(managedFields fields: inout CompositeFields) { self.init(city: fields.value(), zip: fields.value(), spot: fields.optionalComposite()) }
    func writeManagedFields(to fields: inout CompositeFields) { fields.put(city); fields.put(zip); fields.putOptionalComposite(spot) }
}

final class Depot: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var place: Place
    @Managed(slot: 6) var annex: Place?
}

/// `place: Place` (slots 1–5) and `annex: Place?` (presence at 6, fields 7–11), as the generator lays them out.
let compositeModel = try! ManagedObjectModel(name: "Depots", entities: [
    EntityDescription("Depot", class: Depot.self, attributes: [
        AttributeDescription("name", .string),
        AttributeDescription("place.city", .string), AttributeDescription("place.zip", .int32, defaultValue: .int(0)),
        AttributeDescription("place.spot", .bool, optional: true),
        AttributeDescription("place.spot.lat", .double, optional: true), AttributeDescription("place.spot.lon", .double, optional: true),
        AttributeDescription("annex", .bool, optional: true),
        AttributeDescription("annex.city", .string, optional: true), AttributeDescription("annex.zip", .int32, optional: true),
        AttributeDescription("annex.spot", .bool, optional: true),
        AttributeDescription("annex.spot.lat", .double, optional: true), AttributeDescription("annex.spot.lon", .double, optional: true),
    ], indexes: [["place.city"]]),
])

@Suite struct CompositeStoreTests {
    @Test(arguments: availableKinds)
    func compositesRoundTripAndAnswerPredicatesOnFields(_ kind: StoreKind) throws {
        let (store, reopen) = try kind.makeStore(model: compositeModel)
        let context = ManagedContainer(model: compositeModel, store: store).newContext()
        for (name, place, annex) in [("north", Place(city: "Oslo", zip: 150, spot: Spot(lat: 59.9, lon: 10.7)), Place?.none),
                                     ("south", Place(city: "Rome", zip: 100), Place(city: "Ostia", zip: 121, spot: Spot(lat: 41.7, lon: 12.3))),
                                     ("east", Place(city: "oslo", zip: 151), Place(city: "", zip: 0))] {
            let depot = Depot(context: context)
            depot.name = name
            depot.place = place
            depot.annex = annex
        }
        try context.save()

        let reader = ManagedContainer(model: compositeModel, store: try reopen(compositeModel)).newContext()
        func names(_ format: String, sort: String = "name") throws -> [String] {
            try reader.fetch(try FetchRequest<Depot>(entityName: "Depot", predicate: format, sortDescriptors: [ModelgenRuntime.SortDescriptor(parsing: sort)])).map(\.name)
        }
        let all = try reader.fetch(try FetchRequest<Depot>(entityName: "Depot", predicate: "TRUEPREDICATE", sortDescriptors: [ModelgenRuntime.SortDescriptor("name")]))
        #expect(all.map(\.place) == [Place(city: "oslo", zip: 151), Place(city: "Oslo", zip: 150, spot: Spot(lat: 59.9, lon: 10.7)), Place(city: "Rome", zip: 100)], "\(kind)")
        #expect(all.map(\.annex) == [Place(city: "", zip: 0), nil, Place(city: "Ostia", zip: 121, spot: Spot(lat: 41.7, lon: 12.3))], "\(kind)")
        #expect(try names("place.city ==[c] 'OSLO'") == ["east", "north"], "\(kind)")
        #expect(try names("annex == nil") == ["north"], "\(kind)")
        #expect(try names("annex != nil AND annex.spot == nil") == ["east"], "\(kind)")
        #expect(try names("place.spot.lat > 50 OR annex.spot.lon < 13") == ["north", "south"], "\(kind)")
        #expect(try names("TRUEPREDICATE", sort: "place.zip desc") == ["east", "north", "south"], "\(kind)")
        if kind != .inMemory {
            let plan = try reader.queryPlan(for: try FetchRequest<Depot>(entityName: "Depot", predicate: "place.city == 'Rome'"))
            #expect(plan.sqlPlan != nil, "\(kind): \(plan)")
        }
    }
}
