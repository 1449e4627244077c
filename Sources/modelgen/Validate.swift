import ArgumentParser
import Foundation
import ModelgenCore

/// `modelgen validate`: parse and check model files, print every diagnostic.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check model files and print every error and warning.",
        discussion: """
            Diagnostics are printed as PATH:LINE:COLUMN: error|warning|note: MESSAGE on stderr, with the source line and a caret when stderr is a terminal. --diagnostics json prints one JSON object per line on stdout; --diagnostics github prints GitHub Actions annotations on stdout.

            A version folder (NAME.modelversions, holding a model's released versions v1.model.yaml, v2.model.yaml, …; the highest is current) is checked version by version and along the path between them: one model name throughout, and a version hash (what stores keep) that changes from each version to the next. Then each version's hash is printed with what changed since the version before, and what a store of that version needs (nothing, a lightweight stage, a custom stage) on stdout.

            Exit status: 0 valid (warnings allowed), 1 model errors, 2 usage or I/O errors.

            Examples:
              modelgen validate Blog.model.yaml
              modelgen validate Models/*.model.yaml --strict
              modelgen validate Models/Clinic.modelversions
            """
    )

    @OptionGroup var input: ModelInputOptions

    func run() throws {
        var checker = input.checker
        var summaries: [String] = []
        for file in input.files {
            if ModelVersionFolder.isVersionFolder(file) {
                if let (folder, checks) = checker.checkVersionFolder(path: file) {
                    let retired = folder.retired(before: input.oldestVersion)
                    if let last = retired.last {
                        summaries.append("\(file): versions 1 to \(last.number) retired (oldest version \(last.number + 1)): not checked; stores of them are refused")
                    }
                    summaries += ModelVersionFolder.summary(folder.kept(from: input.oldestVersion), models: checks.compactMap(\.model))
                }
            } else {
                _ = checker.check(path: file)
            }
        }
        // The versions' summary is for people: text output only (json and github are diagnostics).
        if input.diagnostics == .text && !summaries.isEmpty {
            FileHandle.standardOutput.write(Data(summaries.map { $0 + "\n" }.joined().utf8))
        }
        if checker.exitStatus != 0 { throw ExitCode(checker.exitStatus) }
    }
}
