import Foundation
@_spi(Testing) @testable import ModelgenCore
import Testing

/// Reading entities on a second thread while the file is composed (`EntityReadAhead`) gives what
/// reading them in turn gives: the same model, value for value and position for position, and the
/// same diagnostics in the same order, on every model of the repository and on models written to
/// defeat it.
@Suite struct EntityReadAheadTests {
    /// Everything parsing produced, written out (`ObjectModel` holds every value with its position).
    private func outcome(_ text: String, readingAhead: Bool) -> (model: String, diagnostics: [Diagnostic], readAhead: Bool) {
        let result = ModelParser.parse(data: Data(text.utf8), path: "m.model.yaml", readingAhead: readingAhead)
        var model = ""
        if let parsed = result.model { dump(parsed, to: &model) }
        return (model, result.diagnostics, result.entitiesWereReadAhead)
    }

    /// Parses both ways and compares; returns whether the entities were in fact read ahead.
    @discardableResult
    private func expectSameOutcome(_ text: String, _ comment: Comment? = nil) -> Bool {
        let inTurn = outcome(text, readingAhead: false)
        let ahead = outcome(text, readingAhead: true)
        #expect(!inTurn.readAhead)
        #expect(ahead.model == inTurn.model, comment)
        #expect(ahead.diagnostics == inTurn.diagnostics, comment)
        return ahead.readAhead
    }

    @Test func everyModelOfTheRepositoryParsesTheSameEitherWay() throws {
        var readAhead = 0, compared = 0
        let roots = ["Examples", "Tests/Models", "Tests/Fixtures", "../shared/models"].map { packageRoot.appendingPathComponent($0) }
        for root in roots {
            guard let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { continue }
            for case let file as URL in files where file.lastPathComponent.hasSuffix(".model.yaml") && !file.path.contains("/.build") {
                if expectSameOutcome(try String(contentsOf: file, encoding: .utf8), "\(file.path)") { readAhead += 1 }
                compared += 1
            }
        }
        #expect(compared > 20)
        #expect(readAhead > 15, "the entities of most models are read ahead")
    }

    /// A model of this test's own: composites, every kind of property, predicates, aliases, and errors
    /// in many entities (their diagnostics must keep their order among the top-level ones).
    @Test func aLargeModelWithErrorsParsesTheSameEitherWay() {
        var text = """
        model: Shop
        formatVersion: 1
        options: { codegen: class, access: public }
        composites:
          Money:
            attributes:
              amount: { type: decimal, default: 0 }
              currency: { type: string, default: EUR }
        entities:

        """
        for i in 0..<300 {
            text += """
              Item\(i):
                doc: "Item number \(i)"
                parent: \(i % 7 == 0 && i > 0 ? "Item0" : "Base")
                attributes:
                  name: { type: string, min: 1, max: 80, regex: '^[A-Za-z ]+$' }
                  price: Money
                  count: { type: int32, default: \(i % 5 == 0 ? "lots" : "0"), min: 0 }
                  created: date?
                  tag: \(i % 3 == 0 ? "[string]" : "string")
                  userInfo: { type: string, userInfo: { key: value } }
                  bogus\(i): { type: strin }
                relationships:
                  next: { destination: Item\((i + 1) % 300), inverse: previous\(i % 11 == 0 ? "X" : "") }
                  previous: { destination: Item\((i + 299) % 300), inverse: next, unknownKey: 1 }
                fetchedProperties:
                  similar: { destination: Item\(i), predicate: 'name BEGINSWITH[c] $FETCH_SOURCE.name AND count > \(i)', sort: [name] }
                computed:
                  label: { type: String, dependsOn: [name, count] }

            """
        }
        text += """
          Base:
            abstract: true
        fetchRequests:
          cheap: { entity: Item1, predicate: 'count < $MAX', sort: 'name desc', limit: 03 }
          broken: { entity: Item2, predicate: 'count <' }

        """
        #expect(expectSameOutcome(text))
        let diagnostics = outcome(text, readingAhead: true).diagnostics
        #expect(diagnostics.count > 600, "errors in every entity: \(diagnostics.count)")
    }

    /// Where reading ahead cannot know what reading in turn knows, the main parser reads the entities
    /// itself: composites declared after the entities, entities given through an alias.
    @Test func entitiesThatCannotBeReadAheadAreReadInTurn() {
        let compositesAfter = """
        model: M
        entities:
          A:
            attributes:
              home: Address
              name: string
        composites:
          Address:
            attributes:
              city: string

        """
        #expect(!expectSameOutcome(compositesAfter))
        #expect(outcome(compositesAfter, readingAhead: true).diagnostics.isEmpty)

        let aliased = """
        model: M
        shared: &entities
          A:
            attributes:
              name: string
        entities: *entities

        """
        #expect(!expectSameOutcome(aliased))

        let compositesBefore = """
        model: M
        composites:
          Address:
            attributes:
              city: string
        entities:
          A:
            attributes:
              home: Address

        """
        #expect(expectSameOutcome(compositesBefore))
        #expect(outcome(compositesBefore, readingAhead: true).diagnostics.isEmpty)
    }

    /// Aliases that expand across the entities exhaust the worker's node budget: the file is refused
    /// whole, as when read in turn, with the budget's error.
    @Test func anAliasBombInTheEntitiesIsRefusedEitherWay() {
        var text = "model: Bomb\nentities:\n  E0:\n    attributes: &attrs\n"
        for i in 0..<300 { text += "      a\(i): string\n" }
        for i in 1..<300 { text += "  E\(i): { attributes: *attrs }\n" }
        for ahead in [false, true] {
            let result = ModelParser.parse(data: Data(text.utf8), path: "m.model.yaml", readingAhead: ahead)
            #expect(result.model == nil)
            #expect(result.diagnostics.count == 1)
            #expect(result.diagnostics.first?.id == .yamlTooComplex)
        }
    }
}
