import Foundation
import TestScratch
import Testing

/// Every ```swift block of README.md and docs/*.md is under test: found, line for line, in a file the
/// tests or `make examples` compile (the documents' examples in Tests/GeneratedCodeTests, the
/// concurrency guide's, the generated references, the PostgreSQL tests, the example packages), or, for
/// a Package.swift fragment, loaded by SwiftPM in a manifest of its own. A block found nowhere (code that
/// drifted from the API, a property the model does not have) fails here, naming its file and line.
///
/// How a block matches: its `import` lines must be imports of the file; the rest must appear as
/// consecutive lines of the file, indented alike (the file may indent the whole block, as a function
/// body does); a line `// …` stands for lines left out, and a line ending in `…` for the rest of its line.
@Suite struct DocumentationCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A ```swift block of a document.
    struct Block: CustomStringConvertible {
        var document: String
        var line: Int
        var lines: [String]
        var description: String { "\(document):\(line)" }
        /// A Package.swift fragment (its first line says so).
        var isManifest: Bool { lines.first?.hasPrefix("// Package.swift") == true }
    }

    static func blocks() throws -> [Block] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        var blocks: [Block] = []
        for document in ["README.md"] + docs {
            let lines = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
                .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            var open: Block?
            for (index, line) in lines.enumerated() {
                if var block = open {
                    if line.hasPrefix("```") {
                        blocks.append(block)
                        open = nil
                    } else {
                        block.lines.append(line)
                        open = block
                    }
                } else if line == "```swift" {
                    open = Block(document: document, line: index + 2, lines: [])
                }
            }
        }
        return blocks
    }

    /// The Swift files a block may be found in: compiled by `make test`, `make test-postgres`, `make examples`
    /// or `make consumer` (the starter `modelgen init` writes, built and run).
    static func compiledSources() throws -> [(path: String, lines: [String])] {
        var files: [(String, [String])] = []
        for folder in ["Tests/GeneratedCodeTests", "Tests/ModelgenPostgresTests", "Examples", "Templates/Starter"] {
            let base = root.appendingPathComponent(folder)
            guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in enumerator where url.pathExtension == "swift" && !url.path.contains("/.build")
                && url.lastPathComponent != "Package.swift" {
                let text = try String(contentsOf: url, encoding: .utf8)
                files.append((String(url.path.dropFirst(root.path.count + 1)), text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)))
            }
        }
        return files.sorted { $0.0 < $1.0 }
    }

    static func indentation(_ line: String) -> Int { line.prefix { $0 == " " }.count }

    /// Whether `block` is in `file`, as the suite's comment says.
    static func contains(_ file: [String], _ block: [String]) -> Bool {
        let imports = block.filter { $0.hasPrefix("import ") }
        guard imports.allSatisfy(file.contains) else { return false }
        // Segments between `// …` lines, each without its leading and trailing blank lines.
        var segments: [[String]] = [[]]
        for line in block where !line.hasPrefix("import ") {
            if line.trimmingCharacters(in: .whitespaces).hasPrefix("// …") { segments.append([]) } else { segments[segments.count - 1].append(line) }
        }
        segments = segments.map { segment in
            Array(segment.drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed().drop { $0.trimmingCharacters(in: .whitespaces).isEmpty }.reversed())
        }.filter { !$0.isEmpty }
        var from = 0
        for segment in segments {
            guard let end = find(segment, in: file, from: from) else { return false }
            from = end
        }
        return true
    }

    /// The index after the first place at or after `from` where `segment` matches `file`.
    static func find(_ segment: [String], in file: [String], from: Int) -> Int? {
        let base = segment.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }.map(indentation).min() ?? 0
        guard file.count >= segment.count else { return nil }
        for start in from..<(file.count - segment.count + 1) {
            let shift = indentation(file[start]) - indentation(segment[0])
            guard shift >= 0 else { continue }
            let matches = zip(segment, file[start...]).allSatisfy { wanted, line in
                if wanted.trimmingCharacters(in: .whitespaces).isEmpty { return line.trimmingCharacters(in: .whitespaces).isEmpty }
                let expected = String(repeating: " ", count: shift + indentation(wanted) - base + base) + wanted.drop { $0 == " " }
                if expected.hasSuffix("…") { return line.hasPrefix(expected.dropLast()) }
                return line == expected
            }
            if matches { return start + segment.count }
        }
        return nil
    }

    @Test func everySwiftBlockOfTheDocumentsIsCompiledByATest() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count >= 15, "the README and docs/ have Swift blocks")
        let sources = try Self.compiledSources()
        for block in blocks where !block.isManifest {
            let homes = sources.filter { Self.contains($0.lines, block.lines) }.map(\.path)
            #expect(!homes.isEmpty, "\(block): this ```swift block is in no file the tests compile:\n\(block.lines.prefix(6).joined(separator: "\n"))")
        }
    }

    /// A Package.swift fragment is loaded by SwiftPM as the arguments of `Package(name:…)` (no
    /// dependency is fetched: `dump-package` reads the manifest alone).
    @Test func everyPackageManifestFragmentLoads() throws {
        let manifests = try Self.blocks().filter(\.isManifest)
        #expect(manifests.count >= 2)
        for block in manifests {
            let directory = scratchDirectory.appendingPathComponent("doc-manifest-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let manifest = "// swift-tools-version:6.1\nimport PackageDescription\n\nlet package = Package(\n    name: \"DocumentedPackage\",\n"
                + block.lines.dropFirst().joined(separator: "\n") + "\n)\n"
            try manifest.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
            let run = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "dump-package"], in: directory)
            #expect(run.status == 0, "\(block): the Package.swift fragment does not load:\n\(run.stderr.suffix(2000))")
        }
    }

    /// The README's model is the one `modelgen init` writes (the starter, less its comment lines).
    @Test func theReadmesModelIsTheStarter() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let starter = try String(contentsOf: Self.root.appendingPathComponent("Templates/Starter/Library.model.yaml"), encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("#") }.joined(separator: "\n")
        #expect(readme.contains("```yaml\n" + starter + "```"), "README.md's model is not Templates/Starter/Library.model.yaml")
    }

    /// A figure the README shows is the one docs/performance.md's current table has for the question:
    /// performance.md is the source, the README's "Speed" table copies three of its rows.
    @Test func theReadmesFiguresAreThoseOfThePerformanceTable() throws {
        func rows(_ document: String, under heading: String) throws -> [[String]] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            let section = try #require(text.components(separatedBy: "\n\(heading)\n").dropFirst().first, "\(document) has no \(heading)")
            return section.split(separator: "\n").prefix { !$0.hasPrefix("#") }.filter { $0.hasPrefix("| ") }
                .map { $0.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } }
        }
        let readme = try rows("README.md", under: "## Speed").dropFirst()   // the header row
        let current = try rows("docs/performance.md", under: "## Today's figures")
        #expect(readme.count >= 3)
        for row in readme {
            let (question, ratio, goal) = (row[0], row[1], row[2])
            let source = current.first { $0.contains(question) }
            #expect(source != nil, "README's speed row '\(question)' is not a row of docs/performance.md's current table")
            #expect(source?.contains(ratio) == true && source?.contains(goal) == true,
                    "README says \(ratio) (goal \(goal)) for '\(question)'; docs/performance.md: \(source ?? [])")
        }
    }

    /// The matcher itself: indentation, elisions and imports.
    @Test func theMatcherFindsIndentedBlocksWithElisionsAndNothingElse() {
        let file = ["import Foundation", "import ModelgenRuntime", "", "func f() {", "    let a = 1   // one", "    let b = 2",
                    "    if a < b {", "        print(a)", "    }", "    /// Computed by `x` and more words", "    let c = 3", "}"]
        #expect(Self.contains(file, ["import ModelgenRuntime", "", "let a = 1   // one", "let b = 2"]))
        #expect(Self.contains(file, ["if a < b {", "    print(a)", "}"]))
        #expect(Self.contains(file, ["let a = 1   // one", "// … more lines", "/// Computed by `x` …", "let c = 3"]))
        #expect(!Self.contains(file, ["let a = 1 // one"]))              // spacing counts
        #expect(!Self.contains(file, ["if a < b {", "print(a)", "}"]))    // so does relative indentation
        #expect(!Self.contains(file, ["let b = 2", "let a = 1   // one"])) // and order
        #expect(!Self.contains(file, ["import Observation", "let b = 2"]))
    }
}
