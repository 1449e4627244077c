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

let environment = ProcessInfo.processInfo.environment
let container = try openShop(environment["SHOP_STORE"] ?? "shop.sqlite")
let router = Router()

router.get("health") { _, _ in "ok" }

router.post("products") { request, context -> EditedResponse<ProductInfo> in
    let input = try await request.decode(as: NewProduct.self, context: context)
    do {
        let saved = try await container.performBackgroundTask { context in
            let product = try input.insert(into: context)
            try context.save()
            return ProductInfo(product)          // a Sendable value leaves the context, not the object
        }
        return EditedResponse(status: .created, response: saved)
    } catch let error as ValidationError {
        throw HTTPError(.unprocessableContent, message: error.failures.map { "\($0.key ?? "?"): \($0.message)" }.joined(separator: "; "))
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
