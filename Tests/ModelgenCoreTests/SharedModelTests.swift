import Foundation
@testable import ModelgenCore
import Testing

/// The models in `../shared/models` (the project's contract): the examples validate cleanly, and every
/// file in `invalid/` gives the diagnostic its `# expect:` lines name (checked here in process; the
/// shared Python checker runs the binary in `make test` too).
@Suite(.enabled(if: hasSharedDirectory, "../shared is not beside the repository"))
struct SharedModelTests {
    static func files(in folder: String) -> [URL] {
        let directory = sharedDirectory.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".model.yaml") || $0.hasSuffix(".model.yml") }.sorted()
            .map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: files(in: "models"))
    func exampleModelValidatesWithoutWarnings(file: URL) throws {
        let result = ModelCheck.run(data: try Data(contentsOf: file), path: file.lastPathComponent)
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    }

    @Test func blogTemplateVariablesGetTypes() throws {
        let file = sharedDirectory.appendingPathComponent("models/Blog.model.yaml")
        let result = ModelCheck.run(data: try Data(contentsOf: file), path: "Blog.model.yaml")
        func signature(_ name: String) -> [String] {
            (result.templateVariables[name] ?? []).map { "\($0.parameterName): \($0.type.swiftTypeName(className: { $0 }))" }
        }
        #expect(signature("postsByAuthorName") == ["name: String", "minLikes: Int64"])
        #expect(signature("taggedPosts") == ["tagNames: [String]"])
        #expect(signature("recentComments") == ["since: Date"])
    }

    /// Variables inside the aggregate of BETWEEN or IN take the type of the key path they are compared
    /// with (Core Data accepts `pages BETWEEN {$MIN_PAGES, $MAX_PAGES}`); mixing in a wrong literal is
    /// still an error at its position.
    @Test func variablesInsideAggregatesTakeTheKeyPathsType() throws {
        let yaml = """
            model: Books
            entities:
              Book:
                attributes:
                  pages: int16
                  title: string
                relationships:
                  tags: { destination: Tag, toMany: true, inverse: books }
              Tag:
                attributes:
                  name: string
                relationships:
                  books: { destination: Book, toMany: true, inverse: tags }
            fetchRequests:
              byPages: { entity: Book, predicate: 'pages BETWEEN {$MIN_PAGES, $MAX_PAGES}' }
              someTitles: { entity: Book, predicate: 'title IN {$FIRST, "Dune"}' }
              tagged: { entity: Book, predicate: 'ANY tags.name IN {$TAG, $OTHER}' }

            """
        let result = ModelCheck.run(data: Data(yaml.utf8), path: "Books.model.yaml")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
        func signature(_ name: String) -> [String] {
            (result.templateVariables[name] ?? []).map { "\($0.parameterName): \($0.type.swiftTypeName(className: { $0 }))" }
        }
        #expect(signature("byPages") == ["minPages: Int16", "maxPages: Int16"])
        #expect(signature("someTitles") == ["first: String"])
        #expect(signature("tagged") == ["tag: String", "other: String"])

        let wrong = yaml.replacingOccurrences(of: "{$MIN_PAGES, $MAX_PAGES}", with: "{$MIN_PAGES, 'many'}")
        let refused = ModelCheck.run(data: Data(wrong.utf8), path: "Books.model.yaml")
        #expect(refused.diagnostics.map(\.description).contains { $0.contains("Books.model.yaml:15:") && $0.contains("error") },
                "\(refused.diagnostics.map(\.description))")
    }

    @Test(arguments: files(in: "models/invalid"))
    func invalidModelGivesTheExpectedDiagnostic(file: URL) throws {
        let data = try Data(contentsOf: file)
        let result = ModelCheck.run(data: data, path: file.lastPathComponent)
        let header = String(decoding: data, as: UTF8.self).split(separator: "\n").prefix(5)
        let expectations = header.compactMap { line -> (Set<Int>, Severity, [String])? in
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count >= 5, parts[0] == "#", parts[1] == "expect:" else { return nil }
            var lines = Set<Int>()
            for part in parts[2].split(separator: ",") {
                let bounds = part.split(separator: "-").compactMap { Int($0) }
                lines.formUnion(bounds.count == 2 ? Array(bounds[0]...bounds[1]) : bounds)
            }
            return (lines, Severity(rawValue: String(parts[3]))!, parts[4].lowercased().split(separator: "|").map(String.init))
        }
        if data.isEmpty {
            #expect(result.hasErrors)
            return
        }
        #expect(!expectations.isEmpty)
        for (lines, severity, words) in expectations {
            #expect(result.diagnostics.contains { d in
                d.severity == severity && lines.contains(d.location.line) && words.contains { d.message.lowercased().contains($0) }
            }, "\(file.lastPathComponent): no \(severity) on \(lines.sorted()) with \(words); got \(result.diagnostics.map(\.description))")
        }
        #expect(result.hasErrors == expectations.contains { $0.1 == .error })
    }
}
