import Foundation
import TestScratch
import Testing

/// `modelgen diff` as CI would run it (issue 39): a file or a git revision as the old model, text,
/// JSON and GitHub output, and `--fail-on` choosing what fails the run.
@Suite struct DiffCommandTests {
    static let v1 = """
        model: Shop
        entities:
          Customer:
            attributes:
              name: string
              email: string?
          Order:
            attributes:
              total: string
            relationships:
              customer: { destination: Customer, inverse: none }
        fetchRequests:
          big:
            entity: Order
            predicate: 'total > "100"'

        """
    /// A release later: a rename kept by renamingIdentifier, a type change, a removed attribute.
    static let v2 = """
        model: Shop
        entities:
          Customer:
            attributes:
              fullName: { type: string, renamingIdentifier: name }
          Order:
            attributes:
              total: { type: decimal, default: 0 }
            relationships:
              customer: { destination: Customer, inverse: none }
        fetchRequests:
          big:
            entity: Order
            predicate: 'total > 100'

        """

    func files() throws -> URL {
        let directory = try temporaryDirectory()
        try Self.v1.write(to: directory.appendingPathComponent("Shop.v1.model.yaml"), atomically: true, encoding: .utf8)
        try Self.v2.write(to: directory.appendingPathComponent("Shop.model.yaml"), atomically: true, encoding: .utf8)
        return directory
    }

    @Test func listsEachChangeWithItsPlacesAndFailsOnDataLossByDefault() throws {
        let directory = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try modelgen(["diff", "Shop.v1.model.yaml", "Shop.model.yaml"], in: directory)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains("Shop.model.yaml:5:7: lightweight, api-break: attribute Customer.name was renamed to fullName (renamingIdentifier: stores keep its values) (was Shop.v1.model.yaml:5:7)"))
        #expect(lines.contains("Shop.model.yaml:8:22: custom-stage, api-break: attribute Order.total: its type changed from string to decimal; saved values must be converted (was Shop.v1.model.yaml:9:14)"))
        #expect(lines.contains("Shop.v1.model.yaml:6:7: data-loss, api-break: attribute Customer.email was removed: its saved values are dropped"))
        #expect(lines.last == "5 changes: 2 safe, 1 lightweight, 1 custom-stage, 1 data-loss, 3 api-break", "\(lines)")
        // What fails is chosen: nothing, or the API breaks too.
        #expect(try modelgen(["diff", "Shop.v1.model.yaml", "Shop.model.yaml", "--fail-on", "none"], in: directory).status == 0)
        #expect(try modelgen(["diff", "Shop.model.yaml", "Shop.model.yaml", "--fail-on", "any"], in: directory).stdout == "no changes\n")
        #expect(try modelgen(["diff", "Shop.v1.model.yaml", "Shop.model.yaml", "--fail-on", "typo"], in: directory).status == 2)
    }

    @Test func readsTheOldModelFromAGitRevisionAndAnnotatesForGitHub() throws {
        let directory = try files()
        defer { try? FileManager.default.removeItem(at: directory) }
        let git = URL(fileURLWithPath: "/usr/bin/env")
        func run(_ arguments: [String]) throws -> Run { try runProcess(git, ["git", "-c", "user.email=ci@example.com", "-c", "user.name=CI"] + arguments, in: directory) }
        try FileManager.default.moveItem(at: directory.appendingPathComponent("Shop.model.yaml"), to: directory.appendingPathComponent("v2.yaml"))
        try FileManager.default.moveItem(at: directory.appendingPathComponent("Shop.v1.model.yaml"), to: directory.appendingPathComponent("Shop.model.yaml"))
        guard try run(["init", "-q"]).status == 0 else { return }   // no git here: nothing to try
        #expect(try run(["add", "Shop.model.yaml"]).status == 0 && run(["commit", "-qm", "release 1"]).status == 0)
        try FileManager.default.removeItem(at: directory.appendingPathComponent("Shop.model.yaml"))
        try FileManager.default.moveItem(at: directory.appendingPathComponent("v2.yaml"), to: directory.appendingPathComponent("Shop.model.yaml"))
        let annotated = try modelgen(["diff", "HEAD", "Shop.model.yaml", "--format", "github"], in: directory)
        #expect(annotated.status == 1)
        let lines = annotated.stdout.split(separator: "\n").map(String.init)
        // The removal is annotated on the new file, at its entity, naming where it was.
        #expect(lines.contains("::error file=Shop.model.yaml,line=3,col=3,title=modelgen diff (data-loss, api-break)::attribute Customer.email was removed: its saved values are dropped (was HEAD:Shop.model.yaml:6:7)"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("::warning file=Shop.model.yaml,line=8,col=22,title=modelgen diff (custom-stage, api-break)::") })
        #expect(lines.contains { $0.hasPrefix("::notice file=Shop.model.yaml,line=") })
        // JSON: every change with its classes and both places.
        let json = try modelgen(["diff", "HEAD:Shop.model.yaml", "Shop.model.yaml", "--format", "json", "--fail-on", "none"], in: directory)
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let changes = object?["changes"] as? [[String: Any]] ?? []
        #expect(changes.count == 5 && json.status == 0)
        #expect(changes.contains { ($0["classes"] as? [String]) == ["data-loss", "api-break"] && ($0["new"] is NSNull) })
        // A revision that does not exist is an I/O error.
        #expect(try modelgen(["diff", "no-such-revision", "Shop.model.yaml"], in: directory).status == 2)
    }
}
