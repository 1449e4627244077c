import Foundation

/// Generated files that two models would write to the same path: two model files given to one
/// `modelgen generate`, or two modelgen.yml entries sharing an output directory, each declaring
/// an entity whose class is `Item`. Written one after the other, the second would silently
/// replace the first (and each run would undo the other's file); found before anything is written.
public enum OutputCollisions {
    /// A path claimed by more than one output.
    public struct Collision: Sendable {
        /// The indices (into the outputs given) of every output that claims the path.
        public var outputs: [Int]
        /// An error at the later claim, with a note at the first.
        public var diagnostic: Diagnostic
    }

    /// The collisions among `outputs` (directory and files, in run order), one per path claimed
    /// twice, in the order the later claims come. Directories compare as absolute paths; file
    /// names ignoring case (`Item.swift` and `ITEM.swift` are one file on macOS).
    public static func find(_ outputs: [(directory: String, files: [GeneratedFile])]) -> [Collision] {
        var claims: [String: (output: Int, file: GeneratedFile)] = [:]
        var collisions: [Collision] = []
        for (index, output) in outputs.enumerated() {
            // Joined as text, not as a URL per file.
            let directory = resolved(output.directory)
            let prefix = directory.hasSuffix("/") ? directory : directory + "/"
            for file in output.files {
                let path = prefix + file.name.lowercased()
                guard let first = claims[path] else {
                    claims[path] = (index, file)
                    continue
                }
                let shownPath = (output.directory as NSString).appendingPathComponent(file.name)
                let diagnostic: Diagnostic
                if Self.sameFile(first.file.origin.file, file.origin.file) {
                    diagnostic = Diagnostic(.error, .outputCollision, "'\(shownPath)' would be written twice from the same model file; give each model file once per output directory",
                                            at: file.origin)
                } else {
                    let caseOnly = first.file.name == file.name ? "" : " (as '\(first.file.name)' there, one file on a case-insensitive file system)"
                    diagnostic = Diagnostic(
                        .error, .outputCollision, "'\(shownPath)' is generated from two models; give the class another name (`class:`) or generate the models into different directories",
                        at: file.origin, notes: [Diagnostic.Note("the other model generates it from here\(caseOnly)", at: first.file.origin)])
                }
                collisions.append(Collision(outputs: [first.output, index], diagnostic: diagnostic))
            }
        }
        return collisions
    }

    /// Whether two paths as the user gave them (`A.model.yaml`, `./A.model.yaml`) name one file.
    private static func sameFile(_ a: String, _ b: String) -> Bool {
        a == b || resolved(a) == resolved(b)
    }

    /// A path made absolute, without `.`/`..` components or symbolic links.
    private static func resolved(_ path: String) -> String {
        URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
