import Foundation
import TestScratch
import Testing
@_spi(Generated) @testable import ModelgenRuntime

/// A sheet of lines (a to-many relationship: fetched rows leave it out, so it loads after the rows).
final class Sheet: ManagedObject {
    @Managed(slot: 0) var title: String
    var lines: [Line] { relatedObjects(at: 1) }
}

/// A line (no to-many relationship: loaded while the store streams rows). Its `awakeFromFetch`
/// reads its sheet, which fires the sheet's fault and so calls the store.
final class Line: ManagedObject {
    @Managed(slot: 0) var text: String
    var sheet: Sheet? {
        get { relatedObject(at: 1) }
        set { setRelatedObject(newValue, at: 1) }
    }
    nonisolated(unsafe) static var sheetsSeenOnAwake: [String] = []
    override func awakeFromFetch() {
        super.awakeFromFetch()
        Line.sheetsSeenOnAwake.append("\(text) on \(sheet?.title ?? "nothing")")
    }
}

/// SQLite fetches stream rows into objects; user code (`awakeFromFetch`) runs once every row is
/// read, so it may use the store (firing faults) without waiting on the fetch that is reading.
@Suite(.serialized) struct StreamedFetchTests {
    static let model = try! ManagedObjectModel(name: "Sheets", entities: [
        EntityDescription("Sheet", class: Sheet.self,
                          attributes: [AttributeDescription("title", .string)],
                          relationships: [RelationshipDescription("lines", destination: "Line", inverse: "sheet", toMany: true, ordered: true)]),
        EntityDescription("Line", class: Line.self,
                          attributes: [AttributeDescription("text", .string)],
                          relationships: [RelationshipDescription("sheet", destination: "Sheet", inverse: "lines")]),
    ])

    /// Sheets A and B, three lines each (A1…A3, B1…B3), saved.
    func saveTwoSheets(in container: ManagedContainer) throws {
        let writer = container.newContext()
        for title in ["A", "B"] {
            let sheet = Sheet(context: writer)
            sheet.title = title
            for n in 1...3 {
                let line = Line(context: writer)
                line.text = "\(title)\(n)"
                line.sheet = sheet
            }
        }
        try writer.save()
    }

    @Test(.timeLimit(.minutes(1)))
    func awakeFromFetchMayUseTheStoreAndEveryObjectArrivesLoaded() throws {
        let container = try ManagedContainer(model: Self.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("s.sqlite")))
        try saveTwoSheets(in: container)

        Line.sheetsSeenOnAwake = []
        let reader = container.newContext()
        let lines = try reader.fetch(FetchRequest<Line>(entityName: "Line", sortDescriptors: [SortDescriptor("text")]))
        #expect(lines.map(\.text) == ["A1", "A2", "A3", "B1", "B2", "B3"])
        #expect(lines.allSatisfy { !$0.isFault })
        #expect(Line.sheetsSeenOnAwake == ["A1 on A", "A2 on A", "A3 on A", "B1 on B", "B2 on B", "B3 on B"])

        let sheets = try reader.fetch(FetchRequest<Sheet>(entityName: "Sheet", sortDescriptors: [SortDescriptor("title", ascending: false)]))
        #expect(sheets.map(\.title) == ["B", "A"])
        #expect(sheets.map { $0.lines.map(\.text) } == [["B1", "B2", "B3"], ["A1", "A2", "A3"]])
        #expect(sheets[0].lines[0] === lines[3])             // one object per record
        #expect(!reader.hasChanges)                          // loading dirtied nothing
    }

    /// A prefetch loads each member's fault from its row as SQLite reads it (as a fetch loads its
    /// results), and runs the members' `awakeFromFetch` once it is done: once each, loaded, free to use
    /// the store; a member already loaded is left as it is and not awakened again.
    @Test(.timeLimit(.minutes(1)))
    func prefetchedMembersAwakeOnceEachAfterTheStoreIsDone() throws {
        let container = try ManagedContainer(model: Self.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("p.sqlite")))
        try saveTwoSheets(in: container)

        let reader = container.newContext()
        let edited = try #require(try reader.fetch(try FetchRequest<Line>(entityName: "Line", predicate: "text == 'B2'")).first)
        edited.text = "B2 edited"
        Line.sheetsSeenOnAwake = []
        var request = FetchRequest<Sheet>(entityName: "Sheet", sortDescriptors: [SortDescriptor("title")])
        request.relationshipKeyPathsForPrefetching = ["lines"]
        let sheets = try reader.fetch(request)
        #expect(Line.sheetsSeenOnAwake == ["A1 on A", "A2 on A", "A3 on A", "B1 on B", "B3 on B"])
        #expect(sheets.map { $0.lines.map(\.text) } == [["A1", "A2", "A3"], ["B1", "B2 edited", "B3"]])
        #expect(sheets.allSatisfy { $0.lines.allSatisfy { !$0.isFault } })
        #expect(sheets[1].lines[1] === edited)
        #expect(reader.updatedObjects.map(\.objectID) == [edited.objectID])   // loading dirtied nothing else
    }

    /// A save gives inserted objects permanent IDs and re-keys the registry: by single moves when they
    /// are few among many registered objects, by rebuilding it when they are most of it.
    @Test func savedObjectsAreFoundByTheirPermanentIDsEitherWay() throws {
        let container = try ManagedContainer(model: Self.model, store: .sqlite(try temporaryDirectory().appendingPathComponent("k.sqlite")))
        let context = container.newContext()
        let bulk = (0..<20).map { n -> Line in
            let line = Line(context: context)
            line.text = "bulk \(n)"
            return line
        }
        try context.save()                                    // 20 inserted of 20 registered: rebuilt
        #expect(bulk.allSatisfy { !$0.objectID.isTemporaryID && context.object(with: $0.objectID) === $0 })
        #expect(context.registeredObjects.count == 20)

        let few = (0..<3).map { n -> Line in
            let line = Line(context: context)
            line.text = "few \(n)"
            return line
        }
        let temporary = few.map(\.objectID)
        try context.save()                                    // 3 inserted of 23 registered: moved one by one
        #expect((bulk + few).allSatisfy { context.object(with: $0.objectID) === $0 })
        #expect(context.registeredObjects.count == 23)
        #expect(temporary.allSatisfy { id in !context.registeredObjects.contains { $0.objectID == id } })
        let other = container.newContext()
        let fetched = try other.fetch(FetchRequest<Line>(entityName: "Line"))
        #expect(Set(fetched.map(\.text)) == Set((bulk + few).map(\.text)))
    }
}
