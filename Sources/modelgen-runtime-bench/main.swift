// `make bench`: ModelgenRuntime costs in a release build, beside plain Swift in the same run.
import Foundation
import ModelgenRuntime

final class Item: ManagedObject {
    @Managed(slot: 0) var name: String
    @Managed(slot: 1) var count: Int64
    @Managed(slot: 2) var price: Double
    @Managed(slot: 3) var flag: Bool
    @Managed(slot: 4) var createdAt: Date
    @Managed(slot: 5) var note: String?
    @Managed(slot: 6) var a: Int64
    @Managed(slot: 7) var b: Int64
    @Managed(slot: 8) var c: Double
    @Managed(slot: 9) var d: String
}

extension Item {
    /// The accessor form extension-mode code uses.
    var countAccessor: Int64 {
        get { managedValue(at: 1) }
        set { setManagedValue(newValue, at: 1) }
    }
}

/// The same shape as plain stored properties.
final class PlainItem {
    var name = ""
    var count: Int64 = 0
}

let model = try ManagedObjectModel(name: "Bench", entities: [
    EntityDescription("Item", class: Item.self, attributes: [
        AttributeDescription("name", .string), AttributeDescription("count", .int64, defaultValue: .int(0)),
        AttributeDescription("price", .double, defaultValue: .double(0)), AttributeDescription("flag", .bool, defaultValue: .bool(false)),
        AttributeDescription("createdAt", .date), AttributeDescription("note", .string, optional: true),
        AttributeDescription("a", .int64, defaultValue: .int(0)), AttributeDescription("b", .int64, defaultValue: .int(0)),
        AttributeDescription("c", .double, defaultValue: .double(0)), AttributeDescription("d", .string),
    ]),
])

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

// Each loop rotates over 1,024 objects so the optimizer cannot hoist the access out of the loop.
@inline(never) func readManaged(_ items: [Item], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].count }
    return sum
}
@inline(never) func readAccessor(_ items: [Item], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].countAccessor }
    return sum
}
@inline(never) func readPlain(_ items: [PlainItem], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].count }
    return sum
}
@inline(never) func readManagedString(_ items: [Item], _ n: Int) -> Int {
    var sum = 0
    for i in 0..<n { sum &+= items[i & 1023].name.utf8.count }
    return sum
}
@inline(never) func readPlainString(_ items: [PlainItem], _ n: Int) -> Int {
    var sum = 0
    for i in 0..<n { sum &+= items[i & 1023].name.utf8.count }
    return sum
}
@inline(never) func writeManaged(_ items: [Item], _ n: Int) {
    for i in 0..<n { items[i & 1023].count = Int64(truncatingIfNeeded: i) }
}
@inline(never) func writeAccessor(_ items: [Item], _ n: Int) {
    for i in 0..<n { items[i & 1023].countAccessor = Int64(truncatingIfNeeded: i) }
}
@inline(never) func writePlain(_ items: [PlainItem], _ n: Int) {
    for i in 0..<n { items[i & 1023].count = Int64(truncatingIfNeeded: i) }
}

func nsPerOp(_ n: Int, _ body: () -> Void) -> Double {
    var samples: [Double] = []
    for _ in 0..<5 {
        let start = now()
        body()
        samples.append(Double(now() - start) / Double(n))
    }
    return median(samples)
}

let container = try ManagedContainer(model: model, store: .inMemory)
let context = container.newContext()
let items: [Item] = (0..<1024).map { _ in
    let item = Item(context: context)
    item.name = "hello world"
    item.d = ""
    item.createdAt = Date()
    return item
}
try context.save()
for item in items { item.count = 1 }   // tracked: registered as changed; later writes take the fast path
let plains: [PlainItem] = (0..<1024).map { _ in
    let plain = PlainItem()
    plain.name = "hello world"
    return plain
}

let n = 10_000_000
var sink: Int64 = 0
print("ModelgenRuntime, release build, median of 5 runs")
print("property access (\(n / 1_000_000)M operations)          @Managed     plain stored property")
let r1 = nsPerOp(n) { sink &+= readManaged(items, n) }
let r2 = nsPerOp(n) { sink &+= readPlain(plains, n) }
let r1a = nsPerOp(n) { sink &+= readAccessor(items, n) }
print(String(format: "  read Int64                           %6.2f ns    %6.2f ns   (accessor form %.2f ns)", r1, r2, r1a))
let r3 = nsPerOp(n) { sink &+= Int64(readManagedString(items, n)) }
let r4 = nsPerOp(n) { sink &+= Int64(readPlainString(plains, n)) }
print(String(format: "  read String                          %6.2f ns    %6.2f ns", r3, r4))
let w1 = nsPerOp(n) { writeManaged(items, n) }
let w2 = nsPerOp(n) { writePlain(plains, n) }
let w1a = nsPerOp(n) { writeAccessor(items, n) }
print(String(format: "  write Int64 (change tracking on)     %6.2f ns    %6.2f ns   (accessor form %.2f ns)", w1, w2, w1a))
print("  goals: read <= 5 ns, write <= 25 ns")

// Insert + save of 100,000 objects with 10 attributes, in a fresh container.
let count = 100_000
var insertTimes: [Double] = [], fetchTimes: [Double] = []
var matched = 0
for _ in 0..<3 {
    let c = try ManagedContainer(model: model, store: .inMemory)
    let ctx = c.newContext()
    ctx.isUndoEnabled = false
    let start = now()
    for i in 0..<count {
        let o = Item(context: ctx)
        o.name = "item \(i)"
        o.count = Int64(i)
        o.price = Double(i) * 0.5
        o.flag = i % 2 == 0
        o.createdAt = Date(timeIntervalSinceReferenceDate: Double(i))
        o.a = Int64(i); o.b = Int64(i * 2); o.c = Double(i); o.d = "d"
    }
    try ctx.save()
    insertTimes.append(Double(now() - start) / 1e6)

    let reader = c.newContext()
    let request = try FetchRequest<Item>(entityName: "Item", predicate: "count >= $MIN AND flag == TRUE AND name BEGINSWITH 'item 9'",
                                         variables: ["MIN": 50_000])
    let fetchStart = now()
    matched = try reader.fetch(request).count
    fetchTimes.append(Double(now() - fetchStart) / 1e6)
}
print("in-memory store, \(count) objects with 10 attributes")
print(String(format: "  insert + save                        %8.1f ms", median(insertTimes)))
print(String(format: "  fetch with a predicate (new context) %8.1f ms  (%d matches)", median(fetchTimes), matched))
if sink == 42 { print("") }
