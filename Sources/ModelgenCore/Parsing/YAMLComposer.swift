import CYaml
import Yams

/// Composes a YAML document into a `Yams.Node` tree from the events of libyaml (the copy Yams
/// embeds), every node with its line and column, every scalar kept a string.
///
/// It does what `Yams.Parser.singleRoot()` with the basic resolver does, at less than half the cost
/// (one reused event instead of an object per event, one tag per kind of node instead of one per
/// node, scalars decoded without Foundation, duplicate keys found by comparing strings instead of
/// hashing nodes, and in large mappings by hashing them once the mapping ends, in a table sized for
/// them: grown key by key, the table of a 200,000-entity section was rehashed as it grew), and says more
/// where a document is wrong:
///
/// - every repeated key of every mapping, each at the repetition with a note at the first;
/// - a key that is itself a mapping or a list (a YAML complex key, which the formats never use) at
///   the key, before its contents are read (composing nested complex keys is what held Yams for minutes);
/// - libyaml's reader, scanner and parser errors at their position.
///
/// Aliases share the anchored node, as in Yams: the readers bound what an alias-heavy document may
/// cost (`NodeReader`'s budget). The composer keeps its own stack (no recursion), so a document as
/// deep as libyaml allows composes on a thread with a small stack.
struct YAMLComposer {
    /// Why a document could not be composed.
    enum Failure: Error {
        /// libyaml stopped reading (it stops at its first error).
        case libyaml(LibyamlError)
        /// Problems found while composing (repeated keys, complex keys, undefined aliases, a second document).
        case diagnostics(DiagnosticList)
    }

    /// libyaml's own error.
    enum LibyamlError: Error {
        /// A reader error (bytes it cannot read): its message and the byte offset.
        case reader(problem: String, offset: Int)
        /// A scanner or parser error: the problem, its position, and the construct it was reading with
        /// where that started.
        case syntax(problem: String, line: Int, column: Int, context: (text: String, line: Int, column: Int)?)
    }

    private let file: String
    private var parser = yaml_parser_t()
    private var event = yaml_event_t()
    /// One tag per kind of node (Yams makes one per node); the basic resolver's names, so nothing is resolved later.
    private var scalarTag = Tag(.str, .basic, YAMLComposer.constructor)
    private var mappingTag = Tag(.map, .basic, YAMLComposer.constructor)
    private var sequenceTag = Tag(.seq, .basic, YAMLComposer.constructor)
    /// Yams' default constructor, made once (`Constructor.default` builds a new one, three dictionaries,
    /// on every use); never changed after, so sharing it between threads is safe.
    nonisolated(unsafe) private static let constructor = Constructor.default
    private var anchors: [String: Node] = [:]
    private var problems = DiagnosticList()
    /// Repeated keys of large mappings, found when each mapping ended (`checkKeys(_:)`): sorted into
    /// `problems` by position when the document is composed (or fails), so they are reported in
    /// document order with the others, as if found key by key.
    private var repeatedKeysOfLargeMappings: [Diagnostic] = []

    private init(file: String) {
        self.file = file
    }

    /// The document's root node; nil for a stream without a document (empty, or only comments).
    static func compose(_ source: SourceText) -> Result<Node?, Failure> {
        var composer = YAMLComposer(file: source.path)
        var text = source.text
        return text.withUTF8 { bytes in
            yaml_parser_initialize(&composer.parser)
            defer {
                yaml_event_delete(&composer.event)
                yaml_parser_delete(&composer.parser)
            }
            yaml_parser_set_input_string(&composer.parser, bytes.baseAddress, bytes.count)
            yaml_parser_set_encoding(&composer.parser, YAML_UTF8_ENCODING)
            do throws(Failure) {
                return .success(try composer.document())
            } catch {
                return .failure(error)
            }
        }
    }

    // MARK: Events

    private mutating func next() throws(Failure) {
        yaml_event_delete(&event)
        guard yaml_parser_parse(&parser, &event) == 1 else { throw .libyaml(libyamlError()) }
    }

    private func libyamlError() -> LibyamlError {
        let problem = parser.problem.map { String(cString: $0) } ?? "unknown error"
        if parser.error == YAML_READER_ERROR { return .reader(problem: problem, offset: parser.problem_offset) }
        let context = parser.context.map {
            (text: String(cString: $0), line: parser.context_mark.line + 1, column: parser.context_mark.column + 1)
        }
        return .syntax(problem: problem, line: parser.problem_mark.line + 1, column: parser.problem_mark.column + 1, context: context)
    }

    private var mark: Mark { Mark.at(line: event.start_mark.line + 1, column: event.start_mark.column + 1) }

    private func location(_ mark: Mark) -> SourceLocation { SourceLocation(file: file, line: mark.line, column: mark.column) }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    // MARK: Composing

    /// A collection being composed.
    private struct OpenCollection {
        var mark: Mark
        var anchor: String?
        var isMapping: Bool
        var items: [Node] = []
        var pairs: [(Node, Node)] = []
        var key: Node?
        /// The scalar keys and where each was written: the first `keysComparedDirectly` distinct ones,
        /// checked as they come, then every one, checked when the mapping ends.
        var keys: [(name: String, mark: Mark)] = []
        /// True for a mapping whose next node is a key.
        var expectsKey: Bool { isMapping && key == nil }

        /// Makes this (spare, cleared) collection a new one.
        mutating func start(at mark: Mark, anchor: String?, isMapping: Bool) {
            self.mark = mark
            self.anchor = anchor
            self.isMapping = isMapping
        }

        /// Empties the collection once its node is made, keeping its arrays' capacity.
        /// (A large collection's arrays are freed instead: kept, a 200,000-entry section's would add to
        /// the peak memory the composing of the next collections reaches.)
        mutating func clear() {
            let keepsCapacity = items.count + pairs.count <= Self.largestKept
            items.removeAll(keepingCapacity: keepsCapacity)
            pairs.removeAll(keepingCapacity: keepsCapacity)
            key = nil
            keys.removeAll(keepingCapacity: keepsCapacity)
        }

        /// Collections of up to this many items leave their arrays' capacity to the next at their depth.
        static let largestKept = 4096
    }

    private mutating func document() throws(Failure) -> Node? {
        try next()   // stream start
        try next()
        if event.type == YAML_STREAM_END_EVENT { return nil }
        // The collections being composed, innermost last; `open[depth...]` are spare ones whose arrays
        // keep their capacity for the next collection at that depth (Yams' nodes copy the items, so
        // the buffers can be reused instead of grown and freed for each of the model's many mappings).
        var open: [OpenCollection] = []
        var depth = 0
        var root: Node?
        while root == nil {
            try next()
            var completed: Node
            var anchor: String?
            switch event.type {
            case YAML_SCALAR_EVENT:
                let scalar = event.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                completed = .scalar(.init(text, scalarTag, Node.Scalar.Style(rawValue: scalar.style.rawValue) ?? .any, mark))
                anchor = Self.string(scalar.anchor)
            case YAML_ALIAS_EVENT:
                let name = Self.string(event.data.alias.anchor) ?? ""
                guard let target = anchors[name] else {
                    problems.error(.yamlSyntax, "alias refers to an anchor that is not defined before it (aliases cannot refer forward or to themselves)",
                                   at: location(mark))
                    throw failure(open: open[..<depth])
                }
                if depth > 0, open[depth - 1].expectsKey, !target.isScalar {
                    throw complexKey(at: mark, open: open[..<depth])
                }
                completed = target
            case YAML_MAPPING_START_EVENT, YAML_SEQUENCE_START_EVENT:
                if depth > 0, open[depth - 1].expectsKey { throw complexKey(at: mark, open: open[..<depth]) }
                let isMapping = event.type == YAML_MAPPING_START_EVENT
                let name = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
                if depth == open.count { open.append(OpenCollection(mark: mark, anchor: nil, isMapping: isMapping)) }
                open[depth].start(at: mark, anchor: Self.string(name), isMapping: isMapping)
                depth += 1
                continue
            case YAML_MAPPING_END_EVENT, YAML_SEQUENCE_END_EVENT:
                depth -= 1
                completed = open[depth].isMapping
                    ? .mapping(.init(open[depth].pairs, mappingTag, .any, open[depth].mark))
                    : .sequence(.init(open[depth].items, sequenceTag, .any, open[depth].mark))
                anchor = open[depth].anchor
                // Release the composer's copies now, before a large mapping's keys are checked (which
                // takes a table of them).
                let keys = open[depth].keys
                open[depth].clear()
                checkKeys(keys)
            default:
                continue
            }
            if let anchor { anchors[anchor] = completed }
            if depth == 0 {
                root = completed
            } else {
                add(consume completed, to: &open[depth - 1])
            }
        }
        try next()   // document end
        try next()
        if event.type != YAML_STREAM_END_EVENT {
            problems.error(.yamlSyntax, "invalid YAML: a second document starts here; expected a single document in the stream",
                           at: location(mark))
            throw failure(open: [])
        }
        if problems.hasErrors || !repeatedKeysOfLargeMappings.isEmpty { throw failure(open: []) }
        return root
    }

    /// Mappings of up to this many keys find repeated keys by comparing strings; larger ones hash them.
    private static let keysComparedDirectly = 16

    /// Moves `node` into the collection (a `Node` copied is each of its strings and arrays retained, and
    /// released again when the copy left behind is freed).
    private mutating func add(_ node: consuming Node, to collection: inout OpenCollection) {
        guard collection.isMapping else {
            collection.items.append(node)
            return
        }
        guard let key = collection.key.take() else {
            if let (name, mark) = node.scalarText { checkRepetition(of: name, at: mark, in: &collection) }
            collection.key = node
            return
        }
        collection.pairs.append((key, node))
    }

    private mutating func checkRepetition(of key: String, at mark: Mark?, in collection: inout OpenCollection) {
        guard let mark else { return }
        guard collection.keys.count < Self.keysComparedDirectly else {
            collection.keys.append((key, mark))   // checked when the mapping ends
            return
        }
        if let first = collection.keys.first(where: { $0.name == key })?.mark {
            problems.append(repeatedKey(key, at: mark, first: first))
        } else {
            collection.keys.append((key, mark))
        }
    }

    /// Finds the repeated keys among a large mapping's keys after its first `keysComparedDirectly`
    /// (those are distinct), each against the first time it was written.
    private mutating func checkKeys(_ keys: [(name: String, mark: Mark)]) {
        guard keys.count > Self.keysComparedDirectly else { return }
        var firsts: [String: Mark] = [:]
        firsts.reserveCapacity(keys.count)
        for index in keys.indices {
            if let first = firsts.insertIfAbsent(keys[index].mark, forKey: keys[index].name), index >= Self.keysComparedDirectly {
                repeatedKeysOfLargeMappings.append(repeatedKey(keys[index].name, at: keys[index].mark, first: first))
            }
        }
    }

    private func repeatedKey(_ key: String, at mark: Mark, first: Mark) -> Diagnostic {
        Diagnostic(.error, .duplicateKey, "duplicate key '\(key)' in one mapping; each key may appear once",
                   at: location(mark), notes: [.init("first written here", at: location(first))])
    }

    /// The problems found, with the repeated keys of the mappings still `open` (checked now) and of
    /// the large mappings that ended, in document order.
    private mutating func failure(open: ArraySlice<OpenCollection>) -> Failure {
        for collection in open { checkKeys(collection.keys) }
        guard !repeatedKeysOfLargeMappings.isEmpty else { return .diagnostics(problems) }
        var all = DiagnosticList()
        all.append(contentsOf: (problems.all + repeatedKeysOfLargeMappings).sortedByLocation())
        return .diagnostics(all)
    }

    private mutating func complexKey(at mark: Mark, open: ArraySlice<OpenCollection>) -> Failure {
        problems.error(.wrongKind, "a mapping key here is itself a mapping or a list (a YAML complex key); keys are plain names",
                       at: location(mark))
        return failure(open: open)
    }
}

extension Node {
    /// True for a scalar node.
    fileprivate var isScalar: Bool {
        if case .scalar = self { return true }
        return false
    }

    /// A scalar's text and where it is written (read without consuming the node, as a pattern match would).
    fileprivate var scalarText: (String, Mark?)? {
        if case .scalar(let scalar) = self { return (scalar.string, scalar.mark) }
        return nil
    }
}

extension Mark {
    /// A position (1-based). Yams makes its marks only inside its own parser (`Mark` has no public
    /// initializer); its layout is two `Int`s, line then column, which `ParserTests` checks against
    /// the marks Yams' own parser gives for the same document.
    static func at(line: Int, column: Int) -> Mark {
        precondition(MemoryLayout<Mark>.size == 2 * MemoryLayout<Int>.size, "Yams' Mark is no longer two Ints")
        return unsafeBitCast((line, column), to: Mark.self)
    }
}
