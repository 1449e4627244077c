import Foundation
import TestScratch
import ModelgenCore
import Testing

/// `docs/diagnostics.md` against the code: every `DiagnosticID` has an entry, every entry is an
/// identifier, and each entry's example, run as a user would (its files written into an empty folder,
/// its `$` commands run by the shell with the built `modelgen` first on the PATH), prints every output
/// line the entry shows, one of them ending in the entry's code.
@Suite struct DiagnosticsDocumentationTests {
    struct Entry {
        var code: String
        var name: String
        /// File name → content, from the ```yaml / ```xml / ```mustache blocks (named by their first line).
        var files: [(name: String, content: String)] = []
        /// The `$` lines of the ```console block.
        var commands: [String] = []
        /// The other lines of the ```console block: what modelgen prints.
        var expectedOutput: [String] = []
    }

    static let document: String = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/diagnostics.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The `### MG0401 inverse-mismatch` entries with their code blocks.
    static let entries: [Entry] = {
        var entries: [Entry] = []
        var block: (language: String, lines: [String])?
        for line in document.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if var open = block {
                if line == "```" {
                    block = nil
                    guard !entries.isEmpty else { continue }
                    switch open.language {
                    case "yaml", "xml", "mustache":
                        // The first line names the file: `# NAME`, `<!-- NAME -->` or `{{! NAME }}`.
                        let first = open.lines.first ?? ""
                        let name = first.hasPrefix("# ") ? String(first.dropFirst(2))
                            : first.split(separator: " ").dropFirst().dropLast().joined(separator: " ")
                        entries[entries.count - 1].files.append((name, open.lines.joined(separator: "\n") + "\n"))
                    case "console":
                        for line in open.lines {
                            if line.hasPrefix("$ ") { entries[entries.count - 1].commands.append(String(line.dropFirst(2))) }
                            else { entries[entries.count - 1].expectedOutput.append(line) }
                        }
                    default: break
                    }
                } else {
                    open.lines.append(line)
                    block = open
                }
            } else if line.hasPrefix("```") {
                block = (String(line.dropFirst(3)), [])
            } else if line.hasPrefix("### MG") {
                let words = line.dropFirst(4).split(separator: " ")
                entries.append(Entry(code: String(words.first ?? ""), name: words.count > 1 ? String(words[1]) : ""))
            }
        }
        return entries
    }()

    @Test func everyIdentifierIsDocumentedAndEveryEntryIsAnIdentifier() {
        #expect(!Self.entries.isEmpty, "docs/diagnostics.md has no entries")
        let documented = Self.entries.map { "\($0.code) \($0.name)" }
        for id in DiagnosticID.allCases {
            #expect(documented.contains(id.label), "\(id.label) has no entry in docs/diagnostics.md")
        }
        for entry in Self.entries {
            let id = DiagnosticID(code: entry.code)
            #expect(id?.name == entry.name, "docs/diagnostics.md documents \(entry.code) \(entry.name), which modelgen does not have")
        }
        #expect(Set(documented).count == documented.count, "an identifier is documented twice")
    }

    @Test func identifiersAreStableCodesWithKebabCaseNames() {
        let names = DiagnosticID.allCases.map(\.name)
        #expect(Set(names).count == names.count)
        for id in DiagnosticID.allCases {
            #expect(id.code.count == 6 && id.code.hasPrefix("MG"))
            #expect(DiagnosticID(code: id.code) == id)
            // A name from reflection metadata that is missing would read "DiagnosticID(rawValue: …)".
            #expect(id.name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(id.name)")
        }
        #expect(DiagnosticID.inverseMismatch.label == "MG0401 inverse-mismatch")
    }

    @Test(arguments: entries.map(\.code))
    func exampleProducesItsDiagnostic(_ code: String) throws {
        let entry = try #require(Self.entries.first { $0.code == code })
        #expect(!entry.commands.isEmpty, "\(code) has no example command")
        #expect(entry.expectedOutput.contains { $0.hasSuffix(" [\(code)]") }, "\(code)'s example shows no diagnostic with its code")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in entry.files {
            let url = directory.appendingPathComponent(file.name)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try file.content.write(to: directory.appendingPathComponent(file.name), atomically: true, encoding: .utf8)
        }
        var output: [String] = []
        for command in entry.commands {
            let bin = modelgenBinary().deletingLastPathComponent().path
            let run = try runProcess(URL(fileURLWithPath: "/bin/sh"),
                                     ["-c", "PATH='\(bin)':\"$PATH\"; export PATH; \(command)"], in: directory)
            output += (run.stderr + run.stdout).split(separator: "\n").map(String.init)
            // 0, 1 or 2 (a template error is a usage error); never a crash.
            #expect(run.status <= 2, "`\(command)` exited with \(run.status): \(run.stderr)")
        }
        for line in entry.expectedOutput {
            #expect(output.contains(line), "\(code): modelgen did not print the documented line\n  \(line)\nit printed:\n  \(output.joined(separator: "\n  "))")
        }
    }
}
