/// The stable identifier of a kind of diagnostic: a code (`MG0401`) and a name (`inverse-mismatch`).
///
/// Every diagnostic modelgen reports carries one. The code never changes once released, so scripts,
/// CI annotations and searches can rely on it while the message's wording improves; `docs/diagnostics.md`
/// explains each with an example that produces it (a test runs every example). The number is the raw
/// value; the name is the case name in kebab case. Codes are grouped by hundreds: `MG00xx` reading the
/// file, `MG01xx` names, `MG02xx` entities, `MG03xx` attributes, `MG04xx` relationships, `MG05xx`
/// predicates and fetch requests, `MG06xx` derived and computed properties, `MG07xx` configuration
/// and output, `MG08xx` Xcode models.
public enum DiagnosticID: Int, CaseIterable, Sendable, Hashable {
    // MARK: Reading the file
    case fileTooLarge = 1
    case notUTF8 = 2
    case yamlSyntax = 3
    case yamlTooComplex = 4
    case duplicateKey = 5
    case emptyFile = 6
    case unknownKey = 7
    case missingKey = 8
    case wrongKind = 9
    case invalidValue = 10
    case unsupportedFormatVersion = 11
    case unknownAttributeType = 12
    case noEntities = 13

    // MARK: Names
    case invalidIdentifier = 101
    case nameCase = 102
    case reservedName = 103
    case nameCollision = 104
    case duplicateDeclaration = 105

    // MARK: Entities
    case inheritanceCycle = 201
    case shadowedProperty = 202
    case unknownEntity = 203
    case invalidIndex = 204
    case reservedConfiguration = 205

    // MARK: Attributes
    case optionalNumber = 301
    case inapplicableOption = 302
    case missingSwiftType = 303
    case storedUndefined = 304
    case invalidBounds = 305
    case invalidDefault = 306
    case invalidRegex = 307
    case redundantRenaming = 308
    case invalidComposite = 309

    // MARK: Relationships
    case inverseMismatch = 401
    case missingInverse = 402
    case unknownInverse = 403
    case noActionDeleteRule = 404

    // MARK: Predicates and fetch requests
    case predicateSyntax = 501
    case unknownKeyPath = 502
    case invalidKeyPath = 503
    case predicateTypeMismatch = 504
    case predicateVariable = 505
    case toManyNeedsQuantifier = 506
    case unsupportedFunction = 507
    case unknownUserInfoKey = 508

    // MARK: Derived and computed properties
    case invalidDerivation = 601
    case invalidDependency = 602

    // MARK: Configuration and output
    case missingModelFile = 701
    case outputCollision = 702
    case cannotFormat = 703
    case invalidTemplate = 704

    // MARK: Xcode models
    case xmlSyntax = 801
    case notAnXcodeModel = 802
    case notImported = 803
    case cannotImport = 804
    case importAdjusted = 805
    case notExported = 806

    /// `MG` and four digits, e.g. `MG0401`: the identifier that stays when messages change.
    public var code: String {
        let digits = String(rawValue)
        return "MG" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The kebab-case name, e.g. `inverse-mismatch`: the case name with a hyphen before each word.
    public var name: String {
        var result = ""
        var previousWasUpper = true
        // The case name, from reflection metadata. This is why the type is not CustomStringConvertible:
        // `String(describing:)` would call that `description` instead (and `label` calls this).
        let caseName = String(describing: self)
        for character in caseName {
            // A run of capitals (UTF8) stays one word; a capital after a lower-case letter starts one.
            if character.isUppercase, !previousWasUpper { result.append("-") }
            previousWasUpper = character.isUppercase || character.isNumber
            result.append(Character(character.lowercased()))
        }
        return result
    }

    /// The identifier with the given code (`MG0401`), if there is one.
    public init?(code: String) {
        guard code.hasPrefix("MG"), let number = Int(code.dropFirst(2)), code.count == 6 else { return nil }
        self.init(rawValue: number)
    }
}

extension DiagnosticID {
    /// `MG0401 inverse-mismatch`: the code and the name, as the GitHub format's annotation title shows them.
    public var label: String { "\(code) \(name)" }
}
