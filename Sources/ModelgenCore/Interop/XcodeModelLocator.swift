import Foundation

/// Finds the `contents` XML of a Core Data model: a `.xcdatamodeld` (its current version, named by
/// `.xccurrentversion`, or the one asked for), a `.xcdatamodel` bundle, or a `contents` file itself.
enum XcodeModelLocator {
    /// A model's XML file and the name the imported model takes.
    struct Located: Sendable, Equatable {
        /// The `contents` file to read.
        var contentsPath: String
        /// The model name derived from the bundle (or file) name: an upper-camel identifier.
        var modelName: String
        /// The version bundle read, for a `.xcdatamodeld`.
        var versionName: String?
    }

    /// Locates the model at `path`, or a diagnostic saying why it cannot.
    static func locate(_ path: String, version: String? = nil) -> Result<Located, Diagnostic> {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        let here = SourceLocation(file: path, line: 1, column: 1)
        guard fileManager.fileExists(atPath: path, isDirectory: &isDirectory) else {
            return .failure(Diagnostic(.error, .notAnXcodeModel, "no such file or folder", at: here))
        }
        let url = URL(fileURLWithPath: path)
        let base = url.deletingPathExtension().lastPathComponent
        if !isDirectory.boolValue {
            if version != nil {
                return .failure(Diagnostic(.error, .notAnXcodeModel, "--version applies to a .xcdatamodeld folder; this is a file", at: here))
            }
            let name = url.lastPathComponent == "contents"
                ? url.deletingLastPathComponent().deletingPathExtension().lastPathComponent : base
            return .success(Located(contentsPath: path, modelName: modelName(from: name), versionName: nil))
        }
        switch url.pathExtension {
        case "xcdatamodeld":
            let versions = ((try? fileManager.contentsOfDirectory(atPath: path)) ?? [])
                .filter { $0.hasSuffix(".xcdatamodel") }.sorted()
            let list = versions.map { "'\($0)'" }.joined(separator: ", ")
            var chosen: String
            if let version {
                chosen = version.hasSuffix(".xcdatamodel") ? version : version + ".xcdatamodel"
                guard versions.contains(chosen) else {
                    return .failure(Diagnostic(.error, .notAnXcodeModel, "no version '\(version)' in this model; it has \(list.isEmpty ? "none" : list)", at: here))
                }
            } else if let current = currentVersion(in: url) {
                chosen = current
                guard versions.contains(chosen) else {
                    return .failure(Diagnostic(.error, .notAnXcodeModel, ".xccurrentversion names '\(current)', which is not in the folder (it has \(list.isEmpty ? "no versions" : list))",
                                               at: SourceLocation(file: url.appendingPathComponent(".xccurrentversion").path, line: 1, column: 1)))
                }
            } else if versions.count == 1 {
                chosen = versions[0]
            } else {
                return .failure(Diagnostic(.error, .notAnXcodeModel, "no .xccurrentversion says which version is current; pass --version with one of \(list.isEmpty ? "(none found)" : list)",
                                           at: here))
            }
            let contents = url.appendingPathComponent(chosen).appendingPathComponent("contents").path
            guard fileManager.fileExists(atPath: contents) else { return .failure(missingContents(url.appendingPathComponent(chosen).path)) }
            return .success(Located(contentsPath: displayPath(contents, under: path),
                                    modelName: modelName(from: base), versionName: String(chosen.dropLast(".xcdatamodel".count))))
        case "xcdatamodel":
            if version != nil {
                return .failure(Diagnostic(.error, .notAnXcodeModel, "--version applies to a .xcdatamodeld folder; this is a single .xcdatamodel", at: here))
            }
            let contents = url.appendingPathComponent("contents").path
            guard fileManager.fileExists(atPath: contents) else { return .failure(missingContents(path)) }
            return .success(Located(contentsPath: displayPath(contents, under: path), modelName: modelName(from: base), versionName: nil))
        default:
            return .failure(Diagnostic(.error, .notAnXcodeModel, "expected a .xcdatamodeld or .xcdatamodel folder, or a contents file", at: here))
        }
    }

    /// The released versions of a `.xcdatamodeld`, oldest first, ending with the current one: version
    /// bundles ordered as Xcode names them (`Model`, `Model 2`, `Model 3`, … by their number, a name
    /// without one first), those after the current version left out (drafts, not released), with a
    /// warning each.
    static func releasedVersions(_ path: String) -> Result<(versions: [String], warnings: [Diagnostic]), Diagnostic> {
        let url = URL(fileURLWithPath: path)
        let here = SourceLocation(file: path, line: 1, column: 1)
        guard url.pathExtension == "xcdatamodeld" else {
            return .failure(Diagnostic(.error, .notAnXcodeModel, "--all-versions reads a .xcdatamodeld folder (a model with versions)", at: here))
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [])
            .filter { $0.hasSuffix(".xcdatamodel") }.map { String($0.dropLast(".xcdatamodel".count)) }
        func number(_ name: String) -> Int { name.split(separator: " ").last.flatMap { Int($0) } ?? 1 }
        let ordered = names.sorted { (number($0), $0) < (number($1), $1) }
        guard !ordered.isEmpty else { return .failure(Diagnostic(.error, .notAnXcodeModel, "the folder holds no .xcdatamodel versions", at: here)) }
        let current = currentVersion(in: url).map { $0.hasSuffix(".xcdatamodel") ? String($0.dropLast(".xcdatamodel".count)) : $0 } ?? ordered.last!
        guard let index = ordered.firstIndex(of: current) else {
            return .failure(Diagnostic(.error, .notAnXcodeModel, ".xccurrentversion names '\(current)', which is not in the folder",
                                       at: SourceLocation(file: url.appendingPathComponent(".xccurrentversion").path, line: 1, column: 1)))
        }
        let drafts = ordered[(index + 1)...].map { name in
            Diagnostic(.warning, .notImported, "version '\(name)' comes after the current version '\(current)' and is left out (not released)",
                       at: SourceLocation(file: url.appendingPathComponent(name + ".xcdatamodel").path, line: 1, column: 1))
        }
        return .success((Array(ordered[...index]), drafts))
    }

    private static func missingContents(_ bundle: String) -> Diagnostic {
        Diagnostic(.error, .notAnXcodeModel, "no 'contents' file in this model bundle: models saved before Xcode 4 use a binary format; open and save the model in a current Xcode first",
                   at: SourceLocation(file: bundle, line: 1, column: 1))
    }

    /// Keeps the path as the user spelled it (no absolute paths in diagnostics).
    private static func displayPath(_ contents: String, under given: String) -> String {
        let standardized = URL(fileURLWithPath: given).standardizedFileURL.path
        guard contents.hasPrefix(standardized) else { return contents }
        let trimmed = given.hasSuffix("/") ? String(given.dropLast()) : given
        return trimmed + contents.dropFirst(standardized.count)
    }

    /// `_XCCurrentVersionName` of `.xccurrentversion` (a property list).
    static func currentVersion(in bundle: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: bundle.appendingPathComponent(".xccurrentversion").path),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else { return nil }
        return plist["_XCCurrentVersionName"] as? String
    }

    /// An upper-camel identifier from a bundle or file name: `Simplenote 7` → `Simplenote7`, `core-data_Moody` → `CoreDataMoody`.
    static func modelName(from name: String) -> String {
        let parts = name.split { !($0.isLetter || $0.isNumber) }
        var result = parts.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if result.isEmpty { result = "Model" }
        if let first = result.first, first.isNumber { result = "Model" + result }
        return result
    }
}
