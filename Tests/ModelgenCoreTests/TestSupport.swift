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
