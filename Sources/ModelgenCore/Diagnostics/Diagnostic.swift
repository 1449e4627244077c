/// How serious a diagnostic is.
public enum Severity: String, Sendable, Hashable, Codable, Comparable {
    /// The model cannot be generated: the run exits 1 and writes nothing.
    case error
    /// Probably a mistake, but the model generates (`--strict` makes it an error).
    case warning
    /// More about the diagnostic before it: a fix or a related place.
    case note

    private var rank: Int { self == .error ? 2 : self == .warning ? 1 : 0 }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One problem found in a model file, with its position: a typed value that
/// renders as `FILE:LINE:COLUMN: severity: message`.
public struct Diagnostic: Sendable, Hashable, Error, CustomStringConvertible {
    /// A follow-up line attached to a diagnostic: a fix ("did you mean `toMany`?") or a related place.
    public struct Note: Sendable, Hashable {
        /// The text of the note.
        public var message: String
        /// Where it points; the diagnostic's own location when nil.
        public var location: SourceLocation?

        /// Creates a note.
        public init(_ message: String, at location: SourceLocation? = nil) {
            self.message = message
            self.location = location
        }
    }

    /// Error, warning or note.
    public var severity: Severity
    /// Which kind of problem this is: a code that stays when the message's wording changes.
    public var id: DiagnosticID
    /// What is wrong.
    public var message: String
    /// Where.
    public var location: SourceLocation
    /// Fixes and related places.
    public var notes: [Note]

    /// Creates a diagnostic.
    public init(_ severity: Severity, _ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Note] = []) {
        self.severity = severity
        self.id = id
        self.message = message
        self.location = location
        self.notes = notes
    }

    /// `FILE:LINE:COLUMN: severity: message`.
    public var description: String { "\(location): \(severity.rawValue): \(message)" }
}

/// Collects the diagnostics of one run, in the order they are found.
public struct DiagnosticList: Sendable, Error {
    /// Everything collected so far.
    public private(set) var all: [Diagnostic] = []

    /// An empty list.
    public init() {}

    /// Adds an error.
    public mutating func error(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        all.append(Diagnostic(.error, id, message, at: location, notes: notes))
    }

    /// Adds a warning.
    public mutating func warning(_ id: DiagnosticID, _ message: String, at location: SourceLocation, notes: [Diagnostic.Note] = []) {
        all.append(Diagnostic(.warning, id, message, at: location, notes: notes))
    }

    /// Adds an already-built diagnostic.
    public mutating func append(_ diagnostic: Diagnostic) {
        all.append(diagnostic)
    }

    /// Adds several.
    public mutating func append(contentsOf diagnostics: [Diagnostic]) {
        all.append(contentsOf: diagnostics)
    }

    /// True when at least one error was collected.
    public var hasErrors: Bool { all.contains { $0.severity == .error } }
}

extension Array where Element == Diagnostic {
    /// Sorted by position (file, line, column), keeping the order found among equals.
    public func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { a, b in
            a.element.location == b.element.location ? a.offset < b.offset : a.element.location < b.element.location
        }.map(\.element)
    }

    /// Warnings turned into errors (`--strict`).
    public func promotingWarnings() -> [Diagnostic] {
        map { d in
            var d = d
            if d.severity == .warning { d.severity = .error; d.message += " [--strict]" }
            return d
        }
    }

    /// True when any element is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }
}
