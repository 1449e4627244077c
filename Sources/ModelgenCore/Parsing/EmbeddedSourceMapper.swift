import Yams

/// Finds the file position of every character of a scalar's value, so that a
/// predicate or expression error is reported at its own column, whether the
/// scalar is plain, single- or double-quoted (escapes included), or a block
/// scalar. Lines are split lazily, only when a model has such strings.
final class EmbeddedSourceMapper {
    private let file: String
    private let text: String
    private var lineStarts: [String.Index]?
    private var cachedLine: (number: Int, scalars: [Unicode.Scalar])?

    init(file: String, text: String) {
        self.file = file
        self.text = text
    }

    /// The scalars of a 1-based line, without its line break; nil past the end.
    private func line(_ number: Int) -> [Unicode.Scalar]? {
        if let cachedLine, cachedLine.number == number { return cachedLine.scalars }
        let utf8 = text.utf8
        if lineStarts == nil {
            var starts = [utf8.startIndex]
            var index = utf8.startIndex
            while let newline = utf8[index...].firstIndex(of: UInt8(ascii: "\n")) {
                index = utf8.index(after: newline)
                starts.append(index)
            }
            lineStarts = starts
        }
        guard let starts = lineStarts, number >= 1, number <= starts.count else { return nil }
        let end = number < starts.count ? utf8.index(before: starts[number]) : utf8.endIndex
        var scalars = Array(Substring(utf8[starts[number - 1]..<end]).unicodeScalars)
        if scalars.last == "\r" { scalars.removeLast() }
        cachedLine = (number, scalars)
        return scalars
    }

    /// An `EmbeddedSource` for a scalar node whose value is `value`.
    func map(_ node: Node, value: String) -> EmbeddedSource {
        let location = SourceLocation(file: file, line: node.mark?.line ?? 1, column: node.mark?.column ?? 1)
        guard case .scalar(let scalar) = node else {
            return EmbeddedSource(text: value, location: location, positions: [])
        }
        let content = Array(value.unicodeScalars)
        var positions: [EmbeddedSource.Position] = []
        positions.reserveCapacity(content.count + 1)

        var lineNumber = location.line
        var column = location.column
        var source = line(lineNumber) ?? []
        var blockIndent = 0
        let isBlock = scalar.style == .literal || scalar.style == .folded

        func current() -> Unicode.Scalar? { column - 1 < source.count ? source[column - 1] : nil }
        func next(_ offset: Int) -> Unicode.Scalar? { column - 1 + offset < source.count ? source[column - 1 + offset] : nil }
        func nextLine(skipIndent: Bool) -> Bool {
            lineNumber += 1
            guard let l = line(lineNumber) else { return false }
            source = l
            column = 1
            if isBlock {
                column = min(blockIndent, source.count) + 1
            } else if skipIndent {
                while let c = current(), c == " " || c == "\t" { column += 1 }
            }
            return true
        }

        switch scalar.style {
        case .singleQuoted, .doubleQuoted:
            column += 1
        case .literal, .folded:
            // The content starts on the line after the indicator; its indentation is the first non-blank line's.
            var probe = lineNumber + 1
            while let l = line(probe), l.allSatisfy({ $0 == " " }) { probe += 1 }
            blockIndent = line(probe)?.prefix { $0 == " " }.count ?? 0
            if !nextLine(skipIndent: false) { column = 1 }
        default:
            break
        }

        var index = 0
        var mismatch = false
        while index < content.count {
            positions.append(.init(line: Int32(lineNumber), column: Int32(column)))
            if mismatch { index += 1; continue }
            let c = content[index]
            guard let s = current() else {
                // At the end of a source line: a folded or kept line break.
                if c == "\n" || c == " " {
                    if !nextLine(skipIndent: true) { mismatch = true }
                } else {
                    mismatch = true
                }
                index += 1
                continue
            }
            if scalar.style == .doubleQuoted && s == "\\" {
                let escape = next(1)
                if escape == nil {
                    // An escaped line break: no content, continue on the next line.
                    positions.removeLast()
                    if !nextLine(skipIndent: true) { mismatch = true; positions.append(.init(line: Int32(lineNumber), column: Int32(column))) }
                    continue
                }
                switch escape {
                case "x": column += 4
                case "u": column += 6
                case "U": column += 10
                default: column += 2
                }
            } else if s == c {
                column += (scalar.style == .singleQuoted && c == "'") ? 2 : 1
            } else {
                mismatch = true
            }
            index += 1
        }
        positions.append(.init(line: Int32(lineNumber), column: Int32(column)))
        return EmbeddedSource(text: value, location: location, positions: positions)
    }
}
