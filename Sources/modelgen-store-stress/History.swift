// `modelgen-store-stress history DIR STORE [options]`: random concurrent transactions over a small key
// space, so they collide, by several OS processes at once (each running clients on background
// actors), some killed with SIGKILL at random moments and replaced. Every transaction's reads, writes
// and outcome go to DIR/history-<pid>.jsonl; the final state of the store to DIR/final.json.
// scripts/history-check.py reads them and finds the anomalies (`make history`).
//
// Transactions (Elle's list-append, and more):
//   read-list L        read a list's elements in order
//   append L E         append a unique element to an ordered to-many relationship
//   read K / write K V read a register, write a unique value (read first: a read-modify-write)
//   insert-token C     insert a token under a uniqueness constraint on its code
//   add-member G / remove-member G   members of a group under a `max` count of 3
//
// Options: --seconds S (10), --processes P (2), --clients C (3 per process), --policy NAME (error),
// --seed N (1), --kill (SIGKILL a random writer process now and then), --busy (SQLite: another
// connection holds the write lock now and then for longer than the clients' 200 ms busy timeout, so
// their saves fail with SQLiteStoreError.busy), --broken (skip the store's version check: a test-only
// mode whose runs the checker must fail).
import CSQLite
import Foundation
@_spi(Testing) import ModelgenRuntime
#if PostgreSQL
import ModelgenPostgres
#endif

let historyModel = try! ManagedObjectModel(name: "History", entities: [
    EntityDescription("List", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                      relationships: [RelationshipDescription("elements", destination: "Element", inverse: "list", toMany: true, ordered: true)],
                      unique: [["name"]]),
    EntityDescription("Element", class: ManagedObject.self, attributes: [AttributeDescription("value", .int64)],
                      relationships: [RelationshipDescription("list", destination: "List", inverse: "elements")]),
    EntityDescription("Register", class: ManagedObject.self, attributes: [AttributeDescription("name", .string), AttributeDescription("value", .int64)],
                      unique: [["name"]]),
    EntityDescription("Token", class: ManagedObject.self, attributes: [AttributeDescription("code", .int64), AttributeDescription("writer", .int64)],
                      unique: [["code"]]),
    EntityDescription("Group", class: ManagedObject.self, attributes: [AttributeDescription("name", .string)],
                      relationships: [RelationshipDescription("members", destination: "Member", inverse: "group", toMany: true, maxCount: 3)],
                      unique: [["name"]]),
    EntityDescription("Member", class: ManagedObject.self, attributes: [AttributeDescription("value", .int64)],
                      relationships: [RelationshipDescription("group", destination: "Group", inverse: "members")]),
])

let historyLists = 6, historyRegisters = 6, historyGroups = 3, historyTokenCodes: Int64 = 40

struct HistoryOptions {
    var directory: String
    var store: String
    var seconds = 10.0
    var processes = 2
    var clients = 3
    var policy = MergePolicy.error
    var policyName = "error"
    var seed: UInt64 = 1
    var kill = false
    var busy = false
    var broken = false

    init(_ arguments: [String]) {
        directory = arguments[0]
        store = arguments[1]
        var rest = arguments.dropFirst(2).makeIterator()
        while let flag = rest.next() {
            switch flag {
            case "--seconds": seconds = Double(rest.next() ?? "") ?? seconds
            case "--processes": processes = Int(rest.next() ?? "") ?? processes
            case "--clients": clients = Int(rest.next() ?? "") ?? clients
            case "--seed": seed = UInt64(rest.next() ?? "") ?? seed
            case "--kill": kill = true
            case "--broken": broken = true
            case "--busy": busy = true
            case "--policy":
                policyName = rest.next() ?? policyName
                policy = ["mergeByPropertyObjectTrump": .mergeByPropertyObjectTrump, "mergeByPropertyStoreTrump": .mergeByPropertyStoreTrump,
                          "overwrite": .overwrite, "rollback": .rollback][policyName] ?? .error
            default: break
            }
        }
    }

    /// The arguments of a client process that runs for `seconds`.
    func childArguments(seconds: Double) -> [String] {
        var arguments = [directory, store, "--seconds", String(seconds), "--clients", String(clients), "--policy", policyName, "--seed", String(seed)]
        if broken { arguments.append("--broken") }
        if busy { arguments.append("--busy") }
        return arguments
    }
}

func historyContainer(_ store: String, busyTimeout: Duration = .seconds(5)) throws -> ManagedContainer {
    #if PostgreSQL
    if store.hasPrefix("postgres") { return try ManagedContainer(model: historyModel, postgres: try PostgreSQLConfiguration(url: store)) }
    #endif
    let sqlite = try SQLiteStore(url: URL(fileURLWithPath: store), model: historyModel, configuration: SQLiteConfiguration(busyTimeout: busyTimeout))
    return ManagedContainer(model: historyModel, store: sqlite)
}

/// Holds the SQLite file's write lock now and then (`BEGIN IMMEDIATE`, 300 to 600 ms, `COMMIT`) until
/// `deadline`, as another program writing the file would: the clients' saves meanwhile fail busy.
func holdWriteLockNowAndThen(_ path: String, until deadline: Date, seed: UInt64) -> Thread {
    let thread = Thread {
        var random = SplitMix(seed: seed)
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { return }
        defer { sqlite3_close(db) }
        sqlite3_busy_timeout(db, 5_000)
        while Date() < deadline {
            usleep(UInt32.random(in: 400_000...1_500_000, using: &random))
            guard sqlite3_exec(db, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK else { continue }
            usleep(UInt32.random(in: 300_000...600_000, using: &random))
            sqlite3_exec(db, "COMMIT", nil, nil, nil)
        }
    }
    thread.start()
    return thread
}

/// One line of JSON per event, each written with one `write` (lines of one process never interleave,
/// and a killed process leaves whole lines).
final class HistoryLog: @unchecked Sendable {
    private let descriptor: Int32
    private let lock = NSLock()

    init(path: String) {
        descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    }

    func write(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        lock.lock()
        defer { lock.unlock() }
        (data + Data("\n".utf8)).withUnsafeBytes { _ = Foundation.write(descriptor, $0.baseAddress, $0.count) }
    }
}

/// One client process: `clients` loops of random transactions on background actors until the deadline.
func runHistoryClient(_ options: HistoryOptions) async throws {
    if options.broken { SQLiteStore.testingSkipsVersionCheck.store(true, ordering: .relaxed) }
    let container = try historyContainer(options.store, busyTimeout: options.busy ? .milliseconds(200) : .seconds(5))
    let process = Int64(getpid())
    let log = HistoryLog(path: "\(options.directory)/history-\(process).jsonl")
    let deadline = Date().addingTimeInterval(options.seconds)
    await withTaskGroup(of: Void.self) { group in
        for client in 0..<options.clients {
            group.addTask {
                var random = SplitMix(seed: options.seed &+ UInt64(process) &* 1_000_003 &+ UInt64(client))
                var number: Int64 = 0
                while Date() < deadline {
                    number += 1
                    let id = "\(process)-\(client)-\(number)"
                    // Unique across every process of the run: the process id and the transaction's number.
                    let unique = process << 24 | (Int64(client) << 20) | number
                    let seed = random.next()
                    _ = try? await container.performBackgroundTask { context in
                        var transactionRandom = SplitMix(seed: seed)
                        runTransaction(context, id: id, unique: unique, policy: options.policy, log: log, random: &transactionRandom)
                    }
                }
            }
        }
    }
}

/// A small deterministic generator (each client's own).
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

/// One transaction: reads, then writes, then a save; logged before the save (what it read and means to
/// write) and after it (the outcome). A process killed during the save leaves the first line alone.
func runTransaction(_ context: ManagedObjectContext, id: String, unique: Int64, policy: MergePolicy, log: HistoryLog,
                    random: inout SplitMix) {
    context.mergePolicy = policy
    var operations: [[Any]] = []
    let started = Date().timeIntervalSince1970
    do {
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            switch Int.random(in: 0..<10, using: &random) {
            case 0...2:
                let name = "L\(Int.random(in: 0..<historyLists, using: &random))"
                let list = try fetchOne(context, "List", name)
                let elements = try (list.value(forKey: "elements") as? [ManagedObject] ?? []).map { try $0.value(forKey: "value") as! Int64 }
                operations.append(["read-list", name, elements])
            case 3...5:
                let name = "L\(Int.random(in: 0..<historyLists, using: &random))"
                let list = try fetchOne(context, "List", name)
                let element = try context.insertObject(entityName: "Element")
                try element.setValue(unique * 8 + Int64(operations.count), forKey: "value")
                try element.setValue(list, forKey: "list")
                operations.append(["append", name, unique * 8 + Int64(operations.count)])
            case 6...7:
                let name = "K\(Int.random(in: 0..<historyRegisters, using: &random))"
                let register = try fetchOne(context, "Register", name)
                let read = try register.value(forKey: "value") as! Int64
                let written = unique * 8 + Int64(operations.count)
                try register.setValue(written, forKey: "value")
                operations.append(["read", name, read])
                operations.append(["write", name, written])
            case 8:
                let code = Int64.random(in: 0..<historyTokenCodes, using: &random)
                let token = try context.insertObject(entityName: "Token")
                try token.setValue(code, forKey: "code")
                try token.setValue(unique, forKey: "writer")
                operations.append(["insert-token", code, unique])
            default:
                let name = "G\(Int.random(in: 0..<historyGroups, using: &random))"
                let group = try fetchOne(context, "Group", name)
                let members = try members(of: group)
                if members.count >= 3 || (!members.isEmpty && Bool.random(using: &random)) {
                    let member = members.first!
                    operations.append(["remove-member", name, try member.value(forKey: "value") as! Int64])
                    context.delete(member)
                } else {
                    let member = try context.insertObject(entityName: "Member")
                    try member.setValue(unique * 8 + Int64(operations.count), forKey: "value")
                    try member.setValue(group, forKey: "group")
                    operations.append(["add-member", name, unique * 8 + Int64(operations.count)])
                }
            }
        }
    } catch {
        log.write(["id": id, "event": "skipped", "reason": "\(error)"])
        return
    }
    log.write(["id": id, "event": "begin", "start": started, "ops": operations])
    let outcome: String
    do {
        try context.save()
        outcome = "ok"
    } catch is MergeConflictError {
        outcome = "conflict"
    } catch is ValidationError {
        outcome = "invalid"
    } catch SQLiteStoreError.busy {
        outcome = "busy"
    } catch {
        outcome = "failed: \(error)"
    }
    log.write(["id": id, "event": "end", "end": Date().timeIntervalSince1970, "outcome": outcome])
}

/// A group's members, however the untyped relationship hands them out.
func members(of group: ManagedObject) throws -> [ManagedObject] {
    let value = try group.value(forKey: "members")
    if let set = value as? Set<ManagedObject> { return Array(set) }
    return value as? [ManagedObject] ?? []
}

func fetchOne(_ context: ManagedObjectContext, _ entity: String, _ name: String) throws -> ManagedObject {
    var request = FetchRequest<ManagedObject>(entityName: entity, predicate: try FetchPredicate("name == $N"))
    request.variables = ["N": name]
    guard let object = try context.fetch(request).first else { throw RuntimeError.invalidModel("no \(entity) \(name)") }
    return object
}

/// The run: seed the store, start the client processes (replacing killed ones), wait, write the final state.
func runHistory(_ options: HistoryOptions) throws -> Bool {
    try FileManager.default.createDirectory(atPath: options.directory, withIntermediateDirectories: true)
    if !options.store.hasPrefix("postgres") {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: options.store + suffix) }
    }
    do {
        let context = try historyContainer(options.store).newContext(observation: .unobserved)
        for i in 0..<historyLists { try context.insertObject(entityName: "List").setValue("L\(i)", forKey: "name") }
        for i in 0..<historyRegisters {
            let register = try context.insertObject(entityName: "Register")
            try register.setValue("K\(i)", forKey: "name")
            try register.setValue(Int64(0), forKey: "value")
        }
        for i in 0..<historyGroups { try context.insertObject(entityName: "Group").setValue("G\(i)", forKey: "name") }
        try context.save()
    }
    let deadline = Date().addingTimeInterval(options.seconds)
    func start(seconds: Double) throws -> Process {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        child.arguments = ["history-client"] + options.childArguments(seconds: max(0.5, seconds))
        try child.run()
        return child
    }
    var children = try (0..<options.processes).map { _ in try start(seconds: options.seconds) }
    let locker = options.busy && !options.store.hasPrefix("postgres") ? holdWriteLockNowAndThen(options.store, until: deadline, seed: options.seed) : nil
    var kills = 0, failures: [String] = []
    var random = SplitMix(seed: options.seed)
    /// A client process that ended by itself must have ended well (a crash is a finding, not a kill).
    func finished(_ child: Process) {
        child.waitUntilExit()
        if child.terminationStatus != 0 { failures.append("client process \(child.processIdentifier) ended with status \(child.terminationStatus) (\(child.terminationReason == .uncaughtSignal ? "signal" : "exit"))") }
    }
    while Date() < deadline {
        usleep(UInt32.random(in: 300_000...1_500_000, using: &random))
        for (index, child) in children.enumerated() where !child.isRunning && Date() < deadline {
            finished(child)
            children[index] = try start(seconds: deadline.timeIntervalSinceNow)
        }
        guard options.kill, Date().addingTimeInterval(1) < deadline else { continue }
        let victim = Int.random(in: 0..<children.count, using: &random)
        kill(children[victim].processIdentifier, SIGKILL)
        children[victim].waitUntilExit()
        kills += 1
        children[victim] = try start(seconds: deadline.timeIntervalSinceNow)
    }
    for child in children { finished(child) }
    while locker?.isFinished == false { usleep(50_000) }
    // The final state, read by a fresh container: every list in order, registers, tokens, group members.
    let context = try historyContainer(options.store).newContext(observation: .unobserved)
    var lists: [String: [Int64]] = [:], registers: [String: Int64] = [:], groups: [String: [Int64]] = [:]
    for list in try context.fetch(FetchRequest<ManagedObject>(entityName: "List")) {
        lists[try list.value(forKey: "name") as! String] = try (list.value(forKey: "elements") as? [ManagedObject] ?? []).map { try $0.value(forKey: "value") as! Int64 }
    }
    for register in try context.fetch(FetchRequest<ManagedObject>(entityName: "Register")) {
        registers[try register.value(forKey: "name") as! String] = try register.value(forKey: "value") as? Int64
    }
    for group in try context.fetch(FetchRequest<ManagedObject>(entityName: "Group")) {
        groups[try group.value(forKey: "name") as! String] = try members(of: group).map { try $0.value(forKey: "value") as! Int64 }.sorted()
    }
    let tokens = try context.fetch(FetchRequest<ManagedObject>(entityName: "Token")).map { [try $0.value(forKey: "code") as! Int64, try $0.value(forKey: "writer") as! Int64] }
    let final: [String: Any] = ["lists": lists, "registers": registers, "groups": groups, "tokens": tokens, "kills": kills, "busy": options.busy,
                                "policy": options.policyName, "broken": options.broken, "maxMembers": 3,
                                "store": options.store.hasPrefix("postgres") ? "postgresql" : "sqlite"]
    try JSONSerialization.data(withJSONObject: final, options: [.sortedKeys]).write(to: URL(fileURLWithPath: "\(options.directory)/final.json"))
    print("history: \(options.processes) processes × \(options.clients) clients, \(Int(options.seconds)) s, policy \(options.policyName), \(kills) kills\(options.busy ? ", write lock held now and then" : "")\(options.broken ? ", BROKEN store mode" : "")")
    for failure in failures { FileHandle.standardError.write(Data("error: \(failure)\n".utf8)) }
    return failures.isEmpty
}
