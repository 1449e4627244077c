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

            Exit status: 0 valid (warnings allowed), 1 model errors, 2 usage or I/O errors.

            Examples:
              modelgen validate Blog.model.yaml
              modelgen validate Models/*.model.yaml --strict
            """
    )

    @OptionGroup var input: ModelInputOptions

    func run() throws {
        _ = try input.checkAll()
    }
}
