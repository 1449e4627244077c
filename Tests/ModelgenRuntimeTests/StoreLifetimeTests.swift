import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// A store that nothing holds any longer closes its files: opening and dropping stores one after the
/// other (as a test suite, a server or a tool that opens many files does) keeps no descriptors open.
/// Each dropped store used to keep its three files open (statements and their connection held each
/// other; found by fuzz-sqlite).
@Suite struct StoreLifetimeTests {
    /// Descriptors of this process open on files under `directory` (other tests running meanwhile open
    /// files of their own: only the stores' files are counted).
    static func openDescriptors(under directory: URL) -> Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")) ?? ""
            return target.hasPrefix(directory.resolvingSymlinksInPath().path) || target.hasPrefix(directory.path)
        }.count
    }

    @Test func droppedStoresCloseTheirFiles() throws {
        let directory = try temporaryDirectory()
        func openAndDrop(_ index: Int) throws {
            let url = directory.appendingPathComponent("s\(index % 4).sqlite")
            let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
            let context = container.newContext()
            let tag = Tag(context: context)
            tag.name = "t\(index)"
            try context.save()
            _ = try context.fetch(FetchRequest<Tag>(entityName: "Tag"))
        }
        try openAndDrop(0)
        do {   // the count sees a store's files while it is open
            let open = try ManagedContainer(model: BlogModel.model, store: .sqlite(directory.appendingPathComponent("open.sqlite")))
            #expect(try open.newContext().count(for: FetchRequest<Tag>(entityName: "Tag")) == 0)
            #expect(Self.openDescriptors(under: directory) > 0)
        }
        let before = Self.openDescriptors(under: directory)
        for index in 1...200 { try openAndDrop(index) }
        let after = Self.openDescriptors(under: directory)
        #expect(after - before < 20, "\(after - before) descriptors stayed open after 200 stores were dropped")
    }
}

