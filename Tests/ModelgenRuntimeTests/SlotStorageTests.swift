import Foundation
import Testing
@testable import ModelgenRuntime

/// Scalar slots keep their cell in the slot's own place (`ManagedObject._cell(_:)`), so a class whose
/// `@Managed` types or slots disagree with the model would read memory as the wrong type: the model
/// refuses it when built. Values of every kind, side by side, survive writes, nil, saves and fetches.
@Suite struct SlotStorageTests {
    final class Mixed: ManagedObject {
        @Managed(slot: 0) var name: String
        @Managed(slot: 1) var quantity: Int64
        @Managed(slot: 2) var note: String?
        @Managed(slot: 3) var due: Date?
        @Managed(slot: 4) var ratio: Double
        @Managed(slot: 5) var done: Bool
        @Managed(slot: 6) var tag: String
        @Managed(slot: 7) var small: Int16?
    }
    final class IntOnText: ManagedObject { @Managed(slot: 0) var title: Int64 }
    final class TextOnInt: ManagedObject { @Managed(slot: 0) var pages: String }
    final class OptionalDateOnText: ManagedObject { @Managed(slot: 0) var title: Date? }
    final class PastTheEnd: ManagedObject { @Managed(slot: 2) var extra: String }
    enum Shade: String, ManagedRawValue { case light, dark }
    enum Rank: Int64, ManagedRawValue { case low = 1, high = 2 }
    final class TextEnumOnInt: ManagedObject { @Managed(slot: 0) var shade: Shade }
    final class IntEnumOnText: ManagedObject { @Managed(slot: 0) var rank: Rank? }
    final class Ranked: ManagedObject {
        @Managed(slot: 0) var rank: Rank
        @Managed(slot: 1) var shade: Shade?
    }
    class Titled: ManagedObject { @Managed(slot: 0) var title: String? }
    final class Novel: Titled { @Managed(slot: 1) var pages: Int64 }

    static func model() throws -> ManagedObjectModel {
        try ManagedObjectModel(name: "Slots", entities: [
            EntityDescription("Mixed", class: Mixed.self, attributes: [
                AttributeDescription("name", .string), AttributeDescription("quantity", .int64),
                AttributeDescription("note", .string, optional: true), AttributeDescription("due", .date, optional: true),
                AttributeDescription("ratio", .double), AttributeDescription("done", .bool),
                AttributeDescription("tag", .string), AttributeDescription("small", .int16, optional: true),
            ]),
        ])
    }

    /// An object's storage is one malloc of 24 bytes per `SlotValue` and 16 per scalar cell, at offsets
    /// its entity works out (inherited slots first, at their parent's offsets). A `SlotValue` payload of
    /// more than 23 bytes (a to-many list of three words did, unnoticed for a week) would make every
    /// boxed slot a third larger.
    @Test func aSlotValueTakesTwentyFourBytesAndACellSixteen() throws {
        #expect(MemoryLayout<SlotValue>.stride == 24)
        #expect(MemoryLayout<ObjectList>.size == 16)
        #expect(MemoryLayout<ScalarCell>.stride == 16)
        let mixed = try Self.model().entity(named: "Mixed")!
        // name, quantity, note, due, ratio, done, tag, small: three strings and five scalars.
        #expect((0..<8).map { mixed.slotOffsets[$0] } == [0, 24, 40, 64, 80, 96, 112, 136])
        #expect(mixed.slotBytes == 152)
        let model = try ManagedObjectModel(name: "M", entities: [
            EntityDescription("Book", class: Titled.self, attributes: [AttributeDescription("title", .string, optional: true)]),
            EntityDescription("Novel", class: Novel.self, parent: "Book", attributes: [AttributeDescription("pages", .int64)]),
        ])
        let book = model.entity(named: "Book")!, novel = model.entity(named: "Novel")!
        #expect(book.slotOffsets[0] == 0 && book.slotBytes == 24)
        #expect(novel.slotOffsets[0] == 0 && novel.slotOffsets[1] == 24 && novel.slotBytes == 40)
        // A subentity's object reads its inherited and own slots through either class.
        let context = try ManagedContainer(model: model, store: .inMemory).newContext()
        let object = Novel(context: context)
        object.title = "Dune"
        object.pages = 412
        #expect((object as Titled).title == "Dune" && object.pages == 412)
    }

    #if canImport(Glibc)
    final class Quad: ManagedObject {
        @Managed(slot: 0) var a: Int64
        @Managed(slot: 1) var b: Int64
        @Managed(slot: 2) var c: String
        @Managed(slot: 3) var d: String
    }

    /// The object itself: the base class's 112 bytes and two per `@Managed` property (its slot number).
    /// Four properties make 120, all that glibc's 128-byte chunk holds, so a byte more in the base class
    /// shows here as the next chunk (every object up to twelve properties would pay 16 bytes more).
    @Test func anObjectIsTheBaseClassAndTwoBytesAProperty() throws {
        let model = try ManagedObjectModel(name: "Quad", entities: [
            EntityDescription("Quad", class: Quad.self, attributes: [
                AttributeDescription("a", .int64), AttributeDescription("b", .int64),
                AttributeDescription("c", .string), AttributeDescription("d", .string),
            ]),
        ])
        let context = try ManagedContainer(model: model, store: .inMemory).newContext()
        let object = Quad(context: context)
        #expect(MemoryLayout<Managed<String>>.size == 2)
        #expect(usableSize(Unmanaged.passUnretained(object).toOpaque()) == 120)
    }
    #endif

    @Test func everyKindOfSlotKeepsItsValue() throws {
        let container = try ManagedContainer(model: try Self.model(), store: .inMemory)
        let context = container.newContext()
        var expected: [(String, Int64, String?, Date?, Double, Bool, String, Int16?)] = []
        for i in 0..<300 {
            let object = Mixed(context: context)
            let row = ("name \(i) " + String(repeating: "x", count: i % 40), Int64(i) * -7, i % 3 == 0 ? nil : "note \(i)",
                       i % 4 == 0 ? nil : Date(timeIntervalSinceReferenceDate: Double(i) * 3_600), Double(i) / 8, i % 2 == 0,
                       "tag\(i)", i % 5 == 0 ? nil : Int16(i - 150))
            object.name = row.0; object.quantity = row.1; object.note = row.2; object.due = row.3
            object.ratio = row.4; object.done = row.5; object.tag = row.6; object.small = row.7
            expected.append(row)
        }
        try context.save()
        let reader = container.newContext()
        let fetched = try reader.fetch(FetchRequest<Mixed>(entityName: "Mixed", sortDescriptors: [SortDescriptor("quantity", ascending: false)]))
        #expect(fetched.count == 300)
        for (object, row) in zip(fetched, expected) {
            #expect(object.name == row.0 && object.quantity == row.1 && object.note == row.2 && object.due == row.3)
            #expect(object.ratio == row.4 && object.done == row.5 && object.tag == row.6 && object.small == row.7)
        }
        // Key-value access sees the same values as the typed properties, and writes through them.
        let first = fetched[0]
        #expect(try first.value(forKey: "quantity") as? Int64 == 0 && first.value(forKey: "note") == nil)
        try first.setValue(Int64(41), forKey: "quantity")
        try first.setValue(nil, forKey: "due")
        #expect(first.quantity == 41 && first.due == nil && first.name == expected[0].0)
    }

    @Test func aClassWhoseTypesDisagreeWithTheModelIsRefused() throws {
        func model<T: ManagedObject>(_ type: T.Type, _ attribute: AttributeDescription) throws -> ManagedObjectModel {
            try ManagedObjectModel(name: "M", entities: [EntityDescription("Book", class: type, attributes: [attribute])])
        }
        #expect(throws: RuntimeError.invalidModel("IntOnText.title is declared Int64 in slot 0, which holds 'Book.title', an attribute of type string: the class does not match the model (regenerate it, or fix its type or slot)")) {
            try model(IntOnText.self, AttributeDescription("title", .string))
        }
        #expect(throws: RuntimeError.invalidModel("TextOnInt.pages is declared String in slot 0, which holds 'Book.pages', an attribute of type int64: the class does not match the model (regenerate it, or fix its type or slot)")) {
            try model(TextOnInt.self, AttributeDescription("pages", .int64))
        }
        #expect(throws: RuntimeError.invalidModel("OptionalDateOnText.title is declared Optional<Date> in slot 0, which holds 'Book.title', an attribute of type string: the class does not match the model (regenerate it, or fix its type or slot)")) {
            try model(OptionalDateOnText.self, AttributeDescription("title", .string))
        }
        #expect(throws: RuntimeError.invalidModel("PastTheEnd.extra is @Managed(slot: 2), but 'Book' has 1 slots (regenerate the class, or fix its slot numbers)")) {
            try model(PastTheEnd.self, AttributeDescription("title", .string))
        }
        #expect(throws: RuntimeError.invalidModel("TextEnumOnInt.shade is declared Shade in slot 0, which holds 'Book.shade', an attribute of type int64: the class does not match the model (regenerate it, or fix its type or slot)")) {
            try model(TextEnumOnInt.self, AttributeDescription("shade", .int64))
        }
        #expect(throws: RuntimeError.invalidModel("IntEnumOnText.rank is declared Optional<Rank> in slot 0, which holds 'Book.rank', an attribute of type string: the class does not match the model (regenerate it, or fix its type or slot)")) {
            try model(IntEnumOnText.self, AttributeDescription("rank", .string, optional: true))
        }
        // Enums on the slots of their raw values work: written, saved, fetched.
        let rankedModel = try ManagedObjectModel(name: "R", entities: [
            EntityDescription("Ranked", class: Ranked.self, attributes: [AttributeDescription("rank", .int64), AttributeDescription("shade", .string, optional: true)]),
        ])
        let container = try ManagedContainer(model: rankedModel, store: .inMemory)
        let context = container.newContext()
        let ranked = Ranked(context: context)
        ranked.rank = .high
        ranked.shade = .dark
        try context.save()
        let reader = container.newContext()
        let fetched = try reader.fetch(FetchRequest<Ranked>(entityName: "Ranked"))
        #expect(fetched.map(\.rank) == [.high] && fetched.map(\.shade) == [.dark])
        // An optional string on a string slot, and a subclass's own and inherited properties on a subentity, are fine.
        _ = try ManagedObjectModel(name: "M", entities: [
            EntityDescription("Book", class: Titled.self, attributes: [AttributeDescription("title", .string, optional: true)]),
            EntityDescription("Novel", class: Novel.self, parent: "Book", attributes: [AttributeDescription("pages", .int64)]),
        ])
    }
}

#if canImport(Glibc)
/// glibc's `malloc_usable_size` (declared in <malloc.h>, which the Glibc module does not export).
@_silgen_name("malloc_usable_size") private func usableSize(_ pointer: UnsafeMutableRawPointer) -> Int
#endif
