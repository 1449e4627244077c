// `modelgen-store-stress fields PATH`: two processes edit different attributes of the same
// items at once under `.mergeByPropertyObjectTrump`, each saving every item in every round, so their
// saves keep conflicting on the same records. This process writes `payload` while a second process
// (`fields-writer PATH`) writes `note`; each also adds one item per round under a shared batch. At the
// end every item must hold both processes' last edits, checked row by row, and the batch every item
// both added. Prints a summary and exits 0, or names the failures and exits 1. `make tsan` runs it.
import Foundation
import ModelgenRuntime

let fieldsItems = 100
let fieldsRounds = 30

/// One writer: `rounds` saves, each setting `key` of every item to "KEY ROUND" and adding an item
/// (index `base + round`) under the shared batch; a save that loses more races than the context
/// settles by itself is tried again. Returns the conflicts retried.
func writeField(_ container: ManagedContainer, key: String, base: Int64) throws -> Int {
    var retried = 0
    for round in 0..<fieldsRounds {
        while true {
            let context = container.newContext(observation: .unobserved)
            context.mergePolicy = .mergeByPropertyObjectTrump
            let items = try context.fetch(try FetchRequest<ManagedObject>(entityName: "Item", predicate: "index < \(fieldsItems)"))
            for item in items { try item.setValue("\(key) \(round)", forKey: key) }
            let batch = try context.fetch(FetchRequest<ManagedObject>(entityName: "Batch"))[0]
            let added = try context.insertObject(entityName: "Item")
            try added.setValue(base + Int64(round), forKey: "index")
            try added.setValue("added", forKey: "payload")
            try added.setValue(batch, forKey: "batch")
            do {
                try context.save()
                break
            } catch is MergeConflictError {
                retried += 1
            }
        }
        usleep(UInt32.random(in: 0...2_000))   // the two writers' saves interleave differently each round
    }
    return retried
}

func runFieldsChild(_ container: ManagedContainer) throws {
    // Both writers start together: this one says it is ready and waits for the first to say go.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    _ = readLine()
    let retried = try writeField(container, key: "note", base: 20_000)
    FileHandle.standardOutput.write(Data("retried \(retried)\n".utf8))
}

func runFields(_ container: ManagedContainer, path: String) throws -> Bool {
    let setup = container.newContext(observation: .unobserved)
    let batch = try setup.insertObject(entityName: "Batch")
    try batch.setValue(Int64(1), forKey: "number")
    for index in 0..<fieldsItems {
        let item = try setup.insertObject(entityName: "Item")
        try item.setValue(Int64(index), forKey: "index")
        try item.setValue("new", forKey: "payload")
        try item.setValue(batch, forKey: "batch")
    }
    try setup.save()

    let child = Process()
    child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    child.arguments = ["fields-writer", path]
    let output = Pipe(), input = Pipe()
    child.standardOutput = output
    child.standardInput = input
    try child.run()
    var ready = Data()
    while !ready.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        ready += chunk
    }
    input.fileHandleForWriting.write(Data("go\n".utf8))
    let retried = try writeField(container, key: "payload", base: 10_000)
    let childOutput = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    child.waitUntilExit()

    var failures: [String] = []
    if child.terminationStatus != 0 { failures.append("the second process exited with \(child.terminationStatus)") }
    let reader = container.newContext(observation: .unobserved)
    let items = try reader.fetch(try FetchRequest<ManagedObject>(entityName: "Item", predicate: "index < \(fieldsItems)",
                                                                 sortDescriptors: [SortDescriptor("index")]))
    if items.count != fieldsItems { failures.append("\(items.count) items, \(fieldsItems) expected") }
    for item in items {
        let payload = try item.value(forKey: "payload") as? String, note = try item.value(forKey: "note") as? String
        if payload != "payload \(fieldsRounds - 1)" || note != "note \(fieldsRounds - 1)" {
            failures.append("item \(try item.value(forKey: "index") as! Int64): payload \(payload ?? "nil"), note \(note ?? "nil")")
        }
    }
    let members = try reader.fetch(FetchRequest<ManagedObject>(entityName: "Batch"))[0].value(forKey: "items") as! [ManagedObject]
    if members.count != fieldsItems + 2 * fieldsRounds { failures.append("the batch holds \(members.count) items, \(fieldsItems + 2 * fieldsRounds) expected") }
    print("fields: 2 processes x \(fieldsRounds) rounds x \(fieldsItems) items, retried \(retried) + \(childOutput.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "retried ", with: "")), "
          + (failures.isEmpty ? "every item holds both edits, the batch every added item" : "\(failures.count) failures"))
    for failure in failures.prefix(10) { print("  FAIL \(failure)") }
    return failures.isEmpty
}
