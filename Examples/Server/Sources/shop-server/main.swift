// An HTTP server for the shop: each request runs on a background context of the shared container
// (`performBackgroundTask`), so handlers never share managed objects; several instances may serve
// one PostgreSQL database. SHOP_STORE names the store (a postgres:// URL or a SQLite file), PORT the port.
//
//   POST /products                  {"sku": "HAM-001", "title": "Hammer", "price": 12.5, "categories": ["Tools"]}
//   GET  /products/below/:price     products cheaper than :price
//   GET  /categories/:name/products products of a category
import Foundation
import Hummingbird
import ModelgenRuntime
import ShopModel

extension ProductInfo: ResponseCodable {}
extension CategoryInfo: ResponseCodable {}

/// Writes a line to standard error: what the server answered with a failure, and why.
func log(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Inserts and saves a product. Its categories are found by name or created; when another request
/// created the same category between this one's fetch and its save (the uniqueness constraint on
/// `Category.name` refuses the second), the request runs again, on purpose, and then finds it. A
/// save never conflicts with another request's products under the same categories (adding members
/// changes the members' rows), so nothing else is retried: any other failure is the answer.
func saveRetryingFindOrCreate(_ input: NewProduct) async throws -> ProductInfo {
    var attempt = 0
    while true {
        attempt += 1
        do {
            return try await container.performBackgroundTask { context in
                let product = try input.insert(into: context)
                try context.save()
                return ProductInfo(product)          // a Sendable value leaves the context, not the object
            }
        } catch let error as ValidationError where attempt < 5 && error.failures.allSatisfy({ $0.entityName == "Category" && $0.message.contains("uniqueness") }) {
            log("retry POST /products \(input.sku): a category was created meanwhile")
            continue
        }
    }
}

let environment = ProcessInfo.processInfo.environment
let container = try openShop(environment["SHOP_STORE"] ?? "shop.sqlite")
let router = Router()

router.get("health") { _, _ in "ok" }

router.post("products") { request, context -> EditedResponse<ProductInfo> in
    let input = try await request.decode(as: NewProduct.self, context: context)
    do {
        let saved = try await saveRetryingFindOrCreate(input)
        return EditedResponse(status: .created, response: saved)
    } catch let error as ValidationError {
        log("422 POST /products \(input.sku): \(error.failures.map(\.description).joined(separator: "; "))")
        throw HTTPError(.unprocessableContent, message: error.failures.map { "\($0.key ?? "?"): \($0.message)" }.joined(separator: "; "))
    } catch let error as MergeConflictError {
        log("409 POST /products \(input.sku): \(error)")
        throw HTTPError(.conflict, message: "\(error)")
    } catch let error as HTTPError {
        throw error
    } catch {
        log("500 POST /products \(input.sku): \(error)")
        throw HTTPError(.internalServerError, message: "\(error)")
    }
}

router.get("categories") { _, _ -> [CategoryInfo] in
    try await container.performBackgroundTask { context in
        try context.fetch(Category.fetchRequest()).map(CategoryInfo.init).sorted { $0.name < $1.name }
    }
}

router.get("products/below/:price") { _, context -> [ProductInfo] in
    guard let price = context.parameters.get("price").flatMap({ Decimal(string: $0) }) else { throw HTTPError(.badRequest, message: "price") }
    return try await container.performBackgroundTask { context in
        try context.fetch(ShopModel.productsBelow(price: price)).map(ProductInfo.init)
    }
}

router.get("categories/:name/products") { _, context -> [ProductInfo] in
    let name = try context.parameters.require("name")
    return try await container.performBackgroundTask { context in
        try context.fetch(ShopModel.productsInCategory(name: name)).map(ProductInfo.init)
    }
}

let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: Int(environment["PORT"] ?? "8080") ?? 8080)))
try await app.runService()
