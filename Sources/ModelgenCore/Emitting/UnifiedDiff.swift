/// A unified diff of two texts (line based, three lines of context), for `--check`.
public enum UnifiedDiff {
    /// The diff from `old` to `new`, with `---`/`+++` headers; empty when they are equal.
    public static func diff(old: String, new: String, oldName: String, newName: String) -> String {
        if old == new { return "" }
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // Longest common subsequence table (generated files are small enough for O(n·m)).
        var lcs = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        enum Op { case same(String), remove(String), add(String) }
        var ops: [Op] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count && j < b.count && a[i] == b[j] { ops.append(.same(a[i])); i += 1; j += 1 }
            else if j < b.count && (i == a.count || lcs[i][j + 1] >= lcs[i + 1][j]) { ops.append(.add(b[j])); j += 1 }
            else { ops.append(.remove(a[i])); i += 1 }
        }
        var out = "--- \(oldName)\n+++ \(newName)\n"
        let context = 3
        var index = 0
        var oldLine = 1, newLine = 1
        while index < ops.count {
            if case .same = ops[index] { index += 1; oldLine += 1; newLine += 1; continue }
            // A hunk: back up for context, then run until `context` unchanged lines follow the last change.
            let start = max(0, index - context)
            var end = index
            var lastChange = index
            while end < ops.count {
                if case .same = ops[end] { if end - lastChange > context * 2 { break } } else { lastChange = end }
                end += 1
            }
            end = min(ops.count, lastChange + context + 1)
            let back = index - start
            var hunkOld = oldLine - back, hunkNew = newLine - back
            var oldCount = 0, newCount = 0, body = ""
            for op in ops[start..<end] {
                switch op {
                case .same(let l): body += " \(l)\n"; oldCount += 1; newCount += 1
                case .remove(let l): body += "-\(l)\n"; oldCount += 1
                case .add(let l): body += "+\(l)\n"; newCount += 1
                }
            }
            if oldCount == 0 { hunkOld -= 1 }
            if newCount == 0 { hunkNew -= 1 }
            out += "@@ -\(hunkOld),\(oldCount) +\(hunkNew),\(newCount) @@\n" + body
            for op in ops[index..<end] {
                switch op {
                case .same: oldLine += 1; newLine += 1
                case .remove: oldLine += 1
                case .add: newLine += 1
                }
            }
            index = end
        }
        return out
    }
}
