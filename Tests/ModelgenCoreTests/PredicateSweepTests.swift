import Foundation
import ModelgenPredicate
import Testing
@testable import ModelgenCore

/// The predicate language construct by construct, and operand shape by shape (key path, literal,
/// variable, aggregate): each case is a fetch request template of one model, which must validate,
/// infer each `$VARIABLE`'s Swift type (the generated helper's parameter), and print back to text that
/// parses to the same predicate. Evaluation of the same constructs in memory and in SQL is the runtime's
/// sweep (`SQLiteStoreTests.predicatesAgreeWithTheInMemoryStore`, `TypedPredicateTests`).
@Suite struct PredicateSweepTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var predicate: String
        /// `NAME: SwiftType` for each variable, in order of first use.
        var variables: [String]
        var entity = "Book"
        var testDescription: String { predicate }
    }

    static let model = """
        model: Sweep
        entities:
          Shelf:
            attributes: { label: string }
            relationships:
              books: { destination: Book, toMany: true, ordered: true, inverse: shelf }
          Book:
            attributes:
              title: string
              pages: { type: int16, default: 0 }
              count32: { type: int32, default: 0 }
              rating: { type: double, default: 0 }
              price: { type: decimal, default: 0 }
              published: date?
              isbn: uuid?
              site: uri?
              available: { type: bool, default: true }
            relationships:
              shelf: { destination: Shelf, inverse: books }
              tags: { destination: Tag, toMany: true, inverse: books }
          Tag:
            attributes: { name: string, weight: { type: int64, default: 0 } }
            relationships:
              books: { destination: Book, toMany: true, inverse: tags }
        fetchRequests:

        """

    static let cases: [Case] = [
        // Comparisons: each operator with a key path and a variable, either side.
        Case(predicate: "pages == $P", variables: ["P: Int16"]),
        Case(predicate: "pages != $P", variables: ["P: Int16"]),
        Case(predicate: "pages < $P AND pages <= $Q", variables: ["P: Int16", "Q: Int16"]),
        Case(predicate: "$P > pages", variables: ["P: Int16"]),
        Case(predicate: "count32 >= $C", variables: ["C: Int32"]),
        Case(predicate: "rating > $R", variables: ["R: Double"]),
        Case(predicate: "price > $PRICE", variables: ["PRICE: Decimal"]),
        Case(predicate: "published > $D", variables: ["D: Date"]),
        Case(predicate: "isbn == $ID", variables: ["ID: UUID"]),
        Case(predicate: "site == $URL", variables: ["URL: URL"]),
        Case(predicate: "available == $A", variables: ["A: Bool"]),
        // Literals of each kind.
        Case(predicate: "pages > 100 AND rating > -1.5e2 AND title == 'x' AND title != \"y\" AND available == YES", variables: []),
        Case(predicate: "published == nil AND isbn != NULL AND available == TRUE", variables: []),
        Case(predicate: "published > CAST(733244400, \"NSDate\") AND pages >= CAST(\"42\", \"NSNumber\")", variables: []),
        // BETWEEN and IN with literal aggregates, variable aggregates, a variable, a to-many key path.
        Case(predicate: "pages BETWEEN {100, 200}", variables: []),
        Case(predicate: "pages BETWEEN {$MIN_PAGES, $MAX_PAGES}", variables: ["MIN_PAGES: Int16", "MAX_PAGES: Int16"]),
        Case(predicate: "published BETWEEN {CAST(0, \"NSDate\"), $UNTIL}", variables: ["UNTIL: Date"]),
        Case(predicate: "pages BETWEEN $RANGE", variables: ["RANGE: [Int16]"]),
        Case(predicate: "pages IN {1, 2, 3}", variables: []),
        Case(predicate: "pages IN {1, $ONE}", variables: ["ONE: Int16"]),
        Case(predicate: "title IN $TITLES", variables: ["TITLES: [String]"]),
        Case(predicate: "$TAG IN tags", variables: ["TAG: Tag"]),
        // String operators with options.
        Case(predicate: "title ==[cd] $T", variables: ["T: String"]),
        Case(predicate: "title BEGINSWITH[c] $T OR title ENDSWITH[d] $T", variables: ["T: String"]),
        Case(predicate: "title CONTAINS[cd] $T", variables: ["T: String"]),
        Case(predicate: "title LIKE[c] 'Sw?ft*' OR title MATCHES $PATTERN", variables: ["PATTERN: String"]),
        // To-many: modifiers, collection operators, CONTAINS an object, SUBQUERY.
        Case(predicate: "ANY tags.name IN $NAMES", variables: ["NAMES: [String]"]),
        Case(predicate: "SOME tags.weight > $W", variables: ["W: Int64"]),
        Case(predicate: "ALL tags.weight >= $W", variables: ["W: Int64"]),
        Case(predicate: "NONE tags.name ==[c] $N", variables: ["N: String"]),
        Case(predicate: "tags.@count > $N", variables: ["N: Int64"]),
        Case(predicate: "tags.@sum.weight > $S AND tags.@avg.weight < $AVG", variables: ["S: Int64", "AVG: Double"]),
        Case(predicate: "tags.@min.weight == $LOW OR tags.@max.weight == $HIGH", variables: ["LOW: Int64", "HIGH: Int64"]),
        Case(predicate: "tags CONTAINS $TAG", variables: ["TAG: Tag"]),
        Case(predicate: "SUBQUERY(tags, $t, $t.weight > $W AND name BEGINSWITH $P).@count >= $N", variables: ["W: Int64", "P: String", "N: Int64"]),
        Case(predicate: "SUBQUERY(books, $b, SUBQUERY($b.tags, $t, $t.name == $NAME).@count > 0).@count == 0", variables: ["NAME: String"], entity: "Shelf"),
        // Indexes into an ordered relationship.
        Case(predicate: "books[FIRST].title == $T OR books[LAST].pages > $P", variables: ["T: String", "P: Int16"], entity: "Shelf"),
        Case(predicate: "books[SIZE] > $N AND books[2].shelf == SELF", variables: ["N: Int64"], entity: "Shelf"),
        Case(predicate: "shelf.books[0].title BEGINSWITH 'A'", variables: []),
        // Objects: to-one, SELF.
        Case(predicate: "shelf == $SHELF", variables: ["SHELF: Shelf"]),
        Case(predicate: "shelf.label ==[c] $L", variables: ["L: String"]),
        Case(predicate: "SELF == $BOOK OR SELF IN $BOOKS", variables: ["BOOK: Book", "BOOKS: [Book]"]),
        // Logic and nesting.
        Case(predicate: "TRUEPREDICATE", variables: []),
        Case(predicate: "FALSEPREDICATE OR NOT (pages > 1)", variables: []),
        Case(predicate: "(((pages > 1))) AND (title == 'a' OR (title == 'b' AND NOT available == NO))", variables: []),
        Case(predicate: "pages > 1 && title != 'x' || !(rating < 2)", variables: []),
        // FUNCTION: a Swift function registered at run time; a variable compared with it is Any.
        Case(predicate: "FUNCTION(SELF, 'daysSince:', published) > $DAYS AND FUNCTION(title, 'uppercaseString') BEGINSWITH 'A'", variables: ["DAYS: Any"]),
    ]

    @Test(arguments: cases)
    func validatesInfersAndPrintsBack(_ testCase: Case) throws {
        let yaml = Self.model + "  sweep:\n    entity: \(testCase.entity)\n    predicate: '\(testCase.predicate.replacingOccurrences(of: "'", with: "''"))'\n"
        let check = ModelCheck.run(text: yaml, path: "Sweep.model.yaml")
        #expect(!check.hasErrors, "\(check.diagnostics.map(\.description).joined(separator: "\n"))")
        let inferred = (check.templateVariables["sweep"] ?? []).map { "\($0.name): \($0.type.swiftTypeName { $0 })" }
        #expect(inferred == testCase.variables)
        let parsed = try PredicateParser.parsePredicate(testCase.predicate)
        let printed = parsed.description
        #expect(try PredicateParser.parsePredicate(printed).description == printed, "\(printed)")
        #expect(parsed.variableNames == testCase.variables.map { String($0.prefix { $0 != ":" }) })
    }

    /// Every predicate in the real-world Core Data models (`../shared/realworld/`) parses and prints back;
    /// RealWorldModelTests takes the same models through import, validate, generate, compile and a run.
    @Test func everyRealWorldPredicateParsesAndPrintsBack() throws {
        let folder = sharedDirectory.appendingPathComponent("realworld")
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".xml") }
        #expect(!files.isEmpty || ProcessInfo.processInfo.environment["CI"] != "true", "no realworld models in \(folder.path)")
        var predicates: [String] = []
        for file in files {
            let xml = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            for match in xml.matches(of: /predicateString="([^"]*)"/) {
                predicates.append(String(match.1).replacingOccurrences(of: "&gt;", with: ">").replacingOccurrences(of: "&lt;", with: "<")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
                    .replacingOccurrences(of: "&amp;", with: "&"))
            }
        }
        #expect(!predicates.isEmpty || files.isEmpty)
        for text in predicates {
            let parsed = try PredicateParser.parsePredicate(text)
            #expect(try PredicateParser.parsePredicate(parsed.description) == PredicateParser.parsePredicate(parsed.description), "\(text)")
            #expect(try PredicateParser.parsePredicate(parsed.description).description == parsed.description, "\(text)")
        }
    }

    /// Type errors stay errors, each at its column in the model file (the predicate starts at column 17).
    @Test(arguments: [
        ("pages > 'x'", "type mismatch: 'pages' is int16", 17 + 8),
        ("title > 1", "type mismatch", 17 + 8),
        ("tags.name == 'x'", "crosses a to-many relationship", 17),
        ("SUBQUERY(tags, $t, $t.weight == 'heavy').@count > 0", "type mismatch: '$t.weight' is int64", 17 + 32),
        ("pages BETWEEN {1, 2, 3}", "BETWEEN takes two bounds", 17 + 14),
        ("FUNCTION(SELF) > 1", "FUNCTION takes a receiver, a selector in quotes", 17),
        ("tags[FIRST].name == 'x'", "only an ordered relationship has", 17 + 4),
        ("title[SIZE] > 1", "'[SIZE]' needs a to-many relationship before it", 17 + 5),
    ])
    func typeErrorsAreErrorsAtTheirColumn(predicate: String, message: String, column: Int) {
        let yaml = Self.model + "  sweep:\n    entity: Book\n    predicate: \"\(predicate)\"\n"
        let check = ModelCheck.run(text: yaml, path: "Sweep.model.yaml")
        let line = yaml.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        #expect(check.diagnostics.contains { $0.severity == .error && $0.message.contains(message) && $0.location.line == line && $0.location.column == column },
                "\(check.diagnostics.map(\.description).joined(separator: "\n"))")
    }
}
