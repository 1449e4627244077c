/// A unified diff of two texts (line based, three lines of context), for `--check`: the format of
/// `diff -u`, which `patch` and `git apply` accept.
public enum UnifiedDiff {
    /// The diff from `old` to `new`, with `---`/`+++` headers; empty when they are equal.
    ///
    /// The edit script is the standard library's `difference(from:)` (Myers' algorithm: time and
    /// memory grow with the size of the change, not with the product of the file lengths, so a
    /// 25,000-line model file with changes all through it diffs in well under a second).
    public static func diff(old: String, new: String, oldName: String, newName: String) -> String {
        if old == new { return "" }
        let a = Lines(old), b = Lines(new)
        let ops = editScript(from: a.lines, to: b.lines)
        var out = "--- \(oldName)\n+++ \(newName)\n"
        let context = 3
        var index = 0
        var oldLine = 1, newLine = 1
        while index < ops.count {
            if case .same = ops[index] { index += 1; oldLine += 1; newLine += 1; continue }
            // A hunk: back up for context, then run until more than twice `context` unchanged lines
            // follow the last change (closer changes share the hunk, as in `diff -u`).
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
                case .same(let i): body += a.line(i, prefix: " "); oldCount += 1; newCount += 1
                case .remove(let i): body += a.line(i, prefix: "-"); oldCount += 1
                case .add(let j): body += b.line(j, prefix: "+"); newCount += 1
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

    /// One step of the edit script, by line index: kept or removed (old lines), added (new lines).
    private enum Op {
        case same(Int)
        case remove(Int)
        case add(Int)
    }

    /// The old lines walked in order, each kept or removed, with the added lines placed where they
    /// go: removals before additions at the same place, as `diff -u` prints a changed line.
    private static func editScript(from a: [Line], to b: [Line]) -> [Op] {
        var removed = [Bool](repeating: false, count: a.count)
        var added = [Bool](repeating: false, count: b.count)
        for change in b.difference(from: a) {
            switch change {
            case .remove(let offset, _, _): removed[offset] = true
            case .insert(let offset, _, _): added[offset] = true
            }
        }
        var ops: [Op] = []
        ops.reserveCapacity(max(a.count, b.count))
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count && removed[i] {
                ops.append(.remove(i)); i += 1
            } else if j < b.count && added[j] {
                ops.append(.add(j)); j += 1
            } else {
                // Kept lines pair up in order: both sides have the same number left.
                ops.append(.same(i)); i += 1; j += 1
            }
        }
        return ops
    }

    /// A line without its newline, and whether it had one (only a text's last line may not):
    /// "b" at the end of a file and "b\n" are different lines, as in `diff -u`.
    private struct Line: Equatable {
        var text: Substring
        var hasNewline = true
    }

    /// A text's lines.
    private struct Lines {
        let lines: [Line]

        init(_ text: String) {
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Line(text: $0) }
            // "a\nb\n" is two lines, not three; "a\nb" is two lines, the last without a newline.
            if text.isEmpty || text.hasSuffix("\n") { lines.removeLast() } else { lines[lines.count - 1].hasNewline = false }
            self.lines = lines
        }

        /// Line `index` as a diff line: `prefix`, the text and a newline, then the marker `diff -u`
        /// prints after a last line that has no newline of its own.
        func line(_ index: Int, prefix: String) -> String {
            let line = lines[index]
            return prefix + line.text + (line.hasNewline ? "\n" : "\n\\ No newline at end of file\n")
        }
    }
}
