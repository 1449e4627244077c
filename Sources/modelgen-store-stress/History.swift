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
// Change streams: each client process and the run itself follow `container.changes` and log what
// they hear; the checker holds that each heard every committed save once, in commit order.
//
// Options: --seconds S (10), --processes P (2), --clients C (3 per process), --policy NAME (error),
// --serializable (clients save with `SaveIsolation.serializable`), --seed N (1), --kill (SIGKILL a
// random writer process now and then), --busy (SQLite: another connection holds the write lock now
// and then for longer than the clients' busy timeout, so their saves fail with
// SQLiteStoreError.busy), --terminate (PostgreSQL: end the clients' server processes now and then
// with pg_terminate_backend, mid-transaction or idle), --restart COMMAND (run COMMAND, which
// restarts the server, now and then), --broken (skip the store's version check: a test-only mode
// whose runs the checker must fail).
import CSQLite
import Foundation
@_spi(Testing) import ModelgenRuntime
#if PostgreSQL
import ModelgenPostgres
import PostgresNIO
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
    var serializable = false
    var terminate = false
    var restart: String?

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
            case "--serializable": serializable = true
            case "--terminate": terminate = true
            case "--restart": restart = rest.next()
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
        if serializable { arguments.append("--serializable") }
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
    let listening = listen(to: container, log: log, process: process)
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
                        context.saveIsolation = options.serializable ? .serializable : .changedRecords
                        runTransaction(context, id: id, unique: unique, policy: options.policy, log: log, random: &transactionRandom)
                    }
                }
            }
        }
    }
    // The saves of the last moments reach the stream within the watcher's interval.
    try? await Task.sleep(for: .seconds(1))
    log.write(["event": "listen-end", "process": process, "time": Date().timeIntervalSince1970])
    listening.cancel()
}

/// Follows `container.changes` (this process's saves and, through the store's history, the others'),
/// logging the records each change set inserted, in the order heard.
func listen(to container: ManagedContainer, log: HistoryLog, process: Int64) -> Task<Void, Never> {
    let changes = container.changes
    container.watchOtherProcesses(every: .milliseconds(50))
    // The watcher's promise starts when the call returns (it has read the history's newest token):
    // a save committed before then, while the store's connections were still opening, is not heard.
    log.write(["event": "listen-start", "process": process, "time": Date().timeIntervalSince1970])
    return Task.detached {
        for await change in changes {
            log.write(["event": "heard", "process": process, "inserted": change.inserted.map(\.description), "time": Date().timeIntervalSince1970])
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
    var insertedObjects: [ManagedObject] = []
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
                insertedObjects.append(element)
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
                insertedObjects.append(token)
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
                    insertedObjects.append(member)
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
    } catch is ReadConflictError {
        outcome = "conflict"
    } catch is ValidationError {
        outcome = "invalid"
    } catch SQLiteStoreError.busy {
        outcome = "busy"
    } catch {
        outcome = lostConnection(error) ? "unknown: \(error)" : "failed: \(error)"
    }
    var end: [String: Any] = ["id": id, "event": "end", "end": Date().timeIntervalSince1970, "outcome": outcome]
    if outcome == "ok" { end["inserted"] = insertedObjects.map(\.objectID.description) }
    log.write(end)
}

/// True when a save failed because its connection to the server went away: whether its COMMIT took
/// effect is unknown (the checker holds that it applied whole or not at all).
func lostConnection(_ error: any Error) -> Bool {
    #if PostgreSQL
    switch error as? PostgreSQLStoreError {
    case .connection: return true
    // admin_shutdown, crash_shutdown, cannot_connect_now, connection exceptions (08…)
    case .server(let state, _, _): return ["57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
    default: return false
    }
    #else
    return false
    #endif
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
    for file in try FileManager.default.contentsOfDirectory(atPath: options.directory) where file.hasPrefix("history-") || file == "final.json" {
        try FileManager.default.removeItem(atPath: options.directory + "/" + file)
    }
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
    // The run's own follower: it saves nothing, so it hears every save through the store's history.
    let follower = try historyContainer(options.store)
    let seedToken = try follower.history().last?.token
    let heard = HeardChanges()
    let following = Task.detached { [changes = follower.changes] in
        for await change in changes { heard.append(change) }
    }
    follower.watchOtherProcesses(every: .milliseconds(50))
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
    var kills = 0, terminations = 0, restarts = 0, failures: [String] = []
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
        guard Date().addingTimeInterval(1) < deadline else { continue }
        let fault = Int.random(in: 0..<6, using: &random)
        if options.kill && fault < 3 {
            let victim = Int.random(in: 0..<children.count, using: &random)
            kill(children[victim].processIdentifier, SIGKILL)
            children[victim].waitUntilExit()
            kills += 1
            children[victim] = try start(seconds: deadline.timeIntervalSinceNow)
        } else if options.terminate && fault < 5 {
            terminations += terminateClientBackends(options.store)
        } else if let restart = options.restart, fault == 5 {
            let status = runShell(restart)
            if status != 0 { failures.append("the restart command failed with status \(status)") }
            restarts += 1
        }
    }
    for child in children { finished(child) }
    while locker?.isFinished == false { usleep(50_000) }
    // Every save is in the history now: the follower has heard them all within a few intervals.
    let history = try follower.history(after: seedToken)
    let caughtUp = Date().addingTimeInterval(10)
    while heard.count < history.count && Date() < caughtUp { usleep(50_000) }
    following.cancel()
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
                                "isolation": options.serializable ? "serializable" : "changedRecords",
                                "terminations": terminations, "restarts": restarts,
                                "history": history.map { $0.changes.fingerprint }, "heard": heard.all.map(\.fingerprint),
                                "historyInserted": history.map { $0.changes.inserted.map(\.description) },
                                "store": options.store.hasPrefix("postgres") ? "postgresql" : "sqlite"]
    try JSONSerialization.data(withJSONObject: final, options: [.sortedKeys]).write(to: URL(fileURLWithPath: "\(options.directory)/final.json"))
    print("history: \(options.processes) processes × \(options.clients) clients, \(Int(options.seconds)) s, policy \(options.policyName)\(options.serializable ? ", serializable saves" : ""), \(kills) kills"
          + (options.terminate ? ", \(terminations) server processes terminated" : "") + (options.restart != nil ? ", \(restarts) server restarts" : "")
          + "\(options.busy ? ", write lock held now and then" : "")\(options.broken ? ", BROKEN store mode" : "")")
    for failure in failures { FileHandle.standardError.write(Data("error: \(failure)\n".utf8)) }
    return failures.isEmpty
}

/// Runs a shell command and waits for it (`posix_spawn` and `waitpid`: Foundation's `Process` can miss
/// the end of a short-lived child); returns its exit status.
func runShell(_ command: String) -> Int32 {
    var pid: pid_t = 0
    let arguments = ["/bin/sh", "-c", command]
    var argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
    return status == 0 ? 0 : max(1, status >> 8)
}

/// The change sets the run's follower heard, in order.
final class HeardChanges: @unchecked Sendable {
    // @unchecked: `changes` is used under `lock` only.
    private let lock = NSLock()
    private var changes: [ChangeSet] = []

    func append(_ change: ChangeSet) { lock.withLock { changes.append(change) } }
    var count: Int { lock.withLock { changes.count } }
    var all: [ChangeSet] { lock.withLock { changes } }
}

extension ChangeSet {
    /// The change set as one comparable string: inserted, updated (with keys) and deleted records, sorted.
    var fingerprint: String {
        let updates = updated.map { "\($0.key)\($0.value.sorted())" }.sorted()
        return "+\(inserted.map(\.description).sorted()) ~\(updates) -\(deleted.map(\.description).sorted())"
    }
}

/// Ends every server process of the run's clients (all but this one's), whatever each is doing, with
/// `pg_terminate_backend`; returns how many it ended.
func terminateClientBackends(_ store: String) -> Int {
    #if PostgreSQL
    guard store.hasPrefix("postgres"), let configuration = try? PostgreSQLConfiguration(url: store),
          let connection = try? PostgresConnection.connect(on: PostgresClient.defaultEventLoopGroup.any(), configuration: configuration.connection,
                                                           id: 0, logger: Logger(label: "history")).wait() else { return 0 }
    defer { try? connection.close().wait() }
    let sql: PostgresQuery = "SELECT count(pg_terminate_backend(pid))::int8 FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
    guard let rows = try? connection.query(sql, logger: Logger(label: "history")).wait().rows, let count = try? rows.first?.decode(Int64.self) else { return 0 }
    return Int(count)
    #else
    return 0
    #endif
}
