import CSQLite
import Foundation
import TestScratch
import ModelgenRuntime
import SQLiteFaultInjection
import Testing

/// The SQLite store under storage faults (issue 22): a full disk, read-only files and directories,
/// damaged, truncated, foreign and newer stores. Each is refused with an error naming the file and the
/// cause; nothing acknowledged is lost and no refused file is changed.
@Suite(.serialized) struct StorageFaultTests {
    /// A store with `batches` saved batches of 20 items, closed (every file released) before returning.
    private func writeStore(at url: URL, batches: Int, model: ManagedObjectModel = stressModel, configuration: SQLiteConfiguration = SQLiteConfiguration()) throws {
        let container = ManagedContainer(model: model, store: try SQLiteStore(url: url, model: model, configuration: configuration))
        let context = container.newContext()
        for number in 0..<batches { try insertBatch(context, number: Int64(number), items: 20, payload: 100) }
        try context.save()
    }

    private func insertBatch(_ context: ManagedObjectContext, number: Int64, items: Int, payload: Int) throws {
        let batch = try context.insertObject(entityName: "Batch")
        try batch.setValue(number, forKey: "number")
        for index in 0..<items {
            let item = try context.insertObject(entityName: "Item")
            try item.setValue(Int64(index), forKey: "index")
            try item.setValue(String(repeating: "p", count: payload), forKey: "payload")
            try item.setValue(batch, forKey: "batch")
        }
    }

    private func count(_ url: URL, _ entity: String = "Batch", configuration: SQLiteConfiguration = SQLiteConfiguration()) throws -> Int {
        let container = ManagedContainer(model: stressModel, store: try SQLiteStore(url: url, model: stressModel, configuration: configuration))
        return try container.newContext().count(for: FetchRequest<ManagedObject>(entityName: entity))
    }

    /// The store error `body` throws (a failure when it throws another error or none).
    private func storeError(_ body: () throws -> Void) -> SQLiteStoreError? {
        do {
            try body()
            Issue.record("expected a SQLiteStoreError, nothing was thrown")
        } catch let error as SQLiteStoreError {
            return error
        } catch {
            Issue.record("expected a SQLiteStoreError, got \(error)")
        }
        return nil
    }

    // MARK: Disk full

    /// The disk fills in the middle of a save (a VFS refuses writes beyond a budget with SQLITE_FULL, as
    /// SQLite reports ENOSPC): the save throws `.diskFull` naming the file, the store keeps exactly its
    /// last good state, the context keeps every unsaved change, and the same save succeeds once there is
    /// space again; a later process (the default VFS) reads everything.
    @Test func aFullDiskFailsTheSaveKeepsTheChangesAndTheSameSaveSucceedsLater() throws {
        #expect(mg_fault_vfs_register() == SQLITE_OK)
        defer { mg_fault_vfs_set_space(-1) }
        let url = try temporaryDirectory().appendingPathComponent("full.sqlite")
        let faulty = SQLiteConfiguration(vfs: MG_FAULT_VFS_NAME)
        let container = ManagedContainer(model: stressModel, store: try SQLiteStore(url: url, model: stressModel, configuration: faulty))
        let context = container.newContext()
        try insertBatch(context, number: 1, items: 10, payload: 100)
        try context.save()

        for space in [0, 4096, 60_000] {   // nothing, one page, part of the transaction
            try insertBatch(context, number: 2, items: 200, payload: 1500)   // about 300 KB
            mg_fault_vfs_set_space(Int64(space))
            let refusedBefore = mg_fault_vfs_refused_writes()
            let error = storeError { try context.save() }
            #expect(mg_fault_vfs_refused_writes() > refusedBefore)
            guard case .diskFull(let path, _)? = error else { Issue.record("expected .diskFull, got \(String(describing: error))"); return }
            #expect(path == url.path)
            #expect(String(describing: error!).contains("the disk is full; nothing was written"))
            #expect(context.insertedObjects.count == 201, "the context keeps its unsaved changes")
            mg_fault_vfs_set_space(-1)
            let other = container.newContext()
            #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Batch")) == 1, "the store kept its last good state")
            #expect(try other.count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 10)
            context.rollback()
        }

        try insertBatch(context, number: 2, items: 200, payload: 1500)
        mg_fault_vfs_set_space(2000)
        #expect(storeError { try context.save() } != nil)
        mg_fault_vfs_set_space(-1)   // space returns
        try context.save()
        #expect(!context.hasChanges)
        #expect(try count(url) == 2)
        #expect(try count(url, "Item") == 210)
    }

    // MARK: Read-only files and directories

    /// `SQLiteConfiguration(readOnly: true)` reads a store and refuses every save by name; nothing is written.
    @Test func aStoreOpenedReadOnlyReadsAndRefusesSaves() throws {
        let url = try temporaryDirectory().appendingPathComponent("ro.sqlite")
        try writeStore(at: url, batches: 3)
        let before = try Data(contentsOf: url)
        let container = ManagedContainer(model: stressModel, store: try SQLiteStore(url: url, model: stressModel, configuration: SQLiteConfiguration(readOnly: true)))
        let context = container.newContext()
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Batch")) == 3)
        try insertBatch(context, number: 9, items: 1, payload: 1)
        let error = storeError { try context.save() }
        guard case .readOnly(let path, _)? = error else { Issue.record("expected .readOnly, got \(String(describing: error))"); return }
        #expect(path == url.path)
        #expect(context.hasChanges)
        #expect(try Data(contentsOf: url) == before)

        let missing = url.deletingLastPathComponent().appendingPathComponent("missing.sqlite")
        guard case .cannotOpen(let missingPath, _)? = storeError({ _ = try SQLiteStore(url: missing, model: stressModel, configuration: SQLiteConfiguration(readOnly: true)) }) else {
            Issue.record("a missing file opened read-only is not created"); return
        }
        #expect(missingPath == missing.path)
        #expect(!FileManager.default.fileExists(atPath: missing.path))
    }

    /// As a user the permissions bind (the helper drops root to nobody): a read-only file, and a
    /// writable file in a read-only directory (no room for -wal and -shm), are refused for writing when
    /// opened, by name and cause; opened read-only, both are read, and saves are refused; the file is unchanged.
    @Test func readOnlyFilesAndDirectoriesAreRefusedForWritingAndReadReadOnly() throws {
        let directory = try temporaryDirectory()
        let url = directory.appendingPathComponent("store.sqlite")
        try writeStore(at: url, batches: 2)
        let before = try Data(contentsOf: url)

        // A file nobody may write, in a directory everyone may write.
        chmod(directory.path, 0o777)
        chmod(url.path, 0o444)
        var output = try runStress(["open", url.path, "rw"])
        #expect(output.hasPrefix("open failed: \(url.path): the store is read-only: the file is not writable"), "\(output)")
        output = try runStress(["open", url.path, "ro"])
        #expect(output.hasPrefix("opened batches=2\nsave failed: \(url.path): the store is read-only: it was opened read-only"), "\(output)")

        // A writable file in a directory nobody may write.
        chmod(url.path, 0o666)
        chmod(directory.path, 0o555)
        output = try runStress(["open", url.path, "rw"])
        #expect(output.hasPrefix("open failed: \(url.path): the store is read-only: its directory is not writable"), "\(output)")
        output = try runStress(["open", url.path, "ro"])
        #expect(output.hasPrefix("opened batches=2\nsave failed:"), "\(output)")

        chmod(directory.path, 0o755)
        #expect(try Data(contentsOf: url) == before)
        #expect(try count(url) == 2)
    }

    // MARK: Damaged, foreign and newer files

    /// A text file, random bytes and a file of another SQLite application are refused by name and cause
    /// and left as they were.
    @Test func filesThatAreNotModelgenStoresAreRefusedAndLeftAlone() throws {
        let directory = try temporaryDirectory()
        var random = SystemRandomNumberGenerator()
        let text = Data("name,age\nAda,36\n".utf8)
        let noise = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &random) })
        for (name, bytes) in [("notes.txt", text), ("noise.bin", noise)] {
            let url = directory.appendingPathComponent(name)
            try bytes.write(to: url)
            let error = storeError { _ = try SQLiteStore(url: url, model: stressModel) }
            guard case .notAStore(let path, let reason)? = error else { Issue.record("\(name): expected .notAStore, got \(String(describing: error))"); continue }
            #expect(path == url.path)
            #expect(reason.contains("not a SQLite database"), "\(reason)")
            #expect(try Data(contentsOf: url) == bytes, "\(name) was changed")
        }

        let foreign = directory.appendingPathComponent("foreign.sqlite")
        var handle: OpaquePointer?
        sqlite3_open(foreign.path, &handle)
        sqlite3_exec(handle, "CREATE TABLE contacts (name TEXT); INSERT INTO contacts VALUES ('Ada')", nil, nil, nil)
        sqlite3_close(handle)
        let bytes = try Data(contentsOf: foreign)
        guard case .notAStore(let path, let reason)? = storeError({ _ = try SQLiteStore(url: foreign, model: stressModel) }) else {
            Issue.record("another application's database is not refused"); return
        }
        #expect(path == foreign.path)
        #expect(reason.contains("contacts"))
        #expect(try Data(contentsOf: foreign) == bytes)
    }

    /// Damaged pages and a truncated copy are refused with `.corrupted` naming the file, at opening,
    /// and nothing is written to them.
    @Test func damagedAndTruncatedStoresAreRefusedByNameAndNotChanged() throws {
        let directory = try temporaryDirectory()
        let original = directory.appendingPathComponent("good.sqlite")
        try writeStore(at: original, batches: 50)
        let good = try Data(contentsOf: original)
        let pageSize = Int(good[16]) << 8 | Int(good[17])
        #expect(good.count > 8 * pageSize)

        var damaged = good
        for offset in stride(from: pageSize, to: good.count, by: 7) { damaged[offset] ^= 0x5A }   // every page but the first
        let truncated = good.prefix(good.count / 2)
        for (name, bytes, cause) in [("damaged.sqlite", damaged, "malformed"), ("truncated.sqlite", Data(truncated), "truncated")] {
            let url = directory.appendingPathComponent(name)
            try bytes.write(to: url)
            let error = storeError {
                let container = ManagedContainer(model: stressModel, store: try SQLiteStore(url: url, model: stressModel))
                _ = try container.newContext().fetch(FetchRequest<ManagedObject>(entityName: "Item"))
            }
            guard case .corrupted(let path, let reason)? = error else { Issue.record("\(name): expected .corrupted, got \(String(describing: error))"); continue }
            #expect(path == url.path)
            #expect(reason.contains(cause), "\(reason)")
            #expect(String(describing: error!).hasSuffix("it was not changed"))
            #expect(try Data(contentsOf: url) == bytes, "\(name) was changed")
        }
    }

    /// A store written by a newer model (an entity and an attribute this model lacks) is refused with
    /// what this model would lose, not migrated (the newer data stays); a store of a newer store format
    /// is refused by its format number. Neither file changes.
    @Test func storesOfANewerModelOrFormatAreRefusedAndNotChanged() throws {
        final class Tag: ManagedObject {}
        let newer = try ManagedObjectModel(name: "Stress", entities: [
            EntityDescription("Batch", class: StressBatch.self, attributes: [AttributeDescription("number", .int64)],
                              relationships: [RelationshipDescription("items", destination: "Item", inverse: "batch", toMany: true, deleteRule: .cascade)]),
            EntityDescription("Item", class: StressItem.self,
                              attributes: [AttributeDescription("index", .int64), AttributeDescription("payload", .string),
                                           AttributeDescription("note", .string, optional: true), AttributeDescription("weight", .double, optional: true)],
                              relationships: [RelationshipDescription("batch", destination: "Batch", inverse: "items")]),
            EntityDescription("Counter", class: StressCounter.self, attributes: [AttributeDescription("value", .int64)]),
            EntityDescription("Tag", class: Tag.self, attributes: [AttributeDescription("name", .string)]),
        ])
        let url = try temporaryDirectory().appendingPathComponent("newer.sqlite")
        try writeStore(at: url, batches: 2, model: newer)
        var bytes = try Data(contentsOf: url)
        let error = storeError { _ = try SQLiteStore(url: url, model: stressModel) }
        guard case .incompatibleModel(let path, let problems)? = error else { Issue.record("expected .incompatibleModel, got \(String(describing: error))"); return }
        #expect(path == url.path)
        #expect(problems.contains { $0.contains("Tag") } && problems.contains { $0.contains("weight") }, "\(problems)")
        #expect(try Data(contentsOf: url) == bytes)
        let newerContainer = ManagedContainer(model: newer, store: try SQLiteStore(url: url, model: newer))
        #expect(try newerContainer.newContext().count(for: FetchRequest<ManagedObject>(entityName: "Item")) == 40, "the newer model still reads it")

        // The newer runtime's store format: the recorded schema's format number raised.
        var handle: OpaquePointer?
        sqlite3_open(url.path, &handle)
        sqlite3_exec(handle, "UPDATE \"modelgen.metadata\" SET value = json_set(value, '$.formatVersion', 999) WHERE key = 'schema'", nil, nil, nil)
        sqlite3_close(handle)
        bytes = try Data(contentsOf: url)
        guard case .notAStore(let formatPath, let reason)? = storeError({ _ = try SQLiteStore(url: url, model: newer) }) else {
            Issue.record("a newer store format is not refused"); return
        }
        #expect(formatPath == url.path)
        #expect(reason.contains("store format 999"), "\(reason)")
        #expect(try Data(contentsOf: url) == bytes)
    }
}
