import Foundation
import FuzzSupport
import ModelgenRuntime

// Arbitrary bytes as a store file: opening and fetching either work or throw an error, never crash.
final class Note: ManagedObject {}

let model = try! ManagedObjectModel(name: "Fuzz", entities: [
    EntityDescription("Note", class: Note.self, attributes: [
        AttributeDescription("text", .string, optional: true), AttributeDescription("count", .int64, defaultValue: .int(0)),
        AttributeDescription("when", .date, optional: true), AttributeDescription("blob", .binary, optional: true),
    ]),
])
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-sqlite-\(getpid())")

/// `FUZZ_SQLITE_SEED=path`: writes a store of this model with a few notes to `path` (a seed for the
/// corpus) and exits.
@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    guard let path = ProcessInfo.processInfo.environment["FUZZ_SQLITE_SEED"] else { return 0 }
    do {
        let url = URL(fileURLWithPath: path)
        let container = ManagedContainer(model: model, store: try SQLiteStore(url: url, model: model))
        let context = container.newContext()
        for index in 0..<3 {
            let note = try context.insertObject(entityName: "Note")
            try note.setValue("note \(index)", forKey: "text")
            try note.setValue(Int64(index), forKey: "count")
            try note.setValue(Data([UInt8(index)]), forKey: "blob")
        }
        try context.save()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cannot write the seed store: \(error)\n".utf8))
        exit(1)
    }
}

@_cdecl("fuzz_sqlite_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    runFuzzer(argc, argv) { data, count in fuzzSQLite(data.map(UnsafeRawPointer.init) ?? UnsafeRawPointer(bitPattern: 1)!, count) }
}

func fuzzSQLite(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let url = directory.appendingPathComponent("store.sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    _ = FileManager.default.createFile(atPath: url.path, contents: bytes(start, count))
    do {
        let store = try SQLiteStore(url: url, model: model)
        let context = ManagedContainer(model: model, store: store).newContext()
        for note in try context.fetch(FetchRequest<Note>(entityName: "Note")) {
            _ = try note.value(forKey: "text")
            _ = try note.value(forKey: "blob")
        }
    } catch {}
    return 0
}
