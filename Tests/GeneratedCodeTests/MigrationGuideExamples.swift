// The code of docs/migration.md, compiled and run: a bookshop's model through three releases, with the
// custom stage of each release after the first.
import Foundation
import ModelgenRuntime
import Testing

/// The bookshop's released versions, kept as descriptions (old versions need no classes: their
/// records are read by key).
enum Bookshop {
    /// Release 1: a book names its author and its price as text.
    static let release1 = try! ManagedObjectModel(name: "Bookshop", entities: [
        EntityDescription("Book", class: ManagedObject.self, attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("author", .string),
            AttributeDescription("price", .string, optional: true),   // "12.50 EUR"
        ]),
    ])

    /// Release 2: authors are records of their own, prices are decimals.
    static let release2 = try! ManagedObjectModel(name: "Bookshop", entities: [
        EntityDescription("Book", class: ManagedObject.self, attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("price", .decimal, optional: true),
        ], relationships: [
            RelationshipDescription("author", destination: "Author", inverse: "books"),
        ]),
        EntityDescription("Author", class: ManagedObject.self, attributes: [
            AttributeDescription("name", .string),
        ], relationships: [
            RelationshipDescription("books", destination: "Book", inverse: "author", toMany: true),
        ], unique: [["name"]]),
    ])

    /// Release 3: a book may have several authors, and every book has an ISBN.
    static let release3 = try! ManagedObjectModel(name: "Bookshop", entities: [
        EntityDescription("Book", class: ManagedObject.self, attributes: [
            AttributeDescription("title", .string),
            AttributeDescription("isbn", .string),
            AttributeDescription("price", .decimal, optional: true),
        ], relationships: [
            RelationshipDescription("authors", destination: "Author", inverse: "books", toMany: true, renamingIdentifier: "author"),
        ], unique: [["isbn"]]),
        EntityDescription("Author", class: ManagedObject.self, attributes: [
            AttributeDescription("name", .string),
        ], relationships: [
            RelationshipDescription("books", destination: "Book", inverse: "authors", toMany: true),
        ], unique: [["name"]]),
    ])
}

/// Release 1 → 2: each book's author name becomes an Author record (one per name), its price text a decimal.
let authorsAsRecords = MigrationStage.custom(from: Bookshop.release1, to: Bookshop.release2, didMigrate: { migration in
    var authors: [String: ManagedObject] = [:]
    try migration.forEachRecord(of: "Book") { old, new in
        let name = try old.value(forKey: "author") as? String ?? "Unknown"
        // By ID: each batch is saved and its objects let go, so an author made earlier is found again.
        let author = try authors[name].map { migration.context.object(with: $0.objectID) } ?? {
            let made = try migration.context.insertObject(entityName: "Author")
            try made.setValue(name, forKey: "name")
            authors[name] = made
            return made
        }()
        try new.setValue(author, forKey: "author")
        let price = (try old.value(forKey: "price") as? String)?.split(separator: " ").first
        try new.setValue(price.flatMap { Decimal(string: String($0), locale: Locale(identifier: "en_US_POSIX")) }, forKey: "price")
    }
})

/// Release 2 → 3: the author becomes the first of the book's authors, and each book gets an ISBN.
let severalAuthors = MigrationStage.custom(from: Bookshop.release2, to: Bookshop.release3, didMigrate: { migration in
    try migration.forEachRecord(of: "Book") { old, new in
        if let author = try old.value(forKey: "author") as? ManagedObject {
            try new.setValue([try migration.current(of: author)], forKey: "authors")
        }
        try new.setValue("unknown-\(new.objectID.key)", forKey: "isbn")
    }
})

/// Every release, oldest first, and the stages between them.
let bookshopPlan = MigrationPlan(versions: [Bookshop.release1, Bookshop.release2, Bookshop.release3],
                                 stages: [authorsAsRecords, severalAuthors])

@Suite struct MigrationGuideExamples {
    /// A store written by release 1 opens with release 3: both stages run, every book is checked.
    @Test func theBookshopGoesFromRelease1ToRelease3() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bookshop-\(UUID().uuidString).sqlite")
        let names = ["Ursula K. Le Guin", "Octavia E. Butler", "Italo Calvino"]
        do {
            let context = try ManagedContainer(model: Bookshop.release1, store: .sqlite(url)).newContext()
            for i in 0..<2_500 {
                let book = try context.insertObject(entityName: "Book")
                try book.setValue("Book \(i)", forKey: "title")
                try book.setValue(names[i % 3], forKey: "author")
                try book.setValue(i % 5 == 0 ? nil : "\(i).50 EUR", forKey: "price")
            }
            try context.save()
        }

        let container = try ManagedContainer(model: Bookshop.release3, store: .sqlite(url), migrationPlan: bookshopPlan)

        let context = container.newContext()
        let authors = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author", sortDescriptors: [SortDescriptor("name")]))
        #expect(try authors.map { try $0.value(forKey: "name") as? String } == names.sorted())
        for book in try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")) {
            let i = Int((try book.value(forKey: "title") as! String).dropFirst("Book ".count))!
            #expect(try book.value(forKey: "price") as? Decimal == (i % 5 == 0 ? nil : Decimal(string: "\(i).5")))
            #expect(try (book.value(forKey: "authors") as! [ManagedObject]).map { try $0.value(forKey: "name") as? String } == [names[i % 3]])
            #expect(try book.value(forKey: "isbn") as? String == "unknown-\(book.objectID.key)")
        }
        let calvino = try #require(authors.first)
        #expect(try (calvino.value(forKey: "books") as! [ManagedObject]).count == (0..<2_500).filter { names[$0 % 3] == "Italo Calvino" }.count)
    }
}
