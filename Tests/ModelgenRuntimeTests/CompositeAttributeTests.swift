import Foundation
import TestScratch
import Observation
import Synchronization
import Testing
@testable import ModelgenRuntime

/// The class of the extension-mode entity Order: the user's side.
public final class Order: ManagedObject {}

/// Composite attributes (Tests/Models/Shop.model.yaml, generated into GeneratedShop/): values round-trip
/// through every store with their flattened columns, predicates and sorts on fields run (in SQL on
/// SQLite, through the model's index), and fields take part in change tracking, undo, validation,
/// uniqueness and observation like any attribute.
@Suite struct CompositeAttributeTests {
    enum Kind: String, CaseIterable { case memory, sqlite }

    static let berlin = Address(street: "Unter den Linden 1", city: "Berlin", postcode: "10117", floor: 3,
                                location: GeoPoint(latitude: 52.5, longitude: 13.4))
    static let paris = Address(street: "Rue de Rivoli", city: "Paris")

    func container(_ kind: Kind, url: URL? = nil) throws -> ManagedContainer {
        switch kind {
        case .memory: return try ManagedContainer(model: ShopModel.model, store: .inMemory)
        case .sqlite:
            let file = try url ?? temporaryDirectory().appendingPathComponent("Shop.sqlite")
            return try ManagedContainer(model: ShopModel.model, store: .sqlite(file))
        }
    }

    /// Ada (Berlin, shipping to Paris), Bob (Paris, no shipping address), Cy (berlin, lower case) with orders.
    func seed(_ container: ManagedContainer) throws {
        let context = container.newContext()
        let ada = Customer(context: context, name: "Ada", billing: Self.berlin)
        ada.shipping = Self.paris
        let bob = Customer(context: context, name: "Bob", billing: Self.paris)
        var cyAddress = Self.berlin
        cyAddress.city = "berlin"
        cyAddress.postcode = "10115"
        cyAddress.location = nil
        let cy = Customer(context: context, name: "Cy", billing: cyAddress)
        cy.shipping = Self.berlin
        for (number, (customer, amount)) in [(ada, "12.50"), (ada, "99.99"), (bob, "5"), (cy, "250")].enumerated() {
            let order = Order(context: context)
            order.number = Int32(number + 1)
            order.total = Money(amount: Decimal(string: amount)!, currency: "EUR")
            order.customer = customer
        }
        try context.save()
    }

    @Test(arguments: Kind.allCases)
    func valuesRoundTripThroughTheStore(_ kind: Kind) throws {
        let url = try temporaryDirectory().appendingPathComponent("Shop.sqlite")
        let stamp = Stamp(at: Date(timeIntervalSinceReferenceDate: 812_345.25), by: UUID(), verified: true,
                          receipt: Data([0, 1, 2, 255]), link: URL(string: "https://example.com/r/1"))
        let first = try container(kind, url: url)
        do {
            let context = first.newContext()
            let ada = Customer(context: context, name: "Ada", billing: Self.berlin)
            #expect(ada.shipping == nil)
            let order = Order(context: context)
            order.number = 7
            order.total = Money(amount: Decimal(string: "1234.5678")!, currency: "CHF")
            order.stamp = stamp
            order.customer = ada
            let empty = Order(context: context)
            empty.number = 8
            empty.customer = ada
            try context.save()
        }
        // SQLite: a new container reads the file; in memory: a new context reads the store.
        let reader = kind == .sqlite ? try container(kind, url: url) : first
        let context = reader.newContext()
        let ada = try #require(try context.fetch(FetchRequest<Customer>(entityName: "Customer")).first)
        #expect(ada.billing == Self.berlin)
        #expect(ada.shipping == nil)
        let orders = try context.fetch(FetchRequest<Order>(entityName: "Order", sortDescriptors: [SortDescriptor("number")]))
        #expect(orders.map(\.total) == [Money(amount: Decimal(string: "1234.5678")!, currency: "CHF"), Money()])
        #expect(orders.map(\.stamp) == [stamp, nil])
    }

    /// An optional composite whose fields are all nil or default is not nil: its presence is stored.
    @Test(arguments: Kind.allCases)
    func aValueWithEmptyFieldsIsNotNil(_ kind: Kind) throws {
        let url = try temporaryDirectory().appendingPathComponent("Shop.sqlite")
        do {
            let context = try container(kind, url: url).newContext()
            let customer = Customer(context: context, name: "Ada", billing: Self.paris)
            customer.shipping = Address(street: "", city: "X", location: GeoPoint())
            try context.save()
            customer.shipping?.location = nil
            #expect(customer.shipping?.location == nil)
            try context.save()
            if kind == .memory {
                let again = try context.fetch(FetchRequest<Customer>(entityName: "Customer", predicate: "shipping.location == nil AND shipping != nil"))
                #expect(again.count == 1)
            }
        }
        guard kind == .sqlite else { return }
        let context = try container(kind, url: url).newContext()
        let customer = try #require(try context.fetch(FetchRequest<Customer>(entityName: "Customer")).first)
        #expect(customer.shipping == Address(street: "", city: "X"))
    }

    @Test(arguments: Kind.allCases)
    func predicatesAndSortsUseFields(_ kind: Kind) throws {
        let shop = try container(kind)
        try seed(shop)
        let context = shop.newContext()
        func names(_ format: String, sort: [ModelgenRuntime.SortDescriptor] = [ModelgenRuntime.SortDescriptor("name")], _ variables: [String: Any?] = [:]) throws -> [String] {
            try context.fetch(try FetchRequest<Customer>(entityName: "Customer", predicate: format, variables: variables, sortDescriptors: sort)).map(\.name)
        }
        #expect(try names("billing.city == 'Berlin'") == ["Ada"])
        #expect(try names("billing.city ==[c] 'berlin'") == ["Ada", "Cy"])
        #expect(try names("shipping == nil") == ["Bob"])
        #expect(try names("shipping != nil AND shipping.city == 'Paris'") == ["Ada"])
        #expect(try names("billing.location == nil") == ["Bob", "Cy"])
        #expect(try names("billing.location.latitude > 50") == ["Ada"])
        #expect(try names("billing.floor == 3") == ["Ada", "Cy"])
        #expect(try names("ANY orders.total.amount > 50") == ["Ada", "Cy"])
        #expect(try names("TRUEPREDICATE", sort: [SortDescriptor("billing.postcode", ascending: false), SortDescriptor("name")]) == ["Ada", "Cy", "Bob"])
        // The templates: typed parameters, fields through a to-one relationship.
        #expect(try context.fetch(ShopModel.customersInCity(city: "BERLIN")).map(\.name) == ["Cy", "Ada"])
        #expect(try context.fetch(ShopModel.ordersShippedTo(city: "Paris", minAmount: 50)).map(\.number) == [2])
        #expect(try context.fetch(ShopModel.ordersShippedTo(city: "Berlin", minAmount: 0)).map(\.number) == [4])
    }

    /// `#Predicate` reaches fields through the composites' generated key paths, optional ones too.
    @Test(arguments: Kind.allCases)
    func typedPredicatesReachFields(_ kind: Kind) throws {
        let shop = try container(kind)
        try seed(shop)
        let context = shop.newContext()
        func names(_ predicate: Foundation.Predicate<Customer>) throws -> [String] {
            try context.fetch(FetchRequest(predicate: predicate, sortBy: [SortDescriptor(\Customer.name)])).map(\.name)
        }
        #expect(try names(#Predicate { $0.billing.city == "Berlin" }) == ["Ada"])
        #expect(try names(#Predicate { $0.shipping?.city == "Paris" }) == ["Ada"])
        #expect(try names(#Predicate { $0.shipping == nil }) == ["Bob"])
        #expect(try names(#Predicate { $0.billing.location?.latitude != nil && $0.billing.floor == 3 }) == ["Ada"])
        #expect(try names(#Predicate { $0.orders.contains { $0.total.amount > 50 } }) == ["Ada", "Cy"])
        let sorted = try context.fetch(FetchRequest<Customer>(sortBy: [SortDescriptor(\Customer.billing.city, order: .reverse)]))
        #expect(sorted.map(\.name) == ["Cy", "Bob", "Ada"])
    }

    /// On SQLite a predicate on a field is SQL, and an indexed field is searched through its index.
    @Test func fieldPredicatesRunInSQLThroughTheIndex() throws {
        let shop = try container(.sqlite)
        try seed(shop)
        let context = shop.newContext()
        let plan = try context.queryPlan(for: try FetchRequest<Customer>(entityName: "Customer", predicate: "billing.city == 'Berlin'"))
        let sql = try #require(plan.sqlPlan, "\(plan)")
        #expect(sql.contains("USING INDEX") && sql.contains("billing.city"), "\(sql)")
        let nested = try context.queryPlan(for: try FetchRequest<Order>(entityName: "Order", predicate: "customer.shipping.city == 'Paris' AND total.currency == 'EUR'"))
        #expect(nested.sqlPlan != nil, "\(nested)")
    }

    @Test(arguments: Kind.allCases)
    func fieldChangesAreTrackedAndUndone(_ kind: Kind) throws {
        let shop = try container(kind)
        try seed(shop)
        let context = shop.newContext()
        let ada = try #require(try context.fetch(FetchRequest<Customer>(entityName: "Customer", predicate: "name == 'Ada'")).first)
        #expect(!context.hasChanges)
        context.undoGroup { ada.billing.city = "Hamburg" }
        #expect(ada.hasChanges)
        #expect(ada.changedValues().keys.sorted() == ["billing.city"])
        context.undo()
        #expect(ada.billing == Self.berlin)
        ada.shipping = nil
        try context.save()
        let other = shop.newContext()
        let reread = try #require(try other.fetch(FetchRequest<Customer>(entityName: "Customer", predicate: "name == 'Ada'")).first)
        #expect(reread.shipping == nil)
        #expect(try other.count(for: try FetchRequest<Customer>(entityName: "Customer", predicate: "shipping.city == 'Paris'")) == 0)
    }

    @Test(arguments: Kind.allCases)
    func fieldsAreValidatedAndUnique(_ kind: Kind) throws {
        let shop = try container(kind)
        try seed(shop)
        let context = shop.newContext()
        // min: 1 on Address.city, the regex on Money.currency.
        let nameless = Customer(context: context, name: "Dee", billing: Address(street: "x", city: ""))
        let order = Order(context: context)
        order.number = 9
        order.total = Money(amount: 1, currency: "euro")
        order.customer = nameless
        let error = try #require(throws: ValidationError.self) { try context.save() }
        #expect(Set(error.failures.compactMap(\.key)) == ["billing.city", "total.currency"], "\(error)")
        context.rollback()
        // unique: [[name, billing.city]]
        _ = Customer(context: context, name: "Ada", billing: Address(street: "Elsewhere 2", city: "Berlin"))
        #expect(throws: ValidationError.self) { try context.save() }
        context.rollback()
        _ = Customer(context: context, name: "Ada", billing: Address(street: "Elsewhere 2", city: "Bonn"))
        try context.save()
    }

    /// A subentity's composite follows its parent's composites in the slot layout and the shared table.
    @Test(arguments: Kind.allCases)
    func aSubentityAddsCompositesAfterItsParents(_ kind: Kind) throws {
        let url = try temporaryDirectory().appendingPathComponent("Shop.sqlite")
        let first = try container(kind, url: url)
        do {
            let context = first.newContext()
            let vip = VIPCustomer(context: context, name: "Vera", billing: Self.paris)
            vip.shipping = Self.berlin
            vip.lounge = Address(street: "Terminal 2", city: "Zurich", floor: 1)
            vip.tier = 3
            _ = Customer(context: context, name: "Ada", billing: Self.berlin)
            try context.save()
        }
        let context = (kind == .sqlite ? try container(kind, url: url) : first).newContext()
        let vip = try #require(try context.fetch(FetchRequest<VIPCustomer>(entityName: "VIPCustomer")).first)
        #expect(vip.billing == Self.paris && vip.shipping == Self.berlin && vip.tier == 3)
        #expect(vip.lounge == Address(street: "Terminal 2", city: "Zurich", floor: 1))
        let people = try context.fetch(try FetchRequest<Customer>(entityName: "Customer", predicate: "billing.city != 'Rome'",
                                                                  sortDescriptors: [ModelgenRuntime.SortDescriptor("name")]))
        #expect(people.map(\.name) == ["Ada", "Vera"])
        #expect(try context.fetch(try FetchRequest<VIPCustomer>(entityName: "VIPCustomer", predicate: "lounge.floor == 1 AND tier == 3")).count == 1)
    }

    @Test func observersOfACompositeHearAFieldChange() throws {
        let shop = try container(.memory)
        try seed(shop)
        let context = shop.newContext()
        let ada = try #require(try context.fetch(FetchRequest<Customer>(entityName: "Customer", predicate: "name == 'Ada'")).first)
        let changed = Mutex(false)
        withObservationTracking { _ = ada.billing } onChange: { changed.withLock { $0 = true } }
        ada.billing.location?.latitude = 48.1
        #expect(changed.withLock { $0 })
        #expect(ada.billing.location == GeoPoint(latitude: 48.1, longitude: 13.4))
    }
}
