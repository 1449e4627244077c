import Foundation
@testable import ModelgenCore
import Testing

/// Parses and validates model text under the name `test.model.yaml`.
func check(_ yaml: String, strict: Bool = false) -> ModelCheck {
    ModelCheck.run(text: yaml, path: "test.model.yaml", strict: strict)
}

/// The 1-based number of the first line of `yaml` that contains `marker`.
func line(of marker: String, in yaml: String) -> Int {
    let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false)
    guard let index = lines.firstIndex(where: { $0.contains(marker) }) else {
        Issue.record("marker '\(marker)' not in the test model")
        return -1
    }
    return index + 1
}

/// Expects a diagnostic of `severity` on the line containing `marker` whose message contains `message`.
func expectDiagnostic(_ yaml: String, _ severity: Severity, onLineWith marker: String, _ message: String,
                      sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let result = check(yaml)
    let wanted = line(of: marker, in: yaml)
    let found = result.diagnostics.contains {
        $0.severity == severity && $0.location.line == wanted && $0.message.lowercased().contains(message.lowercased())
    }
    #expect(found, "no \(severity) on line \(wanted) containing '\(message)'; got:\n\(result.diagnostics.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
}

/// Expects no errors (and, unless `allowWarnings`, no warnings).
func expectClean(_ yaml: String, allowWarnings: Bool = false, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let result = check(yaml)
    let unwanted = result.diagnostics.filter { $0.severity == .error || (!allowWarnings && $0.severity == .warning) }
    #expect(unwanted.isEmpty, "unexpected diagnostics:\n\(unwanted.map(\.description).joined(separator: "\n"))",
            sourceLocation: sourceLocation)
    #expect(result.model != nil, sourceLocation: sourceLocation)
}

/// The repository root, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// `../shared` beside the repository (the project's contract and example models).
let sharedDirectory = packageRoot.deletingLastPathComponent().appendingPathComponent("shared")
let hasSharedDirectory = FileManager.default.fileExists(atPath: sharedDirectory.appendingPathComponent("models").path)

/// True when the tests run in CI (`CI=true`), which always has `../shared` beside the clone.
let runsInCI = ProcessInfo.processInfo.environment["CI"] == "true"

/// Files under the repository's own model folders and under `../shared/models`, kept apart: a fresh
/// clone has only the first, so a test counts each against its own floor (the repository's files
/// always; the shared ones only where `../shared` is there, and CI must have it).
struct ModelCorpus {
    /// Files of `Examples`, `Tests/Models` and `Tests/Fixtures` (never under `.build`).
    var repository: [URL] = []
    /// Files of `../shared/models` (empty without `../shared`).
    var shared: [URL] = []

    /// The files whose names satisfy `include`.
    init(_ include: (URL) -> Bool) {
        func files(under root: URL) -> [URL] {
            guard let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
            return enumerator.compactMap { $0 as? URL }
                .filter { include($0) && !$0.path.contains("/.build") }
                .sorted { $0.path < $1.path }
        }
        repository = ["Examples", "Tests/Models", "Tests/Fixtures"].flatMap { files(under: packageRoot.appendingPathComponent($0)) }
        shared = files(under: sharedDirectory.appendingPathComponent("models"))
    }

    /// Checks that a corpus holds what the test needs: at least `repositoryFloor` files of the
    /// repository, and, where `../shared` is there (always in CI), at least `sharedFloor` of its own.
    func expectSize(repositoryFloor: Int, sharedFloor: Int, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        #expect(repository.count >= repositoryFloor, "the repository's own model files", sourceLocation: sourceLocation)
        if hasSharedDirectory || runsInCI {
            #expect(shared.count >= sharedFloor, "\(sharedDirectory.path)/models", sourceLocation: sourceLocation)
        }
    }
}
