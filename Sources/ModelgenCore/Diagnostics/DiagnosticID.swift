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
    /// The file is larger than modelgen reads (10 MB, or `MODELGEN_MAX_FILE_BYTES`).
    case fileTooLarge = 1
    /// The file is not UTF-8 text.
    case notUTF8 = 2
    /// The file is not valid YAML.
    case yamlSyntax = 3
    /// The document nests too deep, or its aliases expand to too many nodes.
    case yamlTooComplex = 4
    /// A key appears twice in one mapping.
    case duplicateKey = 5
    /// The file is empty.
    case emptyFile = 6
    /// A key the format does not have.
    case unknownKey = 7
    /// A required key is missing.
    case missingKey = 8
    /// A value has the wrong shape (a list where a mapping belongs, …).
    case wrongKind = 9
    /// A value that is not one of those allowed (a delete rule, a Boolean, a count).
    case invalidValue = 10
    /// `formatVersion` names a version this modelgen does not read.
    case unsupportedFormatVersion = 11
    /// An attribute type the format does not have and no composite is named.
    case unknownAttributeType = 12
    /// The model declares no entities.
    case noEntities = 13

    // MARK: Names
    /// A name that becomes Swift code is not a Swift identifier.
    case invalidIdentifier = 101
    /// A type name that does not start upper-case, or a property name that does not start lower-case.
    case nameCase = 102
    /// A name generated code cannot use (a member of `ManagedObject`, a runtime or standard library type).
    case reservedName = 103
    /// Two declarations would generate the same Swift name or file.
    case nameCollision = 104
    /// A name declared twice where it must be once.
    case duplicateDeclaration = 105

    // MARK: Entities
    /// Entities inherit from each other in a cycle.
    case inheritanceCycle = 201
    /// A subentity redeclares an inherited property.
    case shadowedProperty = 202
    /// A name that should be an entity's is not.
    case unknownEntity = 203
    /// A uniqueness constraint or index names what it cannot hold.
    case invalidIndex = 204
    /// A configuration named `Default`.
    case reservedConfiguration = 205

    // MARK: Attributes
    /// An optional numeric attribute (SQL NULL compares unlike 0).
    case optionalNumber = 301
    /// An option given where it does not apply (`ordered` on a to-one relationship, …).
    case inapplicableOption = 302
    /// A transformable or undefined attribute without `swiftType`.
    case missingSwiftType = 303
    /// An `undefined` attribute that is not transient.
    case storedUndefined = 304
    /// `min` greater than `max`, or `max: 0` on a to-many relationship.
    case invalidBounds = 305
    /// A default or bound that is not a value of the attribute's type or outside its bounds.
    case invalidDefault = 306
    /// A regular expression that does not compile.
    case invalidRegex = 307
    /// `renamingIdentifier` names the attribute, relationship or entity itself.
    case redundantRenaming = 308
    /// A composite that cannot be stored (a field type it cannot hold, or itself).
    case invalidComposite = 309

    // MARK: Relationships
    /// Two relationships disagree on being each other's inverse.
    case inverseMismatch = 401
    /// A relationship without an `inverse` key.
    case missingInverse = 402
    /// `inverse` names a relationship the destination does not have.
    case unknownInverse = 403
    /// `deleteRule: noAction`, which leaves references to deleted objects.
    case noActionDeleteRule = 404

    // MARK: Predicates and fetch requests
    /// A predicate, sort descriptor or derivation that does not parse.
    case predicateSyntax = 501
    /// A key in a predicate, sort or derivation that the entity does not have.
    case unknownKeyPath = 502
    /// A key path that exists but cannot be used so.
    case invalidKeyPath = 503
    /// Operands whose types do not compare, or an operator that does not apply to them.
    case predicateTypeMismatch = 504
    /// A `$VARIABLE` used where it cannot be.
    case predicateVariable = 505
    /// A to-many key path compared as one value (without `ANY`, `ALL`, `NONE` or `@count`).
    case toManyNeedsQuantifier = 506
    /// A function a fetch predicate cannot evaluate.
    case unsupportedFunction = 507
    /// `$FETCHED_PROPERTY.userInfo.KEY` names an entry the fetched property does not have.
    case unknownUserInfoKey = 508

    // MARK: Derived and computed properties
    /// A derivation that does not give the attribute's value.
    case invalidDerivation = 601
    /// A computed property's `dependsOn` names something that cannot be observed.
    case invalidDependency = 602

    // MARK: Configuration and output
    /// `modelgen.yml` lists a model file that does not exist.
    case missingModelFile = 701
    /// Two models would write the same file.
    case outputCollision = 702
    /// `modelgen format` does not rewrite this file.
    case cannotFormat = 703
    /// A template that does not parse, or partials that include each other.
    case invalidTemplate = 704
    /// A version folder (`NAME.modelversions`) holds a file not named `v<N>.model.yaml`, misses a
    /// number, or holds no versions.
    case versionFolderLayout = 705
    /// A version of a version folder names another model than the first version.
    case versionModelName = 706
    /// Two consecutive versions keep the same in stores (one version hash): no store can tell them apart.
    case versionUnchanged = 707

    // MARK: Xcode models
    /// The Xcode model is not well-formed XML.
    case xmlSyntax = 801
    /// The input is not a Core Data model.
    case notAnXcodeModel = 802
    /// Something in the Xcode model that a model file has no place for.
    case notImported = 803
    /// Something in the Xcode model that cannot become a model file.
    case cannotImport = 804
    /// Imported, but changed to fit a model file.
    case importAdjusted = 805
    /// Something `modelgen export` cannot put into a Core Data model.
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
