// The same program on SQLite and on PostgreSQL: it fills a shop, asks it questions through the
// model's fetch request templates, breaks a rule or two, and prints what it saw, one line each.
// Given both stores it compares the two transcripts; given PostgreSQL, it also starts itself as a
// second process on the same database and waits for that process's save to arrive.
//
//   shop-check SQLITE_FILE [POSTGRES_URL]
//   shop-check --second STORE          (the second process: adds one product)
import Foundation
import ModelgenRuntime
import ShopModel

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--second", arguments.count == 2 {
    let container = try openShop(arguments[1])
    let context = container.newContext()
    try NewProduct(sku: "ZZZ-999", title: "From the other process", price: 1, categories: ["Tools"]).insert(into: context)
    try context.save()
    print("second process: saved ZZZ-999")
    exit(0)
}
guard !arguments.isEmpty else {
    print("usage: shop-check SQLITE_FILE [POSTGRES_URL]")
    exit(2)
}

/// Runs the scenario on a fresh store; every line is something a user would check.
func transcript(_ container: ManagedContainer) throws -> [String] {
    var lines: [String] = []
    let context = container.newContext()
    let acme = Supplier(context: context, name: "Acme", email: "sales@acme.example")
    _ = Supplier(context: context, name: "Ölfabrik", email: "info@oel.example")
    let ann = Customer(context: context, name: "Ann", email: "ann@example.com")
    ann.loyaltyPoints = 120
    _ = Customer(context: context, name: "Åsa", email: "asa@example.com")
    try context.save()
    for (sku, title, price, categories) in [("HAM-001", "Hammer", "12.50", ["Tools"]), ("SAW-002", "Saw", "24.99", ["Tools", "Garden"]),
                                            ("HOE-003", "Hoe", "8.00", ["Garden"]), ("OIL-004", "Oil", "3.333", ["Kitchen"])] {
        try NewProduct(sku: sku, title: title, price: Decimal(string: price)!, supplierEmail: sku == "OIL-004" ? "info@oel.example" : "sales@acme.example",
                       categories: categories).insert(into: context)
    }
    try context.save()

    let reader = container.newContext()
    func describe(_ products: [Product]) -> String {
        products.map { "\($0.sku) \($0.price) [\($0.categories.map(\.name).sorted().joined(separator: ","))] by \($0.supplier?.name ?? "-")" }
            .joined(separator: "; ")
    }
    lines.append("below 13: " + describe(try reader.fetch(ShopModel.productsBelow(price: 13))))
    lines.append("garden: " + describe(try reader.fetch(ShopModel.productsInCategory(name: "GARDEN"))))
    lines.append("parties A*: " + (try reader.fetch(ShopModel.partiesNamed(prefix: "a"))).map { "\($0.name) (\(type(of: $0)))" }.joined(separator: ", "))
    lines.append("customers: \(try reader.count(for: FetchRequest<Customer>(entityName: "Customer"))), parties: \(try reader.count(for: FetchRequest<Party>(entityName: "Party")))")
    let acmeRead = try reader.existingObject(with: acme.objectID, as: Supplier.self)
    lines.append("acme sells: " + acmeRead.products.map(\.sku).sorted().joined(separator: ", "))

    // Rules: a second product with a taken SKU, a customer with a taken email, deleting a supplier with products.
    let rules = container.newContext()
    try NewProduct(sku: "HAM-001", title: "Another hammer", price: 1).insert(into: rules)
    _ = Customer(context: rules, name: "Ann again", email: "ann@example.com")
    do {
        try rules.save()
        lines.append("duplicates: saved (wrong)")
    } catch let error as ValidationError {
        lines.append("duplicates: refused (" + error.failures.map { "\($0.key ?? "?")" }.sorted().joined(separator: ", ") + ")")
    }
    rules.rollback()
    rules.delete(try rules.existingObject(with: acme.objectID))
    do {
        try rules.save()
        lines.append("delete acme: deleted (wrong)")
    } catch is ValidationError {
        lines.append("delete acme: refused (it has products)")
    }
    rules.rollback()

    // An edit and a delete, then the state again.
    let editor = container.newContext()
    let saw = try editor.fetch(try FetchRequest<Product>(entityName: "Product", predicate: "sku == 'SAW-002'"))[0]
    saw.price = Decimal(string: "19.99")!
    saw.removeFromCategories(saw.categories.first { $0.name == "Tools" }!)
    editor.delete(try editor.fetch(try FetchRequest<Product>(entityName: "Product", predicate: "sku == 'HOE-003'"))[0])
    try editor.save()
    let after = container.newContext()
    lines.append("after edits: " + describe(try after.fetch(FetchRequest<Product>(entityName: "Product", sortDescriptors: [SortDescriptor("sku")]))))
    lines.append("tools: " + describe(try after.fetch(ShopModel.productsInCategory(name: "tools"))))
    return lines
}

let sqlitePath = arguments[0]
try? FileManager.default.removeItem(atPath: sqlitePath)
let sqliteLines = try transcript(try openShop(sqlitePath))
print("SQLite:")
for line in sqliteLines { print("  " + line) }
var ok = true
if arguments.count > 1 {
    var url = arguments[1]
    url += (url.contains("?") ? "&" : "?") + "schema=shop_check_\(getpid())"
    let container = try openShop(url)
    let postgresLines = try transcript(container)
    print("PostgreSQL:")
    for line in postgresLines { print("  " + line) }
    let same = postgresLines == sqliteLines
    print("same results on both stores: \(same)")
    ok = ok && same

    // A second process on the same database: its save reaches this one.
    container.watchOtherProcesses()
    let changes = container.changes
    let second = Process()
    second.executableURL = Bundle.main.executableURL
    second.arguments = ["--second", url]
    try second.run()
    let arrived = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            for await change in changes where !change.inserted.isEmpty { return true }
            return false
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(10))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    second.waitUntilExit()
    let reader = container.newContext()
    let seen = try reader.fetch(try FetchRequest<Product>(entityName: "Product", predicate: "sku == 'ZZZ-999'")).first
    print("the other process's save arrived: \(arrived), and reads back: \(seen?.title ?? "missing")")
    ok = ok && arrived && seen != nil
}
exit(ok ? 0 : 1)
