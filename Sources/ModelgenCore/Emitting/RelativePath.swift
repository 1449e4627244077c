import Foundation

/// Paths in generated headers: the model file relative to the output directory, so the header is
/// the same whether modelgen ran with relative or absolute paths, from any directory, on any machine.
enum RelativePath {
    /// `target` relative to `directory` (both relative to `base` when not absolute), with `/` separators.
    static func from(directory: String, to target: String,
                            base: String = FileManager.default.currentDirectoryPath) -> String {
        func components(_ path: String) -> [String] {
            let absolute = path.hasPrefix("/") ? path : base + "/" + path
            var result: [String] = []
            for part in absolute.split(separator: "/") {
                switch part {
                case ".", "": continue
                case "..": if !result.isEmpty { result.removeLast() }
                default: result.append(String(part))
                }
            }
            return result
        }
        let from = components(directory), to = components(target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let ups = Array(repeating: "..", count: from.count - common)
        return (ups + to[common...]).joined(separator: "/")
    }
}
