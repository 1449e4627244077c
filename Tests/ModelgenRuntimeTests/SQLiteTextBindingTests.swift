import Foundation
import TestScratch
import Testing
@testable import ModelgenRuntime

/// A save binds each row's text through its statement's arena (`SQLiteStatement.bindRowText`), which
/// the next row overwrites: every saved string must still be the one read back, whatever its length
/// (past the arena's 4 KiB it is copied by SQLite instead), with NULs and non-ASCII text inside, and
/// with NULL and text alternating in one column from row to row.
@Suite struct SQLiteTextBindingTests {
    /// The first name of author `index`: empty, short, long, longer than the arena, with U+0000 inside.
    private static func firstName(_ index: Int, round: Int) -> String {
        let length = (index * 37 + round * 11) % 5_200
        let unit = index % 3 == 0 ? "é" : (index % 3 == 1 ? "a\u{0}" : "z")
        return String(repeating: unit, count: length / 2) + "#\(index)/\(round)"
    }

    @Test func everyRowKeepsItsOwnTextThroughInsertsAndUpdates() throws {
        let url = try temporaryDirectory().appendingPathComponent("text.sqlite")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        var expected: [String: (first: String, zone: String?)] = [:]
        do {
            let container = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
            let context = container.newContext()
            var authors: [Author] = []
            for index in 0..<600 {
                let author = makeAuthor(context, "Writer\(index)")
                author.firstName = Self.firstName(index, round: 0)
                author.timeZoneName = index % 2 == 0 ? "Europe/Zone\(index)" : nil
                author.bio = index % 5 == 0 ? String(repeating: "b", count: 1_900) : nil
                authors.append(author)
                expected[author.email] = (author.firstName, author.timeZoneName)
            }
            try context.save()
            // Updates: some rows change their text, some their NULLs to text and back.
            for (index, author) in authors.enumerated() where index % 3 != 2 {
                author.firstName = Self.firstName(index, round: 1)
                author.timeZoneName = index % 2 == 0 ? nil : "America/Zone\(index)"
                expected[author.email] = (author.firstName, author.timeZoneName)
            }
            try context.save()
        }
        let reopened = try ManagedContainer(model: BlogModel.model, store: .sqlite(url))
        let reader = reopened.newContext()
        let read = try reader.fetch(FetchRequest<Author>(entityName: "Author"))
        #expect(read.count == 600)
        for author in read {
            let want = try #require(expected[author.email])
            #expect(author.firstName == want.first)
            #expect(author.timeZoneName == want.zone)
        }
    }
}
