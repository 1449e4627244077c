/// A model file as a tree to write: ordered mappings, sequences and scalars, each entry with the
/// comments that go with it. `modelgen format` builds one from a parsed file, `modelgen import`
/// from a Core Data model; `YAMLDocumentWriter` prints both in the one canonical layout.
struct YAMLDocument: Sendable {
    /// The root mapping.
    var root: YAMLMapping
    /// Comments before the first entry (a file header), kept at the top whatever entry comes first.
    var headerComments: [String] = []
    /// Comments after the last entry.
    var trailingComments: [String] = []

    /// A document with this root.
    init(root: YAMLMapping, headerComments: [String] = [], trailingComments: [String] = []) {
        self.root = root
        self.headerComments = headerComments
        self.trailingComments = trailingComments
    }
}

/// A node of a `YAMLDocument`.
indirect enum YAMLValue: Sendable {
    case scalar(YAMLScalar)
    case mapping(YAMLMapping)
    case sequence(YAMLSequence)
}

/// A scalar with how it wants to be written.
struct YAMLScalar: Sendable, Equatable {
    /// How the writer chooses the scalar's style.
    enum Kind: Sendable, Equatable {
        /// A token written plain when YAML allows it there (numbers, booleans, names): quoted only when it must be.
        case token
        /// Free text: plain only when it reads as words, otherwise quoted; several lines become a `|` block.
        case text
        /// An expression in another language (predicates, derivations, regular expressions): always quoted.
        case expression
    }

    /// The scalar's value.
    var value: String
    /// How it is written.
    var kind: Kind

    /// A scalar.
    init(_ value: String, kind: Kind) {
        self.value = value
        self.kind = kind
    }

    /// A token (`int16`, `true`, `0`, `Post`).
    static func token(_ value: String) -> YAMLScalar { YAMLScalar(value, kind: .token) }
    /// Free text (predicates, docs, default strings).
    static func text(_ value: String) -> YAMLScalar { YAMLScalar(value, kind: .text) }
}

/// Comments attached to an entry or item: lines before it and one at the end of its line.
struct YAMLComments: Sendable, Equatable {
    /// Whole-line comments written before the entry, without their `#`.
    var leading: [String] = []
    /// A comment at the end of the entry's first line, without its `#`.
    var trailing: String?

    /// No comments.
    init(leading: [String] = [], trailing: String? = nil) {
        self.leading = leading
        self.trailing = trailing
    }

    /// True when there is no comment.
    var isEmpty: Bool { leading.isEmpty && trailing == nil }
}

/// A mapping: entries in the order they are written.
struct YAMLMapping: Sendable {
    /// How the writer lays out a mapping.
    enum Layout: Sendable {
        /// `key:` lines, indented.
        case block
        /// `{ key: value, ... }` on the parent's line when it fits and holds no comments, else block.
        case flowIfFits
    }

    /// One `key: value` entry.
    struct Entry: Sendable {
        var key: String
        var value: YAMLValue
        var comments: YAMLComments
        /// Where the entry comes from (an element of an imported file), to point diagnostics at.
        var origin: SourceLocation?

        /// An entry.
        init(_ key: String, _ value: YAMLValue, comments: YAMLComments = YAMLComments(), origin: SourceLocation? = nil) {
            self.key = key
            self.value = value
            self.comments = comments
            self.origin = origin
        }
    }

    /// The entries, in order.
    var entries: [Entry]
    /// The layout.
    var layout: Layout
    /// When true, an entry written as a block is preceded by a blank line (sections, entities).
    var spacesBlocks: Bool

    /// A mapping.
    init(_ entries: [Entry] = [], layout: Layout = .block, spacesBlocks: Bool = false) {
        self.entries = entries
        self.layout = layout
        self.spacesBlocks = spacesBlocks
    }

    /// Appends `key: value`.
    mutating func append(_ key: String, _ value: YAMLValue, origin: SourceLocation? = nil) {
        entries.append(Entry(key, value, origin: origin))
    }

    /// Appends `key: token`.
    mutating func append(_ key: String, token: String, origin: SourceLocation? = nil) {
        append(key, .scalar(.token(token)), origin: origin)
    }

    /// Appends `key: text`.
    mutating func append(_ key: String, text: String, origin: SourceLocation? = nil) {
        append(key, .scalar(.text(text)), origin: origin)
    }

    /// The value of a key.
    subscript(_ key: String) -> YAMLValue? {
        entries.first { $0.key == key }?.value
    }

    /// True when there are no entries.
    var isEmpty: Bool { entries.isEmpty }
}

/// A sequence: items in order.
struct YAMLSequence: Sendable {
    /// One item.
    struct Item: Sendable {
        var value: YAMLValue
        var comments: YAMLComments

        /// An item.
        init(_ value: YAMLValue, comments: YAMLComments = YAMLComments()) {
            self.value = value
            self.comments = comments
        }
    }

    /// The items.
    var items: [Item]
    /// `[a, b]` when it fits and holds no comments, else `- a` lines.
    var layout: YAMLMapping.Layout

    /// A sequence.
    init(_ items: [Item] = [], layout: YAMLMapping.Layout = .flowIfFits) {
        self.items = items
        self.layout = layout
    }

    /// A flow-if-fits sequence of scalars.
    static func of(_ scalars: [YAMLScalar]) -> YAMLSequence {
        YAMLSequence(scalars.map { Item(.scalar($0)) })
    }
}
