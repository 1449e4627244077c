import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// A context's registry is a hash table of its own (`ObjectRegistry`): checked here against a
/// `Dictionary` doing the same operations, with IDs of two entities sharing keys, removals that
/// shift later entries back, growth, and the objects it holds released when they leave.
@Suite struct ObjectRegistryTests {
    @Test func answersAsADictionaryThroughInsertsRemovalsAndGrowth() throws {
        let (_, context) = try makeContext()
        let entities = ["Author", "Post"].map { context.model.entity(named: $0)! }
        var generator = SeededGenerator(seed: 42)
        let registry = ObjectRegistry()
        var expected: [ObjectID: ManagedObject] = [:]
        for step in 0..<40_000 {
            let entity = entities[Int(generator.next() % 2)]
            // Keys from a small range (collisions between the entities and within runs of 8), some temporary.
            let key = Int64(generator.next() % 3_000) - 500
            let id = ObjectID(entityName: entity.name, key: key)
            switch generator.next() % 10 {
            case 0..<5:
                let object = ManagedObject(entity: entity, objectID: id, context: nil, isFault: true)
                registry[id] = object
                expected[id] = object
            case 5..<8:
                #expect(registry.removeValue(forKey: id) === expected.removeValue(forKey: id))
            default:
                let made = ManagedObject(entity: entity, objectID: id, context: nil, isFault: true)
                let found = registry.object(for: id) { _ in made }
                if let existing = expected[id] { #expect(found === existing) } else { #expect(found === made); expected[id] = made }
            }
            #expect(registry.count == expected.count)
            if step % 4_000 == 0 || step == 39_999 {
                for (id, object) in expected { #expect(registry[id] === object) }
                var seen = 0
                registry.forEach { key, object in
                    seen += 1
                    #expect(key == object.objectID.key && expected[object.objectID] === object)
                }
                #expect(seen == expected.count)
            }
        }
        // IDs never registered, of either entity, are not found.
        for key in Int64(2_600)..<2_700 {
            #expect(registry[ObjectID(entityName: "Author", key: key)] == nil)
        }
        // The entities it may hold: both registered, no other; none once emptied; taken with its entries.
        #expect(registry.mayHold("Author") && registry.mayHold("Post") && !registry.mayHold("Comment"))
        let taker = ObjectRegistry()
        taker.take(from: registry)
        #expect(taker.mayHold("Post") && !registry.mayHold("Post") && !registry.mayHold("Author"))
        taker.removeAll()
        #expect(!taker.mayHold("Post") && !taker.mayHold("Author"))
        registry.insertTaken(ManagedObject(entity: entities[1], objectID: ObjectID(entityName: "Post", key: 1), context: nil, isFault: true), key: 1)
        #expect(registry.mayHold("Post") && !registry.mayHold("Author"))
    }

    @Test func holdsItsObjectsUntilTheyLeave() throws {
        let (_, context) = try makeContext()
        let entity = context.model.entity(named: "Author")!
        let registry = ObjectRegistry(minimumCapacity: 4)
        weak var removed: ManagedObject?
        weak var replaced: ManagedObject?
        weak var kept: ManagedObject?
        do {
            let a = ManagedObject(entity: entity, objectID: ObjectID(entityName: "Author", key: 1), context: nil, isFault: true)
            let b = ManagedObject(entity: entity, objectID: ObjectID(entityName: "Author", key: 2), context: nil, isFault: true)
            let c = ManagedObject(entity: entity, objectID: ObjectID(entityName: "Author", key: 2), context: nil, isFault: true)
            registry[a.objectID] = a
            registry[b.objectID] = b
            registry[c.objectID] = c   // in b's place
            removed = a; replaced = b; kept = c
            registry.removeValue(forKey: a.objectID)
            for key in Int64(10)..<200 {   // grows several times, moving c
                registry[ObjectID(entityName: "Author", key: key)] =
                    ManagedObject(entity: entity, objectID: ObjectID(entityName: "Author", key: key), context: nil, isFault: true)
            }
        }
        #expect(removed == nil && replaced == nil)
        #expect(kept != nil && registry[ObjectID(entityName: "Author", key: 2)] === kept)
        #expect(registry.count == 191 && registry.objects.count == 191)
    }
    /// `drain` hands each object over once, then lets go of it: the registry is empty after.
    @Test func drainHandsOverEachObjectThenLetsGo() throws {
        let (_, context) = try makeContext()
        let entity = context.model.entity(named: "Author")!
        let registry = ObjectRegistry()
        weak var first: ManagedObject?
        var held: ManagedObject?
        do {
            for key in Int64(1)...300 {
                let object = ManagedObject(entity: entity, objectID: ObjectID(entityName: "Author", key: key), context: nil, isFault: true)
                registry[object.objectID] = object
                if key == 1 { first = object }
                if key == 2 { held = object }
            }
        }
        var handed: [Int64] = []
        registry.drain { handed.append($0.objectID.key) }
        #expect(handed.sorted() == Array(1...300))
        #expect(registry.count == 0 && registry.objects.isEmpty && registry[ObjectID(entityName: "Author", key: 2)] == nil)
        #expect(first == nil)                     // nothing else held it
        #expect(held?.objectID.key == 2)          // still held by the test
    }

    /// A context that goes away turns its objects into faults (breaking relationship cycles) and frees
    /// them, except those the program still holds, which stay usable as plain values of their IDs.
    @Test func aContextGoingAwayFreesItsObjects() throws {
        let container = try ManagedContainer(model: BlogModel.model, store: .inMemory)
        weak var author: Author?
        weak var post: Post?
        var kept: Tag?
        do {
            let context = container.newContext()
            let a = makeAuthor(context)
            let p = Post(context: context, title: "cycles", author: a)
            let tag = Tag(context: context)
            tag.name = "swift"
            p.tags.insert(tag)
            try context.save()
            author = a; post = p; kept = tag
            #expect(a.posts.contains(p))         // author <-> post: a cycle of strong references
        }
        #expect(author == nil && post == nil)
        #expect(kept != nil && kept!.isFault)
    }
}
