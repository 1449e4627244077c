import ArgumentParser
import Foundation
import ModelgenCore

/// The `modelgen` command: a thin front end over ModelgenCore.
struct Modelgen: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "modelgen",
        abstract: "Turns a Core Data–style object model written in YAML into Swift managed-object code.",
        discussion: """
            Examples:
              modelgen validate Blog.model.yaml
              modelgen validate Models/*.model.yaml --strict --diagnostics github
              modelgen generate Blog.model.yaml --output Sources/Blog/Generated

            Exit status: 0 success, 1 model errors, 2 usage or I/O errors.
            """,
        version: ModelgenVersion.current,
        subcommands: [Validate.self, Generate.self]
    )

    func run() throws {
        // Running every model listed in ./modelgen.yml is not built yet (see README, "Not built yet").
        FileHandle.standardError.write(Data("error: modelgen without a command (reading ./modelgen.yml) is not built yet; see 'modelgen --help'\n".utf8))
        throw ExitCode(2)
    }
}

@main
enum Main {
    static func main() {
        do {
            var command = try Modelgen.parseAsRoot()
            try command.run()
        } catch {
            // ArgumentParser reports usage errors with status 64; the spec's status for them is 2.
            let code = Modelgen.exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((Modelgen.fullMessage(for: error) + "\n").utf8))
                Modelgen.exit(withError: ExitCode(2))
            }
            Modelgen.exit(withError: error)
        }
    }
}
