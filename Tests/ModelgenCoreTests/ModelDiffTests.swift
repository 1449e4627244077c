import Foundation
import Testing
@testable import ModelgenCore

/// `modelgen diff` (issue 39): every kind of change the model format can express, each classified
/// (safe, lightweight, custom-stage, data-loss, api-break) and placed in both files.
@Suite struct ModelDiffTests {
    /// A base model; each case replaces one line (or adds some) to make the new version.
    static let base = """
        model: Library
        options: { codegen: class, access: public }
        composites:
          Address:
            attributes:
              city: string
        entities:
          Item:
            abstract: true
            attributes:
              code: string
          Book:
            parent: Item
            attributes:
              title: { type: string, min: 1, max: 200 }
              pages: { type: int32, default: 0 }
              notes: string?
              cover: { type: binary, optional: true, externalStorage: true }
              slug: { type: string, derived: 'lowercase:(title)' }
              scratch: { type: string, transient: true, optional: true }
              status: { type: int16, default: 0 }
              where: Address
            relationships:
              loans: { destination: Loan, toMany: true, inverse: book, deleteRule: cascade }
              shelf: { destination: Shelf, inverse: books }
              tags: { destination: Tag, toMany: true, inverse: books }
            fetchedProperties:
              recent: { destination: Loan, predicate: 'book == $FETCH_SOURCE' }
            computed:
              label: { type: String, dependsOn: [title] }
            indexes: [[title]]
            unique: [[title]]
          Loan:
            attributes:
              due: date
            relationships:
              book: { destination: Book, inverse: loans }
              branch: { destination: Shelf, inverse: none }
          Shelf:
            attributes:
              label: string
            relationships:
              books: { destination: Book, toMany: true, inverse: shelf }
          Tag:
            attributes:
              name: string
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
        fetchRequests:
          long:
            entity: Book
            predicate: 'pages > 300'

        """

    func model(_ yaml: String) throws -> ObjectModel {
        let check = ModelCheck.run(text: yaml, path: "test.model.yaml")
        let errors = check.diagnostics.filter { $0.severity == .error }
        guard let model = check.model, errors.isEmpty else { throw ModelProblem(message: "\(errors.map(\.message))\n\(yaml)") }
        return model
    }
    struct ModelProblem: Error, CustomStringConvertible { let message: String; var description: String { message } }

    /// The base with `old` replaced by `new` (which must occur).
    func edited(_ old: String, _ new: String) throws -> String {
        guard Self.base.contains(old) else { throw ModelProblem(message: "no '\(old)' in the base model") }
        return Self.base.replacingOccurrences(of: old, with: new)
    }

    /// The change an edit makes whose message starts with `message` (an edit may make a second one:
    /// a new default beside a now required attribute).
    func change(_ old: String, _ new: String, _ message: String) throws -> ModelChange {
        let changes = ModelDiff.changes(from: try model(Self.base), to: try model(try edited(old, new)))
        guard let found = changes.first(where: { $0.message.hasPrefix(message) }), changes.count <= 2 else {
            throw ModelProblem(message: "expected '\(message)…' for '\(old)' -> '\(new)', got \(changes.map(\.message))")
        }
        return found
    }

    @Test func anUnchangedModelHasNoChanges() throws {
        #expect(ModelDiff.changes(from: try model(Self.base), to: try model(Self.base)).isEmpty)
    }

    /// (edit: old text, new text; expected start of the message; expected classes)
    static let cases: [(String, String, String, String)] = [
        // The model and its options.
        ("model: Library", "model: Lending", "the model was renamed", "api-break"),
        ("access: public", "access: internal", "the generated code's access level changed", "api-break"),
        ("access: public", "access: package", "the generated code's access level changed", "api-break"),
        ("codegen: class, access", "codegen: extension, access", "the default codegen mode changed", "api-break"),
        // Entities.
        ("fetchRequests:", "  Reader:\n    attributes:\n      name: string\nfetchRequests:", "entity Reader was added", "lightweight"),
        ("    parent: Item\n", "", "entity Book: its parent changed", "custom-stage, api-break"),
        ("  Item:\n    abstract: true\n", "  Item:\n", "entity Item became concrete", "safe"),
        ("  Loan:\n    attributes:", "  Loan:\n    abstract: true\n    attributes:", "entity Loan became abstract", "custom-stage, api-break"),
        ("  Shelf:\n    attributes:", "  Shelf:\n    class: ShelfRecord\n    attributes:", "entity Shelf: its class was renamed", "api-break"),
        ("  Shelf:\n    attributes:", "  Shelf:\n    codegen: none\n    attributes:", "entity Shelf: its codegen mode changed", "api-break"),
        // Attributes.
        ("      due: date\n", "      due: date\n      fine: decimal?\n", "attribute Loan.fine was added", "lightweight"),
        ("      due: date\n", "      due: date\n      days: { type: int16, default: 14 }\n", "attribute Loan.days was added", "lightweight"),
        ("      due: date\n", "      due: date\n      code: string\n", "attribute Loan.code was added, required and without a default", "custom-stage"),
        ("      notes: string?\n", "", "attribute Book.notes was removed", "data-loss, api-break"),
        ("      scratch: { type: string, transient: true, optional: true }\n", "", "attribute Book.scratch was removed", "api-break"),
        ("      notes: string?", "      remarks: { type: string, optional: true, renamingIdentifier: notes }", "attribute Book.notes was renamed to remarks", "lightweight, api-break"),
        ("      pages: { type: int32, default: 0 }", "      pages: { type: int64, default: 0 }", "attribute Book.pages: its type changed from int32 to int64", "custom-stage, api-break"),
        ("      notes: string?", "      notes: { type: string, optional: true, transient: true }", "attribute Book.notes became transient", "data-loss"),
        ("      scratch: { type: string, transient: true, optional: true }", "      scratch: { type: string, optional: true }", "attribute Book.scratch became stored", "lightweight"),
        ("      notes: string?", "      notes: string", "attribute Book.notes became required without a default", "custom-stage, api-break"),
        ("      notes: string?", "      notes: { type: string, default: '' }", "attribute Book.notes became required", "api-break"),
        ("      due: date\n", "      due: date?\n", "attribute Loan.due became optional", "api-break"),
        ("      status: { type: int16, default: 0 }", "      status: { type: int16, default: 0, swiftType: BookStatus }", "attribute Book.status: its Swift type changed", "api-break"),
        ("      pages: { type: int32, default: 0 }", "      pages: { type: int32, default: 10 }", "attribute Book.pages: its default changed from 0 to 10", "safe"),
        ("      title: { type: string, min: 1, max: 200 }", "      title: { type: string, min: 1, max: 100 }", "attribute Book.title: its maximum changed", "safe"),
        ("      title: { type: string, min: 1, max: 200 }", "      title: { type: string, min: 1, max: 200, regex: '[A-Z].*' }", "attribute Book.title: its pattern changed", "safe"),
        ("      cover: { type: binary, optional: true, externalStorage: true }", "      cover: { type: binary, optional: true }", "attribute Book.cover: external storage turned off", "lightweight"),
        ("      slug: { type: string, derived: 'lowercase:(title)' }", "      slug: { type: string, derived: 'uppercase:(title)' }", "attribute Book.slug: its derivation changed", "safe"),
        ("      where: Address", "      where: string", "attribute Book.where: its type changed from Address to string", "custom-stage, api-break"),
        // Relationships.
        ("      book: { destination: Book, inverse: loans }\n", "      book: { destination: Book, inverse: loans }\n      shelf: { destination: Shelf, inverse: none }\n", "relationship Loan.shelf was added", "lightweight"),
        ("      book: { destination: Book, inverse: loans }\n", "      book: { destination: Book, inverse: loans }\n      shelf: { destination: Shelf, inverse: none, optional: false }\n", "relationship Loan.shelf was added, to-one and required", "custom-stage"),
        ("      branch: { destination: Shelf, inverse: none }\n", "", "relationship Loan.branch was removed", "data-loss, api-break"),
        ("      shelf: { destination: Shelf, inverse: books }", "      shelf: { destination: Shelf, toMany: true, inverse: books }", "relationship Book.shelf became to-many", "custom-stage, api-break"),
        ("      books: { destination: Book, toMany: true, inverse: shelf }", "      books: { destination: Book, inverse: shelf }", "relationship Shelf.books became to-one", "custom-stage, data-loss, api-break"),
        ("      books: { destination: Book, toMany: true, inverse: shelf }", "      books: { destination: Book, toMany: true, ordered: true, inverse: shelf }", "relationship Shelf.books became ordered", "lightweight, api-break"),
        ("      shelf: { destination: Shelf, inverse: books }", "      shelf: { destination: Shelf, inverse: books, optional: false }", "relationship Book.shelf became required", "custom-stage, api-break"),
        ("      loans: { destination: Loan, toMany: true, inverse: book, deleteRule: cascade }", "      loans: { destination: Loan, toMany: true, inverse: book, deleteRule: deny }", "relationship Book.loans: its delete rule changed", "safe"),
        ("      tags: { destination: Tag, toMany: true, inverse: books }", "      tags: { destination: Tag, toMany: true, inverse: books, max: 5 }", "relationship Book.tags: its count bounds changed", "safe"),
        ("      branch: { destination: Shelf, inverse: none }", "      site: { destination: Shelf, inverse: none, renamingIdentifier: branch }", "relationship Loan.branch was renamed to site", "lightweight, api-break"),
        // Version hash modifiers: the same layout, a new version for stores.
        ("      pages: { type: int32, default: 0 }", "      pages: { type: int32, default: 0, versionHashModifier: counted }", "attribute Book.pages: its versionHashModifier changed from none to counted", "lightweight"),
        ("      shelf: { destination: Shelf, inverse: books }", "      shelf: { destination: Shelf, inverse: books, versionHashModifier: moved }", "relationship Book.shelf: its versionHashModifier changed from none to moved", "lightweight"),
        ("  Book:\n    parent: Item\n", "  Book:\n    parent: Item\n    versionHashModifier: v2\n", "entity Book: its versionHashModifier changed from none to v2", "lightweight"),
        // Fetched and computed properties, indexes, uniqueness.
        ("      recent: { destination: Loan, predicate: 'book == $FETCH_SOURCE' }\n", "      recent: { destination: Loan, predicate: 'book == $FETCH_SOURCE' }\n      due: { destination: Loan, predicate: 'book == $FETCH_SOURCE AND due != nil' }\n", "fetched property Book.due was added", "safe"),
        ("    fetchedProperties:\n      recent: { destination: Loan, predicate: 'book == $FETCH_SOURCE' }\n", "", "fetched property Book.recent was removed", "api-break"),
        ("    computed:\n      label: { type: String, dependsOn: [title] }\n", "", "computed property Book.label was removed", "api-break"),
        ("    indexes: [[title]]", "    indexes: [[title], [pages]]", "index Book(pages) was added", "lightweight"),
        ("    indexes: [[title]]\n", "", "index Book(title) was removed", "lightweight"),
        ("    unique: [[title]]", "    unique: [[title], [pages]]", "uniqueness constraint Book(pages) was added", "custom-stage"),
        ("    unique: [[title]]\n", "", "uniqueness constraint Book(title) was removed", "lightweight"),
        // Composite types.
        ("      city: string\n", "      city: string\n      zip: string?\n", "attribute Address.zip was added", "lightweight"),
        ("      city: string\n", "      city: string\n      street: string\n", "attribute Address.street was added, required", "custom-stage"),
        // Fetch request templates.
        ("    predicate: 'pages > 300'\n", "    predicate: 'pages > 400'\n", "fetch request template long changed what it fetches", "safe"),
        ("    predicate: 'pages > 300'\n", "    predicate: 'pages > 300'\n  short:\n    entity: Book\n    predicate: 'pages < 50'\n", "fetch request template short was added", "safe"),
        ("    entity: Book\n    predicate: 'pages > 300'", "    entity: Book\n    swiftName: longBooks\n    predicate: 'pages > 300'", "fetch request template long: its generated function was renamed", "api-break"),
        ("    predicate: 'pages > 300'\n", "    predicate: 'pages > 300'\n    properties: [title]\n", "fetch request template long changed its projected properties", "api-break"),
    ]

    @Test(arguments: cases.indices)
    func eachKindOfChangeIsClassified(_ index: Int) throws {
        let (old, new, message, classes) = Self.cases[index]
        let found = try change(old, new, message)
        #expect(found.classification == classes, "\(found.message): \(found.classification)")
    }

    /// A first member's order changes what the template fetches (its row type stays); its name
    /// (`as`) changes the row type.
    @Test func aFirstMembersOrderChangesWhatItFetchesAndItsNameTheRow() throws {
        let template = "    predicate: 'pages > 300'\n"
        let before = try model(try edited(template, template + "    properties: [title, { first: loans.due, by: [due] }]\n"))
        func changes(_ properties: String) throws -> [ModelChange] {
            ModelDiff.changes(from: before, to: try model(try edited(template, template + "    properties: \(properties)\n")))
        }
        let reordered = try changes("[title, { first: loans.due, by: [due desc] }]")
        #expect(reordered.map(\.message) == ["fetch request template long changed what it fetches"])
        #expect(reordered.first?.classification == "safe")
        let named = try changes("[title, { first: loans.due, by: [due], as: firstDue }]")
        #expect(named.map(\.message) == ["fetch request template long changed its projected properties"])
        #expect(named.first?.classification == "api-break")
        #expect(try changes("[title, { first: loans.due, by: [due] }]").isEmpty)
    }

    @Test func anEntityRenamedWithItsRenamingIdentifierKeepsItsRelationships() throws {
        let new = try edited("  Shelf:\n    attributes:", "  Rack:\n    renamingIdentifier: Shelf\n    attributes:")
            .replacingOccurrences(of: "destination: Shelf", with: "destination: Rack")
        let changes = ModelDiff.changes(from: try model(Self.base), to: try model(new))
        #expect(changes.map(\.message) == ["entity Shelf was renamed to Rack (renamingIdentifier: stores keep its records)"])
        #expect(changes.first?.classification == "lightweight, api-break")
        // Without the identifier it is a removal and an addition, and the relationships to it change destination.
        let dropped = ModelDiff.changes(from: try model(Self.base), to: try model(new.replacingOccurrences(of: "    renamingIdentifier: Shelf\n", with: "")))
        #expect(dropped.map(\.classification).sorted() == ["custom-stage, api-break", "custom-stage, api-break", "data-loss, api-break", "lightweight"],
                "\(dropped.map(\.message))")
    }

    @Test func removalsAreTemplatesAndEntitiesAndPlacedInBothFiles() throws {
        let new = try edited("fetchRequests:\n  long:\n    entity: Book\n    predicate: 'pages > 300'\n", "")
            .replacingOccurrences(of: "  Tag:\n    attributes:\n      name: string\n    relationships:\n      books: { destination: Book, toMany: true, inverse: tags }\n", with: "")
            .replacingOccurrences(of: "      tags: { destination: Tag, toMany: true, inverse: books }\n", with: "")
        let changes = ModelDiff.changes(from: try model(Self.base), to: try model(new))
        #expect(changes.map(\.classification) == ["data-loss, api-break", "data-loss, api-break", "api-break"], "\(changes.map(\.message))")
        #expect(changes.map { $0.message.prefix(30) } == ["relationship Book.tags was rem", "entity Tag was removed: its sa", "fetch request template long wa"])
        // Removed things are placed in the old file, anchored in the new one at their entity (else the model's name).
        #expect(changes.allSatisfy { $0.new == nil && $0.old != nil && $0.anchor != nil })
        #expect(changes[0].anchor?.line == 12 && changes[1].anchor?.line == 1)
        // A rename is placed in both.
        let renamed = try change("      notes: string?", "      remarks: { type: string, optional: true, renamingIdentifier: notes }", "attribute Book.notes was renamed")
        #expect(renamed.old?.line == 17 && renamed.new?.line == 17)
    }
}

/// `versionHashModifier` changes the version hash (and nothing else a store keeps): two versions that
/// differ only by it are two versions to `modelgen validate` and to a `MigrationPlan`.
@Suite struct VersionHashModifierTests {
    @Test func aModifierChangesTheHashAndOnlyTheModifier() throws {
        func hash(_ text: String) throws -> String {
            let check = ModelCheck.run(text: text, path: "m.model.yaml")
            return try #require(check.model, "\(check.diagnostics)").versionHash
        }
        let plain = "model: M\nentities:\n  A:\n    attributes:\n      x: string\n"
        let entity = "model: M\nentities:\n  A:\n    versionHashModifier: cents\n    attributes:\n      x: string\n"
        let attribute = "model: M\nentities:\n  A:\n    attributes:\n      x: { type: string, versionHashModifier: cents }\n"
        let hashes = try [plain, entity, attribute].map(hash)
        #expect(Set(hashes).count == 3)
        // A default (not kept by stores) leaves the hash as it was.
        #expect(try hash("model: M\nentities:\n  A:\n    attributes:\n      x: { type: string, default: y }\n") == hashes[0])
        // Not on a composite attribute.
        let composite = ModelCheck.run(text: "model: M\ncomposites:\n  P:\n    attributes:\n      c: string\nentities:\n  A:\n    attributes:\n      p: { type: P, versionHashModifier: x }\n", path: "m.model.yaml")
        #expect(composite.diagnostics.contains { $0.message.contains("cannot take a versionHashModifier") })
    }
}
