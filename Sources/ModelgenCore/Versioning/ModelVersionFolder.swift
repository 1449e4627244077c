import Foundation

/// A model's released versions kept side by side: a folder named `NAME.modelversions` holding
/// `v1.model.yaml`, `v2.model.yaml`, … (`.model.yml` too), each a complete model file; the highest
/// number is the current version. `modelgen validate` checks every version and the path between them
/// (one model name, a version hash that changes from each version to the next) and prints each
/// version's hash and what changed since the one before.
public struct ModelVersionFolder: Sendable {
    /// The suffix that makes a folder a version folder.
    public static let suffix = ".modelversions"

    /// One version's file.
    public struct Version: Sendable, Hashable {
        /// Its number (1 for `v1.model.yaml`).
        public var number: Int
        /// Its path: the folder's as given, then the file name.
        public var path: String
    }

    /// The folder's path as given.
    public var path: String
    /// The versions, by number.
    public var versions: [Version]
    /// What is wrong with the folder's layout (MG0705): a file not named `v<N>.model.yaml`, a missing
    /// number, no versions at all.
    public var problems: [Diagnostic]

    /// The current version (the highest number).
    public var current: Version? { versions.last }

    /// The versions from `oldest` on (every version when nil): those a store may still be at.
    public func kept(from oldest: Int?) -> [Version] {
        guard let oldest else { return versions }
        return versions.filter { $0.number >= oldest || $0 == current }
    }

    /// The versions before `oldest` (none when nil): retired, neither checked nor generated.
    public func retired(before oldest: Int?) -> [Version] {
        guard let oldest else { return [] }
        return versions.filter { $0.number < oldest && $0 != current }
    }

    /// Whether `path` names a version folder (by its suffix).
    public static func isVersionFolder(_ path: String) -> Bool {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed.hasSuffix(suffix)
    }

    /// Reads the folder's listing (not the files); throws when it cannot be read.
    public init(path: String) throws {
        var folder = path
        while folder.count > 1 && folder.hasSuffix("/") { folder.removeLast() }
        self.path = folder
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        var versions: [Version] = []
        var problems: [Diagnostic] = []
        for name in names where name.hasSuffix(".model.yaml") || name.hasSuffix(".model.yml") {
            let stem = name.prefix { $0 != "." }
            let file = folder + "/" + name
            guard stem.first == "v", let number = Int(stem.dropFirst()), number > 0, String(number) == stem.dropFirst() else {
                problems.append(Diagnostic(.error, .versionFolderLayout,
                                           "'\(name)' is not a version: the files of a version folder are named v1.model.yaml, v2.model.yaml, …",
                                           at: SourceLocation(file: file, line: 1, column: 1)))
                continue
            }
            if versions.contains(where: { $0.number == number }) {
                problems.append(Diagnostic(.error, .versionFolderLayout, "version \(number) is in the folder twice (.model.yaml and .model.yml)",
                                           at: SourceLocation(file: file, line: 1, column: 1)))
                continue
            }
            versions.append(Version(number: number, path: file))
        }
        versions.sort { $0.number < $1.number }
        for (index, version) in versions.enumerated() where version.number != index + 1 {
            let missing = (index + 1..<version.number).map { "v\($0)" }.joined(separator: ", ")
            problems.append(Diagnostic(.error, .versionFolderLayout,
                                       "\(missing) \(version.number - index - 1 == 1 ? "is" : "are") missing: a version folder numbers its versions from v1 without gaps (released versions stay in it)",
                                       at: SourceLocation(file: version.path, line: 1, column: 1)))
            break
        }
        if versions.isEmpty && problems.isEmpty {
            problems.append(Diagnostic(.error, .versionFolderLayout, "the version folder holds no versions (v1.model.yaml, v2.model.yaml, …)",
                                       at: SourceLocation(file: folder, line: 1, column: 1)))
        }
        self.versions = versions
        self.problems = problems
    }

    /// The checks of the path between the versions, given each version's model (in order): one model
    /// name throughout (MG0706), and a version hash that changes from each version to the next
    /// (MG0707, a warning: a store of either could not tell which it is, and a `MigrationPlan` refuses
    /// two versions with one hash).
    /// `firstNumber` is the first model's version number (the oldest kept).
    public static func pathDiagnostics(_ models: [ObjectModel], firstNumber: Int = 1) -> [Diagnostic] {
        guard let first = models.first else { return [] }
        var diagnostics: [Diagnostic] = []
        for (index, model) in models.enumerated().dropFirst() {
            let number = firstNumber + index
            if model.name.value != first.name.value {
                diagnostics.append(Diagnostic(.error, .versionModelName,
                                              "version \(number) names the model '\(model.name.value)', version \(firstNumber) '\(first.name.value)': the versions of a folder are one model's",
                                              at: model.name.location))
            } else if model.versionHash == models[index - 1].versionHash {
                diagnostics.append(Diagnostic(.warning, .versionUnchanged,
                                              "version \(number) keeps in stores what version \(number - 1) keeps (version hash \(model.versionHash)): a store of either cannot tell which it is; release the change in version \(number - 1) itself, or change what stores keep",
                                              at: model.name.location))
            }
        }
        return diagnostics
    }

    /// One line per version: its file, number, version hash and, after the first, what changed since the
    /// version before (how many changes, and the weightiest class among them).
    public static func summary(_ versions: [Version], models: [ObjectModel]) -> [String] {
        zip(versions, models).enumerated().map { index, pair in
            var line = "\(pair.0.path): version \(pair.0.number)\(index == versions.count - 1 ? " (current)" : ""), version hash \(pair.1.versionHash)"
            if index > 0 {
                let changes = ModelDiff.changes(from: models[index - 1], to: pair.1)
                let impacts = Set(changes.flatMap(\.impacts)).sorted()
                line += "; from version \(versions[index - 1].number): \(changes.count) change\(changes.count == 1 ? "" : "s")"
                if !changes.isEmpty {
                    line += " (\(impacts.isEmpty ? "safe" : impacts.map(\.rawValue).joined(separator: ", "))); stores need \(Self.storeStep(impacts))"
                }
            }
            return line
        }
    }

    /// What a store of the version before needs, from the changes' classes.
    static func storeStep(_ impacts: [ChangeImpact]) -> String {
        if impacts.contains(.customStage) { return "a custom stage" }
        if impacts.contains(.dataLoss) { return "a lightweight stage that drops data (migration: .dropRemoved, or a custom stage)" }
        if impacts.contains(.lightweight) { return "a lightweight stage" }
        return "nothing"
    }
}
