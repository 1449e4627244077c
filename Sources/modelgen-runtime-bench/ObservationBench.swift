// The observation section of `make bench`: ModelgenRuntime's reads and writes in observable and
// unobserved contexts beside their floors (a plain stored property, bare ObservationRegistrar calls)
// and their peer (an @Observable class with the same fields), all in one run; then bytes per object.
import Foundation
import ModelgenRuntime
import Observation

/// The peer: Swift's @Observable macro over the same ten fields as `Item`.
@Observable final class ObservableItem {
    var name = "hello world"
    var count: Int64 = 0
    var price = 0.0
    var flag = false
    var createdAt = Date()
    var note: String?
    var a: Int64 = 0
    var b: Int64 = 0
    var c = 0.0
    var d = ""
}

/// The floor: what any Observation-compatible property must call, on a class with one registrar.
final class RegistrarFloor: Observable {
    let registrar = ObservationRegistrar()
    var count: Int64 = 0
}

@inline(never) func readObservable(_ items: [ObservableItem], _ n: Int) -> Int64 {
    var sum: Int64 = 0
    for i in 0..<n { sum &+= items[i & 1023].count }
    return sum
}
@inline(never) func writeObservable(_ items: [ObservableItem], _ n: Int) {
    for i in 0..<n { items[i & 1023].count = Int64(truncatingIfNeeded: i) }
}
@inline(never) func bareAccess(_ floors: [RegistrarFloor], _ n: Int) -> Int64 {
    let keyPath = \RegistrarFloor.count
    var sum: Int64 = 0
    for i in 0..<n {
        let floor = floors[i & 1023]
        floor.registrar.access(floor, keyPath: keyPath)
        sum &+= floor.count
    }
    return sum
}
@inline(never) func bareWithMutation(_ floors: [RegistrarFloor], _ n: Int) {
    let keyPath = \RegistrarFloor.count
    for i in 0..<n {
        let floor = floors[i & 1023]
        floor.registrar.withMutation(of: floor, keyPath: keyPath) { floor.count = Int64(truncatingIfNeeded: i) }
    }
}

/// Resident bytes of this process.
func residentBytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = statm.split(separator: " ")
    return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

/// The kinds of object `object-bytes` measures, with their labels.
let objectByteKinds: [(kind: String, label: String)] = [
    ("plain", "plain class, 2 stored properties"),
    ("observable-unread", "@Observable class, 10 fields, never read under tracking"),
    ("observable-read", "@Observable class, 10 fields, read under tracking"),
    ("managed-unread", "Item (10 attributes), observable context, read without tracking"),
    ("managed-read", "Item, observable context, every object read under tracking"),
    ("managed-unobserved", "Item, .unobserved context, read under tracking"),
]

/// The child process of the memory rows: makes 100,000 objects of one kind in a fresh process and
/// prints the resident bytes they added per object (the managed kinds include the context's registry).
func printObjectBytes(kind: String) throws {
    let objects = 100_000
    let container = try ManagedContainer(model: model, store: .inMemory)
    var keep: [AnyObject] = []
    keep.reserveCapacity(objects + 1)
    var sum: Int64 = 0
    let before = residentBytes()
    switch kind {
    case "plain":
        for _ in 0..<objects { keep.append(PlainItem()) }
    case "observable-unread", "observable-read":
        let peers = (0..<objects).map { _ in ObservableItem() }
        if kind == "observable-read" { withObservationTracking { for p in peers { sum &+= p.count } } onChange: {} }
        keep = peers
    default:
        let context = container.newContext(observation: kind == "managed-unobserved" ? .unobserved : .observable)
        context.isUndoEnabled = false
        let items: [Item] = (0..<objects).map { _ in
            let item = Item(context: context)
            item.name = "hello world"
            return item
        }
        if kind == "managed-unread" {
            for item in items { sum &+= item.count }
        } else {
            withObservationTracking { for item in items { sum &+= item.count } } onChange: {}
        }
        keep = [context] + items
    }
    let after = residentBytes()
    let label = objectByteKinds.first { $0.kind == kind }?.label ?? kind
    print("  " + label.padding(toLength: 68, withPad: " ", startingAt: 0) + String(format: "%6.0f", Double(after - before) / Double(objects)))
    withExtendedLifetime((keep, sum)) {}
}

@MainActor func runObservationBench() throws {
    let n = 10_000_000
    let observableContext = container.newContext()
    let unobservedContext = container.newContext(observation: .unobserved)
    let unwatched = makeItems(observableContext)        // observable context, never read under tracking
    let watched = makeItems(observableContext)          // observable context, read under tracking (registrar made)
    withObservationTracking { for item in watched { _ = item.count } } onChange: {}
    let quiet = makeItems(unobservedContext)
    try observableContext.save()
    try unobservedContext.save()
    for item in unwatched + watched + quiet { item.count = 1 }   // registered as changed: later writes take the fast path
    let peers = (0..<1024).map { _ in ObservableItem() }
    let floors = (0..<1024).map { _ in RegistrarFloor() }

    print("observation (\(n / 1_000_000)M operations, release, median of 5 runs), Int64 property")
    print("                                                       read        write")
    func row(_ label: String, _ read: Double, _ write: Double) {
        print("  " + label.padding(toLength: 50, withPad: " ", startingAt: 0) + String(format: "%6.2f ns   %6.2f ns", read, write))
    }
    // Alternate the rows' measurements within one run, floors first.
    row("plain stored property", nsPerOp(n) { sink &+= readPlain(plains, n) }, nsPerOp(n) { writePlain(plains, n) })
    row("bare ObservationRegistrar access / withMutation", nsPerOp(n) { sink &+= bareAccess(floors, n) }, nsPerOp(n) { bareWithMutation(floors, n) })
    row("@Observable class (Swift's macro)", nsPerOp(n) { sink &+= readObservable(peers, n) }, nsPerOp(n) { writeObservable(peers, n) })
    row("@Managed, observable context, never observed", nsPerOp(n) { sink &+= readManaged(unwatched, n) }, nsPerOp(n) { writeManaged(unwatched, n) })
    row("@Managed, observable context, observed", nsPerOp(n) { sink &+= readManaged(watched, n) }, nsPerOp(n) { writeManaged(watched, n) })
    let quietRead = nsPerOp(n) { sink &+= readManaged(quiet, n) }, quietWrite = nsPerOp(n) { writeManaged(quiet, n) }
    row("@Managed, .unobserved context", quietRead, quietWrite)
    checkGoal("@Managed read, .unobserved context", figure: quietRead, goal: 5, unit: " ns")
    checkGoal("@Managed write, .unobserved context", figure: quietWrite, goal: 25, unit: " ns")
    row("accessor form, observable context, never observed", nsPerOp(n) { sink &+= readAccessor(unwatched, n) }, nsPerOp(n) { writeAccessor(unwatched, n) })
    print("  goals: observable context read <= bare access + 2 ns, write <= bare withMutation + 10 ns;")
    print("         .unobserved context read <= 5 ns, write <= 25 ns")

    // Bytes per object: each kind in a fresh child process (resident memory grows only with what it makes).
    print("bytes per object (100,000 objects, resident memory added, each in a fresh process)")
    for (kind, _) in objectByteKinds { _ = try runSelf(["object-bytes", kind]) }
    print("  goal: objects never read under observation pay <= 8 bytes for it (one optional registrar reference)")
}
