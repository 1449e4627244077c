import Foundation
@testable import ModelgenCore
import Testing
import Yams

/// The composer against Yams' own parser: the same trees, the same positions, and every problem
/// Yams would stop at (or miss) reported at its place.
@Suite struct YAMLComposerTests {
    private func composed(_ text: String, path: String = "t.yaml") -> Result<Node?, YAMLComposer.Failure> {
        guard case .success(let source) = SourceText.decode(Data(text.utf8), path: path) else {
            Issue.record("the text does not decode")
            return .success(nil)
        }
        return YAMLComposer.compose(source)
    }

    /// Every node's kind, text, style and position, depth first: what the readers use (`Node ==` ignores
    /// positions, and compares tags, which the composer does not keep: every scalar is a string).
    private func outline(_ node: Node) -> [String] {
        let here = "\(node.mark?.line ?? 0):\(node.mark?.column ?? 0)"
        switch node {
        case .scalar(let scalar): return ["\(here) scalar \(scalar.style) \(scalar.string.debugDescription)"]
        case .mapping(let mapping): return ["\(here) mapping \(mapping.count)"] + mapping.flatMap { outline($0.key) + outline($0.value) }
        case .sequence(let sequence): return ["\(here) sequence \(sequence.count)"] + sequence.flatMap(outline)
        case .alias: return ["\(here) alias"]
        }
    }

    /// Every model and config file of the repository and ../shared (and documents of every scalar style,
    /// anchors, flow and block collections) composes to the tree Yams composes, node for node,
    /// position for position: this also checks the layout `Mark.at(line:column:)` assumes.
    @Test func composesTheTreeYamsComposes() throws {
        var texts = [
            "a: plain\nb: 'single ''quoted'''\nc: \"double \\u00e9 \\n\"\nd: |\n  literal\n  text\ne: >\n  folded\n  text\nf:\n",
            "- &x { k: [1, 2, {z: 3}], 'q': \"v\" }\n- *x\n- [ ]\n- { }\n-\n  - nested\n  - ℕ → ∞: 'unicode before a key'\n",
            "key: value # a comment\n? explicit\n: value\n---\n",
            "%YAML 1.1\n--- !!map\n!!str tagged: !custom 5\n",
        ]
        let corpus = ModelCorpus { ["yaml", "yml"].contains($0.pathExtension) }
        corpus.expectSize(repositoryFloor: 10, sharedFloor: 12)
        // Compared apart, so that a fresh clone (no ../shared) still compares every file it has.
        let builtIn = texts.count
        texts += try corpus.repository.map { try String(contentsOf: $0, encoding: .utf8) }
        let repositoryEnd = texts.count
        texts += try corpus.shared.map { try String(contentsOf: $0, encoding: .utf8) }
        var compared = (builtIn: 0, repository: 0, shared: 0)
        for (index, text) in texts.enumerated() {
            // Documents the composer refuses (complex keys: Yams takes minutes over nested ones) are left out.
            if case .failure(.diagnostics) = composed(text) { continue }
            guard let expected = try? Parser(yaml: text, resolver: .basic, constructor: .default, encoding: .utf8).singleRoot() else { continue }
            guard case .success(let node?) = composed(text) else {
                Issue.record("Yams composes this document, the composer does not:\n\(text.prefix(300))")
                continue
            }
            #expect(outline(node) == outline(expected), "\(text.prefix(200))")
            if index < builtIn { compared.builtIn += 1 } else if index < repositoryEnd { compared.repository += 1 } else { compared.shared += 1 }
        }
        #expect(compared.builtIn >= 3, "Yams refuses a complex key the composer reports")
        #expect(compared.repository >= 8, "most of the repository's files compose and are compared")
        #expect(compared.shared >= corpus.shared.count / 2, "most of ../shared's files compose and are compared")
    }

    @Test func reportsEveryRepeatedKeyAtItsRepetition() {
        // 20 keys: past the size where the composer hashes keys instead of comparing them.
        let large = (0..<20).map { "  k\($0): \($0)\n" }.joined() + "  k3: again\n  k19: again\n"
        let text = "small: { a: 1, b: 2, a: 3 }\nlarge:\n" + large + "small: twice\n"
        guard case .failure(.diagnostics(let problems)) = composed(text) else {
            Issue.record("repeated keys were not reported")
            return
        }
        #expect(problems.all.map(\.description) == [
            "t.yaml:1:22: error: duplicate key 'a' in one mapping; each key may appear once",
            "t.yaml:23:3: error: duplicate key 'k3' in one mapping; each key may appear once",
            "t.yaml:24:3: error: duplicate key 'k19' in one mapping; each key may appear once",
            "t.yaml:25:1: error: duplicate key 'small' in one mapping; each key may appear once",
        ])
        #expect(problems.all.map { $0.notes.first?.location?.line } == [1, 6, 22, 1])
        // A large mapping's keys are checked when it ends (or when composing fails inside it): its
        // repeated keys still come in document order among those of the mappings inside it.
        let keys = (0..<20).map { "  k\($0): { v: \($0) }\n" }.joined()
        guard case .failure(.diagnostics(let nested)) = composed("large:\n" + keys + "  k2: { v: 1, v: 2 }\n  k21: { w: 1, w: 2 }\n") else {
            Issue.record("repeated keys were not reported")
            return
        }
        #expect(nested.all.map { "\($0.location.line):\($0.location.column)" } == ["22:3", "22:15", "23:16"])
        guard case .failure(.diagnostics(let failed)) = composed("large:\n" + keys + "  k5: 1\n  k30: { ? [x] : 1 }\n") else {
            Issue.record("a complex key was not refused")
            return
        }
        #expect(failed.all.map(\.id) == [.duplicateKey, .wrongKind])
        #expect(failed.all.first?.location.line == 22)
        // The same key in two mappings, and a key equal to a value, are no repetition.
        #expect(throws: Never.self) { try composed("a: { x: 1 }\nb: { x: a }\n").get() }
    }

    @Test func refusesComplexKeysUndefinedAliasesAndSecondDocuments() {
        func problem(_ text: String) -> String? {
            guard case .failure(.diagnostics(let problems)) = composed(text) else { return nil }
            return problems.all.first?.description
        }
        #expect(problem("a: 1\n? [x]\n: 2\n") == "t.yaml:2:3: error: a mapping key here is itself a mapping or a list (a YAML complex key); keys are plain names")
        #expect(problem("m: &m { a: 1 }\nn: { *m : 2 }\n") == "t.yaml:2:6: error: a mapping key here is itself a mapping or a list (a YAML complex key); keys are plain names")
        #expect(problem("a: &s text\n*s : 2\n") == nil)   // an alias of a scalar is a plain key
        #expect(problem("a: *nothing\n") == "t.yaml:1:4: error: alias refers to an anchor that is not defined before it (aliases cannot refer forward or to themselves)")
        #expect(problem("a: &self [*self]\n") == "t.yaml:1:11: error: alias refers to an anchor that is not defined before it (aliases cannot refer forward or to themselves)")
        #expect(problem("a: 1\n---\nb: 2\n") == "t.yaml:2:1: error: invalid YAML: a second document starts here; expected a single document in the stream")
    }

    @Test func reportsLibyamlErrorsAtTheirPosition() {
        guard case .failure(.libyaml(.syntax(let problem, let line, let column, let context))) = composed("a: [1, 2\nb: 3\n") else {
            Issue.record("an unclosed flow sequence was not a syntax error")
            return
        }
        #expect((line, column) == (2, 2))
        #expect(problem.contains("expected ','"))
        #expect(context?.line == 1 && context?.column == 4)
        // A document without nodes has no root.
        guard case .success(nil) = composed("# only a comment\n") else {
            Issue.record("a document of comments has a root")
            return
        }
    }

    /// Deep nesting composes without recursion (libyaml's limit of 1000 levels), on a thread with a small stack.
    @Test func composesTheDeepestDocumentOnASmallStack() {
        let text = String(repeating: "[", count: 999) + String(repeating: "]", count: 999)
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var depth = 0
        let thread = Thread {
            if case .success(var node?) = composed(text) {
                while case .sequence(let items) = node, let first = items.first { node = first; depth += 1 }
                depth += 1
            }
            done.signal()
        }
        thread.stackSize = 64 * 1024
        thread.start()
        done.wait()
        #expect(depth == 999)
    }
}
