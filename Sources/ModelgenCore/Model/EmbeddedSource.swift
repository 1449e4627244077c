/// A string from the model file that holds code of its own (a predicate, a
/// derivation expression, a sort descriptor), with the file position of each of
/// its Unicode scalars, so a mistake inside it is reported at its own column.
public struct EmbeddedSource: Sendable, Hashable {
    /// A line and column pair.
    struct Position: Sendable, Hashable {
        var line: Int32
        var column: Int32
    }

    /// The string's value (after YAML unquoting).
    public let text: String
    /// Where the scalar starts in the file (its opening quote for quoted scalars).
    public let location: SourceLocation
    /// The file position of each scalar of `text`, plus one for the end.
    let positions: [Position]

    init(text: String, location: SourceLocation, positions: [Position]) {
        self.text = text
        self.location = location
        self.positions = positions
    }

    /// The file location of the scalar at `offset` in `text`.
    public func location(atOffset offset: Int) -> SourceLocation {
        guard !positions.isEmpty else { return location }
        let p = positions[min(max(offset, 0), positions.count - 1)]
        return SourceLocation(file: location.file, line: Int(p.line), column: Int(p.column))
    }
}
