import ArgumentParser
import Foundation
import ModelgenCore

extension ModelGraph.Format: ExpressibleByArgument {}

/// `modelgen graph`: an entity-relationship diagram of a model.
struct Graph: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "graph",
        abstract: "Draw a model as an entity-relationship diagram (Mermaid or Graphviz dot).",
        discussion: """
            Entities with their attributes and types, relationships with cardinality (an inverse pair drawn once, labelled with both names), and inheritance edges. Mermaid renders in GitHub Markdown; dot renders with Graphviz (dot -Tsvg).

            Examples:
              modelgen graph Blog.model.yaml > Blog.mmd
              modelgen graph Blog.model.yaml --format dot --output Blog.dot
            """
    )

    @Argument(help: "The model file.")
    var model: String

    @Option(help: "mermaid or dot.")
    var format: ModelGraph.Format = .mermaid

    @Option(help: "Write the diagram to this file instead of standard output.")
    var output: String?

    @Option(help: "How to print diagnostics: text, json or github.")
    var diagnostics: DiagnosticFormat = .text

    func run() throws {
        let checks = try ModelInputOptions.checkAll([model], format: diagnostics, strict: false)
        guard let parsed = checks.first?.model else { throw ExitCode(1) }
        try CommandOutput.write(ModelGraph.render(parsed, format: format), to: output)
    }
}
