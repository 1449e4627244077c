/// What a change between two versions of a model means for what depends on it.
public enum ChangeImpact: String, CaseIterable, Sendable, Hashable, Comparable {
    /// Stores migrate it in place when they open (a new table or column, an index, a rename with
    /// `renamingIdentifier`): no code needed.
    case lightweight
    /// Stores refuse it until your code moves the data (a type change, a new required value without a
    /// default, a to-one becoming to-many): a custom migration stage.
    case customStage = "custom-stage"
    /// Saved data is dropped (a removed entity, attribute or relationship; a stored value made transient).
    case dataLoss = "data-loss"
    /// Code written against the generated classes stops compiling (a renamed or removed property or
    /// class, a changed Swift type, a removed fetch request template).
    case apiBreak = "api-break"

    /// The order the classes are listed in: least to most severe for a store, then the API.
    public static func < (a: ChangeImpact, b: ChangeImpact) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// One difference between two versions of a model: what changed, where in each file, and its impacts
/// (none: safe for generated code and for stores).
public struct ModelChange: Sendable, Hashable {
    /// What changed, in a sentence naming the entity and property.
    public var message: String
    /// Where it is in the old file (nil for something added).
    public var old: SourceLocation?
    /// Where it is in the new file (nil for something removed).
    public var new: SourceLocation?
    /// For something removed: the nearest place in the new file (its entity, else the model's name),
    /// where an annotation on the new file can point.
    public var anchor: SourceLocation?
    /// What it means for stores and for generated code; empty when it is safe for both.
    public var impacts: Set<ChangeImpact>

    /// A change.
    public init(_ message: String, old: SourceLocation?, new: SourceLocation?, impacts: Set<ChangeImpact>) {
        self.message = message
        self.old = old
        self.new = new
        self.impacts = impacts
    }

    /// The impacts as words, most severe last (`safe` when none).
    public var classification: String {
        impacts.isEmpty ? "safe" : impacts.sorted().map(\.rawValue).joined(separator: ", ")
    }
}
