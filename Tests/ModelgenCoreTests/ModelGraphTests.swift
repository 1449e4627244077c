import Foundation
@testable import ModelgenCore
import Testing

@Suite struct ModelGraphTests {
    func blog() throws -> ObjectModel {
        let path = "Examples/Blog/Blog.model.yaml"
        return try #require(ModelCheck.run(data: try Data(contentsOf: packageRoot.appendingPathComponent(path)), path: path).model)
    }

    @Test func mermaidShowsEntitiesInheritanceAndEachInversePairOnce() throws {
        let text = ModelGraph.render(try blog(), format: .mermaid)
        #expect(text.hasPrefix("classDiagram\n"))
        #expect(text.contains("    class Person {\n        <<abstract>>\n        string firstName\n"))
        #expect(text.contains("        PostStatus status\n"))
        #expect(text.contains("        int64 commentCount (derived)\n"))
        #expect(text.contains("    Person <|-- Author\n    Person <|-- Reader\n"))
        #expect(text.contains("    Author \"1\" -- \"0..*\" Post : posts (ordered) / author\n"))
        #expect(text.contains("    Post \"0..*\" -- \"0..10\" Tag : tags / posts\n"))
        // Four inverse pairs, each drawn once.
        #expect(text.split(separator: "\n").filter { $0.contains(" -- ") }.count == 4)
    }

    @Test func oneWayAndSelfInverseRelationships() throws {
        let yaml = """
            model: G
            entities:
              Member:
                attributes: { name: string }
                relationships:
                  friends: { destination: Member, toMany: true, inverse: friends }
                  blocked: { destination: Member, toMany: true, inverse: none }
            """
        let text = ModelGraph.render(try #require(check(yaml).model), format: .mermaid)
        #expect(text.contains("    Member \"0..*\" -- \"0..*\" Member : friends\n"))
        #expect(text.contains("    Member \"*\" -- \"0..*\" Member : blocked (one-way)\n"))
    }

    @Test func dotHasARecordPerEntityAndEscapesLabels() throws {
        let text = ModelGraph.render(try blog(), format: .dot)
        #expect(text.hasPrefix("digraph \"Blog\" {\n"))
        #expect(text.contains("\"Person\" [label=\"«abstract»\\nPerson|firstName: string\\l"))
        #expect(text.contains("\"Author\" -> \"Person\" [arrowhead=empty, style=dashed];"))
        #expect(text.hasSuffix("}\n"))
    }
}
