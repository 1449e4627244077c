import Foundation
import ModelgenRuntime
import Testing

/// `SaveIsolation.serializable`: a save that also verifies, in its transaction, what its context read.
/// Each case shows the anomaly a plain save lets through and the serializable save refusing it.
@Suite struct SerializableSaveTests {
    func project(_ context: ManagedObjectContext, _ title: String) throws -> ManagedObject {
        var request = FetchRequest<ManagedObject>(entityName: "Project", predicate: try FetchPredicate("title == $T"))
        request.variables = ["T": title]
        return try #require(try context.fetch(request).first)
    }

    func members(_ object: ManagedObject) throws -> [ManagedObject] {
        let value = try object.value(forKey: "members")
        return (value as? Set<ManagedObject>).map(Array.init) ?? value as? [ManagedObject] ?? []
    }

    /// A project with two members on call; the rule "someone stays" is checked by each context on
    /// what it read.
    func onCall(_ kind: StoreKind) throws -> ManagedContainer {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let setup = container.newContext()
        let ward = try setup.make("Project", ["title": "Ward"])
        for name in ["Ada", "Bo"] {
            let doctor = try setup.make("Employee", ["name": name, "email": "\(name)@example.com"])
            try doctor.setValue(Set([ward]), forKey: "projects")
        }
        try setup.save()
        return container
    }

    /// Each context reads two members on call and takes a different one off: write skew.
    func takeOneOffCall(_ context: ManagedObjectContext, keeping kept: String) throws {
        let ward = try project(context, "Ward")
        let onCall = try members(ward)
        try #require(onCall.count == 2)
        let leaving = try #require(try onCall.first { try $0.value(forKey: "name") as? String != kept })
        try ward.setValue(Set(onCall.filter { $0 !== leaving }), forKey: "members")
    }

    @Test(arguments: availableKinds)
    func writeSkewPassesAPlainSaveAndFailsASerializableOne(_ kind: StoreKind) throws {
        for isolation in [SaveIsolation.changedRecords, .serializable] {
            let container = try onCall(kind)
            let one = container.newContext(), two = container.newContext()
            one.saveIsolation = isolation
            two.saveIsolation = isolation
            try takeOneOffCall(one, keeping: "Ada")
            try takeOneOffCall(two, keeping: "Bo")
            try one.save()
            if isolation == .serializable {
                let error = try #require(throws: ReadConflictError.self, "\(kind)") { try two.save() }
                #expect(error.relationships.map(\.name).contains("members"), "\(kind)")
                let check = container.newContext()
                #expect(try members(project(check, "Ward")).count == 1, "\(kind): the refused save wrote nothing")
                // Run again in a new context, the unit of work sees one member and leaves it.
                let again = container.newContext()
                again.saveIsolation = .serializable
                #expect(try members(project(again, "Ward")).count == 1)
                try again.save()
            } else {
                try two.save()
                let check = container.newContext()
                #expect(try members(project(check, "Ward")).isEmpty, "\(kind): both saves took one off, none left")
            }
        }
    }

    /// Read skew: a context reads one project's budget, another save changes both projects, then the
    /// context reads the second project (its new budget) and writes a sum of what it read.
    @Test(arguments: availableKinds)
    func readSkewFailsASerializableSave(_ kind: StoreKind) throws {
        let (store, _) = try kind.makeStore()
        let container = ManagedContainer(model: semanticsModel, store: store)
        let setup = container.newContext()
        _ = try setup.make("Project", ["title": "A", "budget": Int64(50)])
        _ = try setup.make("Project", ["title": "B", "budget": Int64(50)])
        _ = try setup.make("Project", ["title": "Total", "budget": Int64(100)])
        try setup.save()

        for isolation in [SaveIsolation.changedRecords, .serializable] {
            let reader = container.newContext()
            reader.saveIsolation = isolation
            reader.mergePolicy = .mergeByPropertyObjectTrump   // a policy settles writes, never reads
            let a = try project(reader, "A").value(forKey: "budget") as! Int64

            let transfer = container.newContext()
            try project(transfer, "A").setValue(Int64(30), forKey: "budget")
            try project(transfer, "B").setValue(Int64(70), forKey: "budget")
            try transfer.save()

            let b = try project(reader, "B").value(forKey: "budget") as! Int64
            if kind != .inMemory { #expect(a + b == 120, "the reader saw A before the transfer and B after it") }
            try project(reader, "Total").setValue(a + b, forKey: "budget")
            if isolation == .serializable {
                #expect(throws: ReadConflictError.self, "\(kind)") { try reader.save() }
                let check = container.newContext()
                #expect(try project(check, "Total").value(forKey: "budget") as? Int64 == 100, "\(kind)")
            } else {
                try reader.save()
                let check = container.newContext()
                #expect(try project(check, "Total").value(forKey: "budget") as? Int64 == a + b, "\(kind)")
                try project(check, "Total").setValue(Int64(100), forKey: "budget")
                try check.save()
                try project(transfer, "A").setValue(Int64(50), forKey: "budget")
                try project(transfer, "B").setValue(Int64(50), forKey: "budget")
                try transfer.save()
            }
        }
    }

    /// Lost update under a merging policy: the serializable save refuses what the policy would merge.
    @Test(arguments: availableKinds)
    func aLostUpdateFailsASerializableSaveUnderEveryPolicy(_ kind: StoreKind) throws {
        for policy in [MergePolicy.error, .mergeByPropertyObjectTrump, .mergeByPropertyStoreTrump, .overwrite, .rollback] {
            let (store, _) = try kind.makeStore()
            let container = ManagedContainer(model: semanticsModel, store: store)
            let setup = container.newContext()
            _ = try setup.make("Project", ["title": "Stock", "budget": Int64(5)])
            try setup.save()
            let one = container.newContext(), two = container.newContext()
            for context in [one, two] {
                context.saveIsolation = .serializable
                context.mergePolicy = policy
                let stock = try project(context, "Stock")
                try stock.setValue(try stock.value(forKey: "budget") as! Int64 - 1, forKey: "budget")
            }
            try one.save()
            #expect(throws: (any Error).self, "\(kind), \(policy)") { try two.save() }
            let check = container.newContext()
            #expect(try project(check, "Stock").value(forKey: "budget") as? Int64 == 4, "\(kind), \(policy)")
        }
    }

    /// A unit of work that only read learns from `save()` whether what it read was one state, and
    /// such a save writes nothing (no history row).
    @Test(arguments: availableKinds)
    func aReadOnlySerializableSaveVerifiesItsReads(_ kind: StoreKind) throws {
        let container = try onCall(kind)
        let reader = container.newContext()
        reader.saveIsolation = .serializable
        #expect(try members(project(reader, "Ward")).count == 2)
        let before = kind == .inMemory ? [] : try container.history(after: nil)
        try reader.save()
        if kind != .inMemory { #expect(try container.history(after: nil).count == before.count, "\(kind): a save that wrote nothing") }

        let other = container.newContext()
        try takeOneOffCall(other, keeping: "Ada")
        try other.save()
        #expect(throws: ReadConflictError.self, "\(kind)") { try reader.save() }
        // Nothing read: nothing to verify.
        let fresh = container.newContext()
        fresh.saveIsolation = .serializable
        try fresh.save()
    }

    /// Objects the context holds only as faults, and relationships it never loaded, are not reads.
    @Test func faultsAndUnloadedRelationshipsAreNotRead() throws {
        let container = try onCall(.sqlite)
        let context = container.newContext()
        context.saveIsolation = .serializable
        let ward = try project(context, "Ward")
        let title = try ward.value(forKey: "title") as? String
        #expect(title == "Ward")
        let other = container.newContext()
        try takeOneOffCall(other, keeping: "Bo")
        try other.save()
        try context.make("Project", ["title": "New"]).setValue(Int64(1), forKey: "budget")
        try context.save()   // members never loaded: another save changing them is no conflict
    }
}
