import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// A context's lists of inserted and changed objects add new members without a membership test
/// (`ObjectList.appendNew`); the hash set catches up when the list is next asked to add or remove.
@Suite struct ChangeListTests {
    @Test func aListFilledWithoutItsSetStillAnswersAddsAndRemovesByMembership() throws {
        let (_, context) = try makeContext()
        let authors = (0..<40).map { makeAuthor(context, "Author\($0)") }
        var list = ObjectList()
        for author in authors.prefix(20) { list.appendNew(author) }
        #expect(list.contains(authors[19]) && !list.contains(authors[20]))
        let addedAgain = list.append(authors[3])   // already there: the set is built first
        let added = list.append(authors[20])
        #expect(!addedAgain && added)
        for author in authors[21...] { list.appendNew(author) }   // a tail the set does not hold yet
        #expect(list.contains(authors[39]))
        let insertedAgain = list.insert(authors[30], at: 0)
        let removed = list.remove(authors[35])
        let removedAgain = list.remove(authors[35])
        #expect(!insertedAgain && removed && !removedAgain)
        #expect(!list.contains(authors[35]))
        #expect(list.count == 39)
        #expect(list.objects.map { $0 as? Author } == authors.filter { $0 !== authors[35] })
    }

    /// Random adds (by membership and without), inserts, removes and lookups on lists short and long,
    /// against an array doing the same: the set and its unhashed tail (worked out from the counts)
    /// answer as a scan would.
    @Test func randomOperationsAgreeWithAPlainArray() throws {
        let (_, context) = try makeContext()
        let authors = (0..<60).map { makeAuthor(context, "Author\($0)") }
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            var list = ObjectList(), expected: [ManagedObject] = []
            for _ in 0..<400 {
                let author = authors[Int(generator.next() % UInt64(authors.count))]
                let present = expected.contains { $0 === author }
                switch generator.next() % 5 {
                case 0 where !present:
                    list.appendNew(author); expected.append(author)
                case 1:
                    #expect(list.append(author) == !present)
                    if !present { expected.append(author) }
                case 2:
                    let index = Int(generator.next() % UInt64(expected.count + 1))
                    #expect(list.insert(author, at: index) == !present)
                    if !present { expected.insert(author, at: index) }
                case 3:
                    #expect(list.remove(author) == present)
                    expected.removeAll { $0 === author }
                default:
                    #expect(list.contains(author) == present)
                }
            }
            #expect(list.objects.count == expected.count && zip(list.objects, expected).allSatisfy { $0 === $1 })
            for author in authors { #expect(list.contains(author) == expected.contains { $0 === author }) }
        }
    }

    @Test func manyInsertedAndChangedObjectsLeaveTheListsOnceEachWhenDeletedOrUndone() throws {
        let (container, context) = try makeContext()
        let authors = (0..<300).map { makeAuthor(context, "Writer\($0)") }
        for author in authors where author.lastName.hasSuffix("7") { context.delete(author) }   // leave the inserted list
        #expect(context.insertedObjects.count == 270)
        try context.save()
        #expect(try container.newContext().count(for: FetchRequest<Author>(entityName: "Author")) == 270)

        let kept = authors.filter { !$0.lastName.hasSuffix("7") }
        for author in kept { author.rating = 3 }   // each joins the updated list once
        for author in kept { author.rating = 4 }
        #expect(context.updatedObjects.count == 270)
        context.undo()   // both changes were one undo group: every object leaves the updated list
        #expect(context.updatedObjects.isEmpty && !context.hasChanges)
        for author in kept.prefix(100) { author.rating = 5 }
        context.delete(kept[0])   // changed, then deleted: it leaves the updated list
        #expect(context.updatedObjects.count == 99 && context.deletedObjects.count == 1)
        try context.save()
        let reader = container.newContext()
        let rated = try reader.fetch(FetchRequest<Author>(entityName: "Author", predicate: "rating == 5"))
        #expect(rated.count == 99)
        #expect(try reader.count(for: FetchRequest<Author>(entityName: "Author")) == 269)
    }
}
