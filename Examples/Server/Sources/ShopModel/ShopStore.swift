import Foundation
import ModelgenPostgres
import ModelgenRuntime

/// Opens the shop on the store a string names: a `postgres://` URL (its `schema=` names the schema),
/// or a SQLite file path. The rest of the program does not know which it got.
public func openShop(_ store: String) throws -> ManagedContainer {
    if store.hasPrefix("postgres://") || store.hasPrefix("postgresql://") {
        return try ManagedContainer(model: ShopModel.model, postgres: try PostgreSQLConfiguration(url: store))
    }
    return try ManagedContainer(model: ShopModel.model, store: .sqlite(URL(fileURLWithPath: store)))
}

/// A product as the server sends it and the check prints it.
public struct ProductInfo: Codable, Sendable, Hashable {
    public var sku: String
    public var title: String
    public var price: Decimal
    public var supplier: String?
    public var categories: [String]

    public init(_ product: Product) {
        sku = product.sku
        title = product.title
        price = product.price
        supplier = product.supplier?.name
        categories = product.categories.map(\.name).sorted()
    }
}

/// A category as the server lists it: its name and how many products it holds.
public struct CategoryInfo: Codable, Sendable, Hashable {
    public var name: String
    public var products: Int

    public init(_ category: Category) {
        name = category.name
        products = category.products.count
    }
}

/// What a client sends to add a product.
public struct NewProduct: Codable, Sendable {
    public var sku: String
    public var title: String
    public var price: Decimal
    public var supplierEmail: String?
    public var categories: [String]

    public init(sku: String, title: String, price: Decimal, supplierEmail: String? = nil, categories: [String] = []) {
        self.sku = sku
        self.title = title
        self.price = price
        self.supplierEmail = supplierEmail
        self.categories = categories
    }
}

extension NewProduct {
    /// Inserts the product in `context` (categories found by name or created, the supplier found by
    /// email) without saving.
    @discardableResult
    public func insert(into context: ManagedObjectContext) throws -> Product {
        let product = Product(context: context, sku: sku, title: title, price: price)
        for name in categories {
            let existing = try context.fetch(try FetchRequest<Category>(entityName: "Category", predicate: "name == $NAME", variables: ["NAME": name])).first
            product.addToCategories(existing ?? Category(context: context, name: name))
        }
        if let supplierEmail {
            product.supplier = try context.fetch(try FetchRequest<Supplier>(entityName: "Supplier", predicate: "email == $EMAIL",
                                                                             variables: ["EMAIL": supplierEmail])).first
        }
        return product
    }
}
