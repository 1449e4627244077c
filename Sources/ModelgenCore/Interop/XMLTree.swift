import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// One element of an XML document with where it starts: what the importer reads a Core Data
/// `contents` file into (FoundationXML's event parser, kept as a small tree).
final class XMLTreeElement: @unchecked Sendable {
    /// The element name (`entity`, `attribute`, ...).
    let name: String
    /// The attributes by name.
    let attributes: [String: String]
    /// Child elements in document order.
    var children: [XMLTreeElement] = []
    /// Where the start tag begins (`<`).
    let location: SourceLocation
    /// The start tag's text, to find attribute positions in.
    let tagText: Substring

    init(name: String, attributes: [String: String], location: SourceLocation, tagText: Substring) {
        self.name = name
        self.attributes = attributes
        self.location = location
        self.tagText = tagText
    }

    /// The attribute's value, nil when absent.
    subscript(_ attribute: String) -> String? { attributes[attribute] }

    /// True when the attribute is `YES` (Core Data's spelling of true).
    func flag(_ attribute: String) -> Bool { attributes[attribute] == "YES" }

    /// The children with this name.
    func children(named name: String) -> [XMLTreeElement] { children.filter { $0.name == name } }

    /// Where the attribute is written in the start tag (the element's position when it cannot be found).
    func location(of attribute: String) -> SourceLocation {
        guard let range = tagText.range(of: " \(attribute)=") ?? tagText.range(of: "\n\(attribute)=")
                ?? tagText.range(of: "\t\(attribute)=") else { return location }
        var line = location.line, column = location.column
        for scalar in tagText[tagText.startIndex..<range.lowerBound].unicodeScalars {
            if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
        }
        return SourceLocation(file: location.file, line: line, column: column + 1)
    }
}

/// Reads XML text into `XMLTreeElement`s, with a positioned diagnostic when it is not well-formed XML.
enum XMLTreeReader {
    /// The root element, or the diagnostic of the first XML error.
    static func read(_ data: Data, path: String) -> Result<XMLTreeElement, Diagnostic> {
        // Xcode writes UTF-8; FoundationXML's parser traps on some invalid UTF-8 in names (found by
        // fuzzing), so invalid bytes are refused first, at their position.
        if let tooLarge = SourceText.sizeProblem(data.count, path: path) { return .failure(tooLarge) }
        if let invalid = firstInvalidUTF8(in: data, path: path) { return .failure(invalid) }
        if let instruction = firstProcessingInstruction(in: data, path: path) { return .failure(instruction) }
        let text = String(decoding: data, as: UTF8.self)
        let builder = Builder(path: path, text: text)
        let parser = XMLParser(data: data)
        parser.delegate = builder
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        builder.parser = parser
        let ok = parser.parse()
        if let problem = builder.problem { return .failure(problem) }
        if ok, let root = builder.root { return .success(root) }
        let line = max(parser.lineNumber, 1), column = max(parser.columnNumber, 1)
        let reason = (parser.parserError as NSError?).map { describe($0) } ?? "the document has no root element"
        return .failure(Diagnostic(.error, .xmlSyntax, "not well-formed XML: \(reason)",
                                   at: SourceLocation(file: path, line: line, column: column)))
    }

    /// The position of the first byte that is not UTF-8, as an error; nil for valid UTF-8.
    static func firstInvalidUTF8(in data: Data, path: String) -> Diagnostic? {
        var decoder = UTF8()
        var iterator = data.makeIterator()
        var line = 1, column = 1
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" { line += 1; column = 1 } else { column += 1 }
            case .emptyInput:
                return nil
            case .error:
                return Diagnostic(.error, .notUTF8, "not well-formed XML: the bytes here are not UTF-8 (Xcode writes model files in UTF-8)",
                                  at: SourceLocation(file: path, line: line, column: column))
            }
        }
    }

    /// The position of the first processing instruction (`<?page …?>`) other than the XML declaration
    /// at the start, as an error; nil when there is none. A Core Data model holds none, and FoundationXML
    /// on Linux hands libxml2's missing data of some (`<?xml?>`, and ones libxml2 reads differently from
    /// any scan of ours: fuzz-xml found both) to `strlen` and crashes, so libxml2 never sees one.
    /// Comments and CDATA sections are skipped: a `<?` there is text.
    static func firstProcessingInstruction(in data: Data, path: String) -> Diagnostic? {
        let bytes = [UInt8](data)
        func starts(_ prefix: StaticString, at index: Int) -> Bool {
            let count = prefix.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            return (0..<count).allSatisfy { bytes[index + $0] == prefix.utf8Start[$0] }
        }
        func end(of terminator: StaticString, from index: Int) -> Int? {
            var k = index
            while k < bytes.count { if starts(terminator, at: k) { return k }; k += 1 }
            return nil
        }
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var index = 0, line = 1, column = 1
        func move(to target: Int) {
            while index < target {
                if bytes[index] == 0x0A { line += 1; column = 1 } else if bytes[index] & 0xC0 != 0x80 { column += 1 }
                index += 1
            }
        }
        while let next = bytes[index...].firstIndex(of: UInt8(ascii: "<")) {
            move(to: next)
            if starts("<!--", at: index) {
                move(to: end(of: "-->", from: index + 4) ?? bytes.count)
            } else if starts("<![CDATA[", at: index) {
                move(to: end(of: "]]>", from: index + 9) ?? bytes.count)
            } else if starts("<?", at: index) {
                let close = end(of: "?>", from: index + 2)
                // The XML declaration: `<?xml` and its version, first in the file (after a byte order mark).
                // Its text holds no markup: where it does (a declaration never closed before the next
                // instruction's `?>`), libxml2 reads the text otherwise than this scan (found by fuzz-xml).
                if index == (starts("\u{FEFF}", at: 0) ? 3 : 0), starts("<?xml", at: index), let close,
                   index + 5 < close, isBlank(bytes[index + 5]), !bytes[(index + 5)..<close].allSatisfy(isBlank),
                   !bytes[(index + 5)..<close].contains(where: { $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: ">") }) {
                    move(to: close + 2)
                    continue
                }
                // The instruction as written, cut at 40 bytes or its line's end ("…" when cut).
                let instructionEnd = close.map { $0 + 2 } ?? bytes.count
                var shown = bytes[index..<min(instructionEnd, index + 40)]
                if let lineEnd = shown.firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) { shown = shown[..<lineEnd] }
                let excerpt = String(decoding: shown, as: UTF8.self) + (close != nil && shown.endIndex == instructionEnd ? "" : "…")
                return Diagnostic(.error, .xmlSyntax, "a processing instruction ('\(excerpt)') is not read (a Core Data model has none but the XML declaration, '<?xml version=\"1.0\" …?>', first in the file)",
                                  at: SourceLocation(file: path, line: line, column: column))
            } else {
                move(to: index + 1)
            }
        }
        return nil
    }

    private static func describe(_ error: NSError) -> String {
        // libxml2's codes for what a hostile document tries (Core Data models declare no entities).
        switch error.code {
        case 89: return "entities expand too far (references that loop or multiply, as in a 'billion laughs' document); libxml2 stops them, and Core Data models declare no entities"
        case 29, 104: return "an external entity (a reference to another file or URL); modelgen never reads external entities"
        default: break
        }
        let text = error.localizedDescription
        if text.isEmpty || text.hasPrefix("The operation could not be completed") {
            return "libxml2 error \(error.code)"
        }
        return text
    }

    /// Builds the tree from parser events; libxml2 reports the position where a start tag ends,
    /// so the builder searches back to its `<` for a position a reader can use.
    private final class Builder: NSObject, XMLParserDelegate {
        let path: String
        let utf8: [UInt8]
        let text: String
        /// The UTF-8 offset of each line's start.
        let lineStarts: [Int]
        weak var parser: XMLParser?
        var stack: [XMLTreeElement] = []
        var root: XMLTreeElement?
        /// The first well-formedness problem FoundationXML let through.
        var problem: Diagnostic?

        init(path: String, text: String) {
            self.path = path
            self.text = text
            utf8 = Array(text.utf8)
            var starts = [0]
            for (offset, byte) in utf8.enumerated() where byte == 0x0A { starts.append(offset + 1) }
            lineStarts = starts
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            let (location, tag) = startTag(named: elementName, endLine: parser.lineNumber, endColumn: parser.columnNumber)
            let element = XMLTreeElement(name: elementName, attributes: attributeDict, location: location, tagText: tag)
            if let parent = stack.last { parent.children.append(element) } else if root == nil { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            // FoundationXML on Linux reports some mismatched tags as ends of the open element: check them here.
            if let open = stack.last, open.name != elementName, problem == nil {
                problem = Diagnostic(.error, .xmlSyntax, "not well-formed XML: </\(elementName)> closes <\(open.name)> (opened at line \(open.location.line))",
                                     at: SourceLocation(file: path, line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1)))
            }
            if !stack.isEmpty { stack.removeLast() }
        }

        func parserDidEndDocument(_ parser: XMLParser) {
            if let open = stack.last, problem == nil {
                problem = Diagnostic(.error, .xmlSyntax, "not well-formed XML: <\(open.name)> is never closed", at: open.location)
            }
        }

        /// The position of `<name` at or before where libxml2 says the tag ends, and the tag's text.
        private func startTag(named name: String, endLine: Int, endColumn: Int) -> (SourceLocation, Substring) {
            let line = min(max(endLine, 1), lineStarts.count)
            var end = min(lineStarts[line - 1] + max(endColumn - 1, 0), utf8.count)
            // libxml2 counts columns in bytes; step to the tag's closing '>' if it is just ahead.
            while end < utf8.count, utf8[end] != UInt8(ascii: ">"), end - lineStarts[line - 1] < endColumn + 2 { end += 1 }
            let needle = Array("<\(name)".utf8)
            var start = max(min(end, utf8.count) - needle.count, 0)
            while start >= 0 {
                if utf8[start] == needle[0], start + needle.count <= utf8.count,
                   Array(utf8[start..<start + needle.count]) == needle { break }
                start -= 1
            }
            if start < 0 { return (SourceLocation(file: path, line: line, column: max(endColumn, 1)), "") }
            let startLine = lineStarts.lastIndex { $0 <= start } ?? 0
            let column = String(decoding: utf8[lineStarts[startLine]..<start], as: UTF8.self).unicodeScalars.count + 1
            let tagEnd = min(end + 1, utf8.count)
            let tag = String(decoding: utf8[start..<tagEnd], as: UTF8.self)
            return (SourceLocation(file: path, line: startLine + 1, column: column), Substring(tag))
        }
    }
}
