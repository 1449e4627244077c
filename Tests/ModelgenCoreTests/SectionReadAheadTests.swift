import Foundation
@_spi(Testing) @testable import ModelgenCore
import Testing

/// Reading entities and fetch requests on a second thread while the file is composed
/// (`SectionReadAhead`) gives what reading them in turn gives: the same model, value for value and position for position, and the
/// same diagnostics in the same order, on every model of the repository and on models written to
/// defeat it.
@Suite struct SectionReadAheadTests {
    /// Everything parsing produced, written out (`ObjectModel` holds every value with its position).
    private func outcome(_ text: String, readingAhead: Bool) -> (model: String, diagnostics: [Diagnostic], readAhead: Set<String>) {
        let result = ModelParser.parse(data: Data(text.utf8), path: "m.model.yaml", readingAhead: readingAhead)
        var model = ""
        if let parsed = result.model { dump(parsed, to: &model) }
        return (model, result.diagnostics, result.sectionsReadAhead)
    }

    /// Parses both ways and compares; returns the sections that were in fact read ahead.
    @discardableResult
    private func expectSameOutcome(_ text: String, _ comment: Comment? = nil) -> Set<String> {
        let inTurn = outcome(text, readingAhead: false)
        let ahead = outcome(text, readingAhead: true)
        #expect(inTurn.readAhead.isEmpty)
        #expect(ahead.model == inTurn.model, comment)
        #expect(ahead.diagnostics == inTurn.diagnostics, comment)
        return ahead.readAhead
    }

    @Test func everyModelOfTheRepositoryParsesTheSameEitherWay() throws {
        let corpus = ModelCorpus { $0.lastPathComponent.hasSuffix(".model.yaml") }
        corpus.expectSize(repositoryFloor: 8, sharedFloor: 12)
        // Counted apart, so that a fresh clone (no ../shared) checks the repository's models alone.
        for (files, floors) in [(corpus.repository, (readAhead: 5, fetchRequests: 2)), (corpus.shared, (readAhead: 8, fetchRequests: 2))] {
            var readAhead = 0, fetchRequestsReadAhead = 0
            for file in files {
                let sections = expectSameOutcome(try String(contentsOf: file, encoding: .utf8), "\(file.path)")
                if sections.contains("entities") { readAhead += 1 }
                if sections.contains("fetchRequests") { fetchRequestsReadAhead += 1 }
            }
            if files.isEmpty { continue }
            #expect(readAhead >= floors.readAhead, "the entities of most models are read ahead")
            #expect(fetchRequestsReadAhead >= floors.fetchRequests, "and the fetch requests of those that have them")
        }
    }

    /// A model of this test's own: composites, every kind of property, predicates, aliases, and errors
    /// in many entities (their diagnostics must keep their order among the top-level ones).
    private static func largeModelWithErrors() -> String {
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
        for i in 0..<100 {
            text += "  query\(i): { entity: Item\(i), predicate: '\(i % 4 == 0 ? "name ==" : "name == $NAME AND count > \(i)")', "
            text += "sort: [\(i % 6 == 0 ? "name sideways" : "name")], limit: \(i % 9 == 0 ? "-1" : "10"), \(i % 13 == 0 ? "bogus: 1" : "doc: Query \(i)") }\n"
        }
        text += "configurations:\n  Main: [Item1, Item2]\n  Odd: 3\n"
        return text
    }

    @Test func aLargeModelWithErrorsParsesTheSameEitherWay() {
        let text = Self.largeModelWithErrors()
        #expect(expectSameOutcome(text) == ["entities", "fetchRequests"])
        let diagnostics = outcome(text, readingAhead: true).diagnostics
        #expect(diagnostics.count > 600, "errors in every entity: \(diagnostics.count)")
        #expect(diagnostics.contains { $0.location.line > text.split(separator: "\n").count - 100 }, "and in the fetch requests")
    }

    /// The entity graph built on the second thread as entities are read is the parsed model's graph:
    /// it answers as one built afterwards does, validating with it gives the same diagnostics, and it
    /// stops describing the model once the model's entities change.
    @Test func theEntityGraphBuiltWhileReadingAheadIsTheModels() throws {
        let result = ModelParser.parse(data: Data(Self.largeModelWithErrors().utf8), path: "m.model.yaml", readingAhead: true)
        let model = try #require(result.model)
        let graph = try #require(result.entityGraph)
        #expect(graph.describes(model))
        let built = EntityGraph(model)
        for entity in model.entities {
            let name = entity.name.value
            #expect(graph.position(of: name) == built.position(of: name))
            #expect(graph.propertyNames(in: name) == built.propertyNames(in: name))
            for property in graph.propertyNames(in: name) {
                #expect(graph.property(property, in: name)?.owner == built.property(property, in: name)?.owner)
            }
        }
        #expect(ModelValidator.validate(model, inChunks: false, graph: graph).diagnostics
                == ModelValidator.validate(model, inChunks: false).diagnostics)

        var renamed = model
        renamed.entities[0].doc = "changed"
        #expect(!graph.describes(renamed), "a changed entity array is another array")
        var fewer = model
        fewer.entities.removeLast()
        #expect(!graph.describes(fewer))
        #expect(ModelParser.parse(data: Data(Self.largeModelWithErrors().utf8), path: "m.model.yaml", readingAhead: false).entityGraph == nil)
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
        #expect(expectSameOutcome(compositesAfter).isEmpty)
        #expect(outcome(compositesAfter, readingAhead: true).diagnostics.isEmpty)

        let aliased = """
        model: M
        shared: &entities
          A:
            attributes:
              name: string
        entities: *entities

        """
        #expect(expectSameOutcome(aliased).isEmpty)

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
        #expect(expectSameOutcome(compositesBefore) == ["entities"])
        #expect(outcome(compositesBefore, readingAhead: true).diagnostics.isEmpty)
    }

    /// The file is refused whole, read ahead or in turn, with the node budget's error alone.
    private func expectRefusedEitherWay(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        for ahead in [false, true] {
            let result = ModelParser.parse(data: Data(text.utf8), path: "m.model.yaml", readingAhead: ahead)
            #expect(result.model == nil, sourceLocation: sourceLocation)
            #expect(result.diagnostics.count == 1, sourceLocation: sourceLocation)
            #expect(result.diagnostics.first?.id == .yamlTooComplex, sourceLocation: sourceLocation)
        }
    }

    /// Aliases that expand across the entities exhaust the worker's node budget: the file is refused
    /// whole, as when read in turn, with the budget's error.
    @Test func anAliasBombInTheEntitiesIsRefusedEitherWay() {
        var text = "model: Bomb\nentities:\n  E0:\n    attributes: &attrs\n"
        for i in 0..<300 { text += "      a\(i): string\n" }
        for i in 1..<300 { text += "  E\(i): { attributes: *attrs }\n" }
        expectRefusedEitherWay(text)
    }

    /// Fetch requests read ahead whatever comes around them: before the entities (their diagnostics
    /// still come after the entities'), with composites after the entities (which only the entities
    /// must then be read in turn for); an aliased section is read in turn.
    @Test func fetchRequestsAreReadAheadWhereverTheyAre() {
        var entities = "entities:\n"
        var requests = "fetchRequests:\n"
        for i in 0..<40 {
            entities += "  E\(i):\n    attributes:\n      name: \(i % 5 == 0 ? "strng" : "string")\n      home: Address\n"
            requests += "  byName\(i): { entity: E\(i), predicate: '\(i % 3 == 0 ? "name = = 1" : "name == $NAME")', sort: [name], limit: \(i % 7 == 0 ? "x" : "5") }\n"
        }
        let composites = "composites:\n  Address:\n    attributes:\n      city: string\n"
        let first = "model: M\n" + requests + composites + entities
        #expect(expectSameOutcome(first) == ["entities", "fetchRequests"])
        let diagnostics = outcome(first, readingAhead: true).diagnostics
        #expect(diagnostics.count > 20)
        let compositesAfter = "model: M\n" + entities + requests + composites
        #expect(expectSameOutcome(compositesAfter) == ["fetchRequests"])
        let aliased = "model: M\n" + composites + entities + requests.replacingOccurrences(of: "fetchRequests:", with: "shared: &requests") + "fetchRequests: *requests\n"
        #expect(expectSameOutcome(aliased) == ["entities"])
    }

    /// Aliases that expand across the fetch requests exhaust the worker's node budget: the file is
    /// refused whole, as when read in turn.
    @Test func anAliasBombInTheFetchRequestsIsRefusedEitherWay() {
        var text = "model: Bomb\nentities:\n  E:\n    attributes:\n      name: string\nfetchRequests:\n  q0:\n    entity: E\n    sort: &sort\n"
        for i in 0..<300 { text += "      - name\(i)\n" }
        for i in 1..<300 { text += "  q\(i): { entity: E, sort: *sort }\n" }
        expectRefusedEitherWay(text)
    }
}
