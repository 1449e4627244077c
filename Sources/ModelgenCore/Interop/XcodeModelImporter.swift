import Foundation

/// Turns a Core Data model (`.xcdatamodel/contents` XML) into a model file: `modelgen import`.
///
/// Everything the model format has a place for is carried over; what it has no place for is kept
/// in `userInfo` under `coreData.<attribute>` or reported as a warning at its XML position, never
/// dropped silently. The layout `<elements>` and the obsolete `syncable` flag are ignored by design.
public struct XcodeModelImporter {
    /// Import choices.
    public struct Options: Sendable {
        /// The codegen mode for entities Xcode marks Manual/None (no `codeGenerationType`).
        public var manualCodegen: CodegenMode = .none
        /// The model name; by default the bundle's (or file's) name.
        public var modelName: String?

        /// The defaults.
        public init() {}
    }

    /// The imported document with the diagnostics of the import, located in the XML.
    public struct Result: Sendable {
        var document: YAMLDocument?
        /// Everything the import reports, located in the XML.
        public var diagnostics: [Diagnostic]
    }

    /// Names ModelgenRuntime accepts but NSManagedObject declares (Objective-C property names of `isDeleted`…).
    static let coreDataMemberNames: Set<String> = ["deleted", "inserted", "updated", "fault"]

    /// Core Data attribute types by their XML spelling.
    static let attributeTypes: [String: AttributeType] = [
        "String": .string, "Boolean": .bool, "Integer 16": .int16, "Integer 32": .int32, "Integer 64": .int64,
        "Float": .float, "Double": .double, "Decimal": .decimal, "Date": .date, "Binary": .binary,
        "UUID": .uuid, "URI": .uri, "Transformable": .transformable,
    ]

    /// Swift types for Objective-C value classes a transformable attribute names.
    static let bridgedClasses: [String: String] = [
        "NSString": "String", "NSNumber": "Double", "NSData": "Data", "NSDate": "Date", "NSURL": "URL",
        "NSUUID": "UUID", "NSDecimalNumber": "Decimal",
    ]

    /// Objective-C collection classes: imported as a Swift collection of strings, with a warning to name the element type.
    static let collectionClasses: [String: String] = [
        "NSArray": "[String]", "NSMutableArray": "[String]", "NSDictionary": "[String: String]",
        "NSMutableDictionary": "[String: String]", "NSSet": "Set<String>", "NSMutableSet": "Set<String>",
        // AttributedString is not Codable in Foundation on Linux: the text is kept, its attributes are not.
        "NSAttributedString": "String", "NSMutableAttributedString": "String",
    ]

    /// Transformers that mean "archive with NSCoding": modelgen's default (Codable) takes their place.
    static let archivingTransformers: Set<String> = [
        "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer", "NSKeyedUnarchiveFromData",
        "NSUnarchiveFromData", "NSSecureUnarchiveFromDataTransformerName",
    ]

    /// The Swift types the importer itself may write as `swiftType` (no user type needed for them).
    public static let foundationTypes: Set<String> = Set(bridgedClasses.values).union(collectionClasses.values).union(["Data"])

    private let options: Options
    private let path: String
    private var diagnostics: [Diagnostic] = []
    private var unscalarCount = 0
    private var unscalarFirst: SourceLocation?
    private var droppedIndexNames = 0
    private var reportedUnknown: Set<String> = []
    /// Properties renamed because ModelgenRuntime reserves their names: entity → old name → new name.
    private var renames: [String: [String: String]] = [:]
    /// Each entity's parent, to find inherited (renamed) property names.
    private var parents: [String: String] = [:]

    private init(path: String, options: Options) {
        self.path = path
        self.options = options
    }

    /// Imports the `contents` XML at `path` (shown in diagnostics as `path`).
    public static func importModel(data: Data, path: String, defaultName: String, options: Options = Options()) -> Result {
        switch XMLTreeReader.read(data, path: path) {
        case .failure(let diagnostic):
            return Result(document: nil, diagnostics: [diagnostic])
        case .success(let root):
            var importer = XcodeModelImporter(path: path, options: options)
            let document = importer.model(root, name: options.modelName ?? defaultName)
            return Result(document: document, diagnostics: importer.diagnostics)
        }
    }

    // MARK: Diagnostics

    private mutating func warning(_ id: DiagnosticID, _ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.warning, id, message, at: location))
    }

    private mutating func error(_ id: DiagnosticID, _ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.error, id, message, at: location))
    }

    private mutating func note(_ id: DiagnosticID, _ message: String, at location: SourceLocation) {
        diagnostics.append(Diagnostic(.note, id, message, at: location))
    }

    /// XML attributes the importer does not know: kept in userInfo, reported once per name.
    private mutating func keepUnknown(_ element: XMLTreeElement, known: Set<String>, in userInfo: inout YAMLMapping) {
        for name in element.attributes.keys.sorted() where !known.contains(name) {
            userInfo.append("coreData.\(name)", text: element[name] ?? "")
            if !Self.keptInUserInfo.contains(name), reportedUnknown.insert("\(element.name).\(name)").inserted {
                warning(.notImported, "<\(element.name)> has '\(name)', which modelgen does not know; kept in userInfo as 'coreData.\(name)'",
                        at: element.location(of: name))
            }
        }
    }

    /// Core Data settings with no place in a model file that are kept in userInfo (`coreData.<name>`) without a warning:
    /// they matter to Core Data features modelgen does not have (Spotlight, CloudKit, version hashes).
    static let keptInUserInfo: Set<String> = [
        "spotlightIndexingEnabled", "preserveAfterDeletion", "allowsCloudEncryption", "elementID",
        "storedInTruthFile", "indexedBySpotlight", "isTransient",
    ]

    private mutating func reportUnknownChildren(_ element: XMLTreeElement, known: Set<String>) {
        for child in element.children where !known.contains(child.name) {
            warning(.notImported, "unknown element <\(child.name)> in <\(element.name)> is not imported", at: child.location)
        }
    }

    // MARK: Model

    private mutating func model(_ root: XMLTreeElement, name: String) -> YAMLDocument? {
        guard root.name == "model" else {
            error(.notAnXcodeModel, "not a Core Data model: the root element is <\(root.name)>, expected <model>", at: root.location)
            return nil
        }
        reportUnknownChildren(root, known: ["entity", "fetchRequest", "configuration", "elements", "composite"])
        if let identifier = root["userDefinedModelVersionIdentifier"], !identifier.isEmpty {
            warning(.notImported, "the model version identifier '\(identifier)' has no place in a model file and is not imported",
                    at: root.location(of: "userDefinedModelVersionIdentifier"))
        }

        let entityElements = root.children(named: "entity")
        planRenames(entityElements)
        let modes = entityElements.map { codegen(of: $0) }
        let defaultMode = CodegenMode.allCases.max { a, b in
            let (ca, cb) = (modes.filter { $0 == a }.count, modes.filter { $0 == b }.count)
            return ca != cb ? ca < cb : (a != .class && b == .class)
        } ?? .class
        let manualCount = entityElements.filter { $0["codeGenerationType"] == nil }.count
        if manualCount > 0, options.manualCodegen == .none {
            note(.importAdjusted, "\(manualCount) of \(entityElements.count) entities use Xcode's Manual/None codegen and are imported as 'codegen: none' (you write their classes against ModelgenRuntime); import with --manual-codegen class to have modelgen generate them",
                 at: root.location)
        }

        var top = YAMLMapping(spacesBlocks: true)
        top.append("model", token: name, origin: root.location)
        if defaultMode != .class {
            top.append("options", .mapping(YAMLMapping([.init("codegen", .scalar(.token(defaultMode.rawValue)))])))
        }
        var composites = YAMLMapping(spacesBlocks: true)
        for element in root.children(named: "composite") {
            guard let compositeName = element["name"] else {
                error(.cannotImport, "a composite without a name", at: element.location)
                continue
            }
            composites.append(compositeName, composite(element, name: compositeName), origin: element.location)
        }
        if !composites.isEmpty { top.append("composites", .mapping(composites)) }
        var entities = YAMLMapping(spacesBlocks: true)
        for (element, mode) in zip(entityElements, modes) {
            guard let entityName = element["name"] else {
                error(.cannotImport, "an entity without a name", at: element.location)
                continue
            }
            entities.append(entityName, .mapping(entity(element, mode: mode == defaultMode ? nil : mode)), origin: element.location)
        }
        top.append("entities", .mapping(entities), origin: entityElements.first?.location)

        var templates = YAMLMapping(spacesBlocks: true)
        let templateElements = root.children(named: "fetchRequest")
        // Generated function names taken: the templates' own names where they can be one.
        var functionNames = Set(templateElements.compactMap { $0["name"] }.filter { SwiftNames.canNameFetchFunction($0) })
        for element in templateElements {
            if let (name, value) = fetchRequest(element, functionNames: &functionNames) { templates.append(name, value, origin: element.location) }
        }
        if !templates.isEmpty { top.append("fetchRequests", .mapping(templates)) }

        var configurations = YAMLMapping()
        for element in root.children(named: "configuration") {
            guard let configurationName = element["name"] else { continue }
            keepNothing(element, known: ["name"], what: "configuration '\(configurationName)'")
            let members = element.children(named: "memberEntity").compactMap { $0["name"] }
            configurations.append(configurationName, .sequence(.of(members.map { .token($0) })), origin: element.location)
        }
        if !configurations.isEmpty { top.append("configurations", .mapping(configurations)) }

        if unscalarCount > 0, let first = unscalarFirst {
            note(.importAdjusted, "usesScalarValueType=\"NO\" on \(unscalarCount) attribute(s) is not kept: generated properties always have Swift value types (Int16, Bool, Date…), optional where the model says optional",
                 at: first)
        }
        if droppedIndexNames > 0 {
            note(.importAdjusted, "the names of \(droppedIndexNames) fetch index(es) are not kept: a model file lists indexed properties and the SQLite store names its indexes",
                 at: root.location)
        }
        return YAMLDocument(root: top)
    }

    /// Reports every attribute of an element that has no place in the format (elements without userInfo).
    private mutating func keepNothing(_ element: XMLTreeElement, known: Set<String>, what: String) {
        for name in element.attributes.keys.sorted() where !known.contains(name) {
            warning(.notImported, "\(what): '\(name)=\"\(element[name] ?? "")\"' has no place in a model file and is not imported",
                    at: element.location(of: name))
        }
    }

    private func codegen(of element: XMLTreeElement) -> CodegenMode {
        switch element["codeGenerationType"] {
        case "class": return .class
        case "category": return .extension
        default: return options.manualCodegen
        }
    }

    /// `LoopKit.Reservoir`, `.Reservoir` → `Reservoir`; `NSManagedObject` → nil (no class of its own).
    static func className(_ represented: String?) -> String? {
        guard let represented, !represented.isEmpty, represented != "NSManagedObject" else { return nil }
        return represented.split(separator: ".").last.map(String.init)
    }

    // MARK: Entities

    private mutating func entity(_ element: XMLTreeElement, mode: CodegenMode?) -> YAMLMapping {
        let entityName = element["name"] ?? ""
        var entity = YAMLMapping()
        var userInfo = self.userInfo(element)
        keepUnknown(element, known: ["name", "representedClassName", "parentEntity", "isAbstract", "codeGenerationType", "syncable", "elementID",
                                     "versionHashModifier"],
                    in: &userInfo)
        reportUnknownChildren(element, known: ["attribute", "relationship", "fetchedProperty", "userInfo", "fetchIndex",
                                               "compoundIndexes", "uniquenessConstraints"])
        if let parent = element["parentEntity"] { entity.append("parent", token: parent, origin: element.location(of: "parentEntity")) }
        if element.flag("isAbstract") { entity.append("abstract", token: "true", origin: element.location(of: "isAbstract")) }
        if let value = element["codeGenerationType"], !["class", "category"].contains(value) {
            warning(.importAdjusted, "unknown codeGenerationType '\(value)'; imported as Manual/None", at: element.location(of: "codeGenerationType"))
        }
        if let represented = element["representedClassName"], let className = Self.className(represented), className != entityName {
            entity.append("class", token: className, origin: element.location(of: "representedClassName"))
        }
        if let mode { entity.append("codegen", token: mode.rawValue, origin: element.location(of: "codeGenerationType")) }
        // Core Data's renaming identifier: the name earlier versions gave the entity.
        if let elementID = element["elementID"], !elementID.isEmpty {
            entity.append("renamingIdentifier", text: elementID, origin: element.location(of: "elementID"))
        }
        if let modifier = element["versionHashModifier"], !modifier.isEmpty {
            entity.append("versionHashModifier", text: modifier, origin: element.location(of: "versionHashModifier"))
        }

        var indexes: [[String]] = []
        var attributes = YAMLMapping()
        for child in element.children(named: "attribute") {
            guard let name = child["name"] else { error(.cannotImport, "an attribute without a name", at: child.location); continue }
            checkName(name, of: entityName, at: child.location, isBool: child["attributeType"] == "Boolean")
            let imported = importedName(name, in: entityName)
            if let value = attribute(child, name: name, entity: entityName, renamedFrom: imported == name ? nil : name) {
                attributes.append(imported, value, origin: child.location)
            }
            if child.flag("indexed") { indexes.append([imported]) }
        }
        if !attributes.isEmpty { entity.append("attributes", .mapping(attributes)) }

        var relationships = YAMLMapping()
        for child in element.children(named: "relationship") {
            guard let name = child["name"] else { error(.cannotImport, "a relationship without a name", at: child.location); continue }
            checkName(name, of: entityName, at: child.location, isBool: false)
            let imported = importedName(name, in: entityName)
            relationships.append(imported, .mapping(relationship(child, name: name, entity: entityName, renamed: imported != name)),
                                 origin: child.location)
        }
        if !relationships.isEmpty { entity.append("relationships", .mapping(relationships)) }

        var fetched = YAMLMapping()
        for child in element.children(named: "fetchedProperty") {
            guard let name = child["name"] else { error(.cannotImport, "a fetched property without a name", at: child.location); continue }
            if let value = fetchedProperty(child, name: name, entity: entityName) {
                fetched.append(importedName(name, in: entityName), value, origin: child.location)
            }
        }
        if !fetched.isEmpty { entity.append("fetchedProperties", .mapping(fetched)) }

        let unique = element.children(named: "uniquenessConstraints").flatMap { $0.children(named: "uniquenessConstraint") }
            .map { $0.children(named: "constraint").compactMap { $0["value"].map { importedName($0, in: entityName) } } }
            .filter { !$0.isEmpty }
        if !unique.isEmpty { entity.append("unique", .sequence(Self.lists(unique)), origin: element.children(named: "uniquenessConstraints").first?.location) }

        for index in element.children(named: "fetchIndex") {
            var properties: [String] = []
            for part in index.children(named: "fetchIndexElement") {
                guard let property = part["property"] else {
                    warning(.notImported, "fetch index '\(index["name"] ?? "")' uses an expression, which a model file cannot express; the index is not imported",
                            at: part.location)
                    properties = []
                    break
                }
                if let type = part["type"], type != "Binary" {
                    warning(.importAdjusted, "fetch index element '\(property)' of type \(type) is imported as an ordinary (binary) index", at: part.location(of: "type"))
                }
                if let order = part["order"], order != "ascending" {
                    warning(.importAdjusted, "fetch index element '\(property)' is \(order) in Core Data; a model file's indexes are ascending (SQLite reads an index both ways)",
                            at: part.location(of: "order"))
                }
                properties.append(importedName(property, in: entityName))
            }
            if !properties.isEmpty {
                indexes.append(properties)
                if index["name"] != nil { droppedIndexNames += 1 }
            }
        }
        for compound in element.children(named: "compoundIndexes").flatMap({ $0.children(named: "compoundIndex") }) {
            let properties = compound.children(named: "index").compactMap { $0["value"].map { importedName($0, in: entityName) } }
            if !properties.isEmpty { indexes.append(properties) }
        }
        var seen: Set<[String]> = []
        indexes = indexes.filter { seen.insert($0).inserted }
        if !indexes.isEmpty { entity.append("indexes", .sequence(Self.lists(indexes))) }
        restore(["doc"], from: element, into: &entity)
        if !userInfo.isEmpty { entity.append("userInfo", .mapping(userInfo)) }
        return entity
    }

    private static func lists(_ lists: [[String]]) -> YAMLSequence {
        YAMLSequence(lists.map { .init(.sequence(.of($0.map { .token($0) }))) })
    }

    /// Names ModelgenRuntime reserves get a new name (`value` → `storedValue`), the old one kept as renaming identifier.
    private mutating func planRenames(_ entities: [XMLTreeElement]) {
        for entity in entities {
            guard let entityName = entity["name"] else { continue }
            if let parent = entity["parentEntity"] { parents[entityName] = parent }
            let properties = entity.children.filter { ["attribute", "relationship", "fetchedProperty"].contains($0.name) }
            let names = Set(properties.compactMap { $0["name"] })
            for property in properties {
                guard let name = property["name"], SwiftNames.reservedPropertyNames.contains(name) else { continue }
                var renamed = "stored" + name.prefix(1).uppercased() + name.dropFirst()
                var counter = 2
                while names.contains(renamed) { renamed = "stored\(name.prefix(1).uppercased() + name.dropFirst())\(counter)"; counter += 1 }
                renames[entityName, default: [:]][name] = renamed
                warning(.importAdjusted, "'\(entityName).\(name)' collides with ManagedObject's member '\(name)'; imported as '\(renamed)' (renaming identifier '\(name)'): rename it in the model file if you prefer another name",
                        at: property.location(of: "name"))
            }
        }
    }

    /// The imported name of a property of `entity` (or an ancestor).
    private func importedName(_ name: String, in entity: String) -> String {
        var current: String? = entity
        var visited: Set<String> = []
        while let entityName = current, visited.insert(entityName).inserted {
            if let renamed = renames[entityName]?[name] { return renamed }
            current = parents[entityName]
        }
        return name
    }

    private mutating func checkName(_ name: String, of entity: String, at location: SourceLocation, isBool: Bool) {
        guard Self.coreDataMemberNames.contains(name) else { return }
        let suggestion = name + (isBool ? "Flag" : "Value")
        warning(.importAdjusted, "'\(entity).\(name)' collides with NSManagedObject's '\(name)' (is\(name.prefix(1).uppercased() + name.dropFirst())) in Core Data; ModelgenRuntime accepts it, but consider renaming it to '\(suggestion)' (renaming identifier '\(name)') before using the model with Core Data again",
                at: location)
    }

    /// The element's userInfo entries, without the `modelgen.<key>` entries an export wrote (see `modelgenFields`).
    /// An entry whose own key begins with `coreData.` (or `userInfo.`) is kept as `userInfo.<key>`: the
    /// `coreData.` names are the import's for XML attributes, which an export writes back as attributes,
    /// so such an entry would come back as an attribute (found by fuzz-xml: a `coreData.mogenerator.readonly`
    /// entry did; a `coreData.optional` entry would have made an attribute required).
    private mutating func userInfo(_ element: XMLTreeElement) -> YAMLMapping {
        var mapping = YAMLMapping(layout: .flowIfFits)
        for info in element.children(named: "userInfo") {
            for entry in info.children(named: "entry") {
                guard var key = entry["key"], !key.hasPrefix("modelgen.") else { continue }
                if key.hasPrefix("coreData.") || key.hasPrefix("userInfo.") { key = "userInfo." + key }
                mapping.append(key, text: entry["value"] ?? "", origin: entry.location)
            }
        }
        return mapping
    }

    /// Fields of a model file Core Data has no place for, as `modelgen export` keeps them in userInfo
    /// (`modelgen.doc`, `modelgen.swiftType`, `modelgen.inverse`, `modelgen.sort`).
    private func modelgenFields(_ element: XMLTreeElement) -> [String: (value: String, location: SourceLocation)] {
        var fields: [String: (String, SourceLocation)] = [:]
        for entry in element.children(named: "userInfo").flatMap({ $0.children(named: "entry") }) {
            guard let key = entry["key"], key.hasPrefix("modelgen.") else { continue }
            fields[String(key.dropFirst("modelgen.".count))] = (entry["value"] ?? "", entry.location)
        }
        return fields
    }

    /// Appends the exported `doc` (and other `modelgen.` fields named in `keys`) back as keys of the mapping.
    private func restore(_ keys: [String], from element: XMLTreeElement, into mapping: inout YAMLMapping) {
        let fields = modelgenFields(element)
        for key in keys {
            guard let field = fields[key] else { continue }
            switch key {
            case "sort":
                let parts = field.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                mapping.append(key, .sequence(.of(parts.map { .text($0) })), origin: field.location)
            case "inverse", "swiftType": mapping.append(key, token: field.value, origin: field.location)
            default: mapping.append(key, text: field.value, origin: field.location)
            }
        }
    }

    // MARK: Composites

    /// A `<composite>`: its `<attribute>` fields, under `attributes:`. What a composite's field cannot
    /// be (transient, derived) is reported and left out, as Xcode's editor offers neither for one.
    private mutating func composite(_ element: XMLTreeElement, name: String) -> YAMLValue {
        keepNothing(element, known: ["name"], what: "composite '\(name)'")
        reportUnknownChildren(element, known: ["attribute", "userInfo"])
        var fields = YAMLMapping()
        for child in element.children(named: "attribute") {
            guard let fieldName = child["name"] else { error(.cannotImport, "a composite field without a name", at: child.location); continue }
            guard let value = attribute(child, name: fieldName, entity: name, renamedFrom: nil) else { continue }
            guard case .mapping(var mapping) = value else {
                fields.append(fieldName, value, origin: child.location)
                continue
            }
            let allowed = Set(ModelParser.Keys.compositeField.ordered)
            for entry in mapping.entries where !allowed.contains(entry.key) {
                warning(.notImported, "composite field '\(name).\(fieldName)': '\(entry.key)' has no place on a composite's field and is not imported",
                        at: child.location)
            }
            mapping.entries.removeAll { !allowed.contains($0.key) }
            fields.append(fieldName, .mapping(mapping), origin: child.location)
        }
        var composite = YAMLMapping()
        if !fields.isEmpty { composite.append("attributes", .mapping(fields)) }
        restore(["doc"], from: element, into: &composite)
        return .mapping(composite)
    }

    // MARK: Attributes

    private static let attributeKeys: Set<String> = [
        "name", "optional", "transient", "attributeType", "defaultValueString", "defaultDateTimeInterval", "minValueString",
        "maxValueString", "minDateTimeInterval", "maxDateTimeInterval", "regularExpressionString", "usesScalarValueType",
        "customClassName", "valueTransformerName", "allowsExternalBinaryDataStorage", "derived", "derivationExpression",
        "elementID", "indexed", "syncable", "versionHashModifier",
    ]

    private mutating func attribute(_ element: XMLTreeElement, name: String, entity: String, renamedFrom: String?) -> YAMLValue? {
        let what = "attribute '\(entity).\(name)'"
        let typeName = element["attributeType"] ?? "Undefined"
        if typeName == "Undefined" && !element.flag("transient") {
            // Xcode refuses it too: only a transient attribute may have no type.
            error(.cannotImport, "\(what) has no type (Core Data's Undefined), which only a transient attribute may have: choose a type in Xcode, or in the imported file",
                  at: element.location)
            return nil
        }
        if typeName == "Composite" {
            guard let composite = element["composite"], !composite.isEmpty else {
                error(.cannotImport, "\(what) is a composite attribute that names no composite", at: element.location(of: "attributeType"))
                return nil
            }
            return compositeAttribute(element, composite: composite)
        }
        guard let type = typeName == "Undefined" ? .undefined : Self.attributeTypes[typeName] else {
            error(.cannotImport, "\(what) has the Core Data type '\(typeName)', which a model file cannot express", at: element.location(of: "attributeType"))
            return nil
        }
        var mapping = YAMLMapping(layout: .flowIfFits)
        var userInfo = self.userInfo(element)
        keepUnknown(element, known: Self.attributeKeys, in: &userInfo)
        mapping.append("type", token: type.rawValue, origin: element.location(of: "attributeType"))
        if element.flag("optional") { mapping.append("optional", token: "true") }

        if type == .date, let interval = element["defaultDateTimeInterval"] {
            if let iso = Self.isoDate(interval) {
                mapping.append("default", text: iso, origin: element.location(of: "defaultDateTimeInterval"))
            } else {
                error(.cannotImport, "\(what): \(Self.intervalProblem("defaultDateTimeInterval", interval))", at: element.location(of: "defaultDateTimeInterval"))
            }
        } else if let text = element["defaultValueString"] {
            if let value = defaultValue(text, type: type, what: what, at: element.location(of: "defaultValueString")) {
                mapping.append("default", value, origin: element.location(of: "defaultValueString"))
            }
        }
        for (key, xmlName, dateName) in [("min", "minValueString", "minDateTimeInterval"), ("max", "maxValueString", "maxDateTimeInterval")] {
            if type == .date, let interval = element[dateName] {
                if let iso = Self.isoDate(interval) {
                    mapping.append(key, text: iso, origin: element.location(of: dateName))
                } else {
                    error(.cannotImport, "\(what): \(Self.intervalProblem(dateName, interval))", at: element.location(of: dateName))
                }
            } else if let text = element[xmlName], !text.isEmpty {
                let written = type.isInteger || type.boundsAreLengths ? Self.plainWholeNumber(text) : text
                mapping.append(key, .scalar(type == .date ? .text(written) : .token(written)), origin: element.location(of: xmlName))
            }
        }
        if let regex = element["regularExpressionString"], !regex.isEmpty {
            mapping.append("regex", text: regex, origin: element.location(of: "regularExpressionString"))
        }

        let customClass = element["customClassName"].flatMap { $0.isEmpty ? nil : $0 }
        let transformerName = element["valueTransformerName"].flatMap { $0.isEmpty ? nil : $0 }
        if type == .undefined {
            // The export of an undefined attribute names its Swift type as customClassName; Xcode's has none.
            if let customClass, let name = Self.className(customClass) {
                mapping.append("swiftType", text: Self.bridgedClasses[name] ?? name, origin: element.location(of: "customClassName"))
            } else {
                warning(.importAdjusted, "\(what) has no type (Core Data's Undefined): it holds values code sets and is never stored; imported as 'type: undefined' with swiftType 'Data': set swiftType to the type your code keeps in it",
                        at: element.location)
                mapping.append("swiftType", text: "Data", origin: element.location)
            }
        } else if type == .transformable {
            mapping.append("swiftType", text: swiftType(forClass: customClass, what: what, element: element),
                           origin: element.location(of: customClass == nil ? "attributeType" : "customClassName"))
            if let transformerName {
                if Self.archivingTransformers.contains(transformerName) {
                    note(.importAdjusted, "\(what) uses \(transformerName) (NSCoding archives); modelgen stores the value as Codable data instead, so data Core Data wrote is not read back",
                         at: element.location(of: "valueTransformerName"))
                } else if let transformer = Self.className(transformerName) {
                    mapping.append("transformer", token: transformer, origin: element.location(of: "valueTransformerName"))
                }
            }
        } else {
            if let customClass { userInfo.append("coreData.customClassName", text: customClass) }
            if let transformerName { userInfo.append("coreData.valueTransformerName", text: transformerName) }
        }
        if element.flag("allowsExternalBinaryDataStorage") {
            if type == .binary {
                mapping.append("externalStorage", token: "true", origin: element.location(of: "allowsExternalBinaryDataStorage"))
            } else {
                userInfo.append("coreData.allowsExternalBinaryDataStorage", token: "YES")
            }
        }
        if element.flag("transient") { mapping.append("transient", token: "true", origin: element.location(of: "transient")) }
        if element.flag("derived") {
            if let expression = element["derivationExpression"], !expression.isEmpty {
                mapping.append("derived", text: expression, origin: element.location(of: "derivationExpression"))
            } else {
                warning(.importAdjusted, "\(what) is marked derived without an expression; imported as an ordinary attribute", at: element.location(of: "derived"))
            }
        }
        if let elementID = element["elementID"], !elementID.isEmpty {
            mapping.append("renamingIdentifier", text: elementID, origin: element.location(of: "elementID"))
        } else if let renamedFrom {
            mapping.append("renamingIdentifier", text: renamedFrom, origin: element.location(of: "name"))
        }
        if let modifier = element["versionHashModifier"], !modifier.isEmpty {
            mapping.append("versionHashModifier", text: modifier, origin: element.location(of: "versionHashModifier"))
        }
        if element["usesScalarValueType"] == "NO" {
            unscalarCount += 1
            if unscalarFirst == nil { unscalarFirst = element.location(of: "usesScalarValueType") }
        }
        restore(["swiftType", "doc"], from: element, into: &mapping)
        if !userInfo.isEmpty { mapping.append("userInfo", .mapping(userInfo)) }

        // The short form when only the type and optionality are left.
        if mapping.entries.allSatisfy({ $0.key == "type" || $0.key == "optional" }) {
            return .scalar(.token(type.rawValue + (element.flag("optional") ? "?" : "")))
        }
        return .mapping(mapping)
    }

    /// An attribute of a composite type: `address: Address` (the composite's name as its type).
    private mutating func compositeAttribute(_ element: XMLTreeElement, composite: String) -> YAMLValue {
        var mapping = YAMLMapping(layout: .flowIfFits)
        var userInfo = self.userInfo(element)
        keepUnknown(element, known: Self.attributeKeys.union(["composite"]), in: &userInfo)
        mapping.append("type", token: composite, origin: element.location(of: "composite"))
        if element.flag("optional") { mapping.append("optional", token: "true") }
        restore(["doc"], from: element, into: &mapping)
        if !userInfo.isEmpty { mapping.append("userInfo", .mapping(userInfo)) }
        if mapping.entries.allSatisfy({ $0.key == "type" || $0.key == "optional" }) {
            return .scalar(.token(composite + (element.flag("optional") ? "?" : "")))
        }
        return .mapping(mapping)
    }

    private mutating func defaultValue(_ text: String, type: AttributeType, what: String, at location: SourceLocation) -> YAMLValue? {
        let numeric: Set<AttributeType> = [.int16, .int32, .int64, .float, .double, .decimal]
        if numeric.contains(type), ["yes", "no", "true", "false"].contains(text.lowercased()) {
            // Xcode accepts a boolean on a numeric attribute (left over from a type change); Core Data reads 1 or 0.
            let number = ["yes", "true"].contains(text.lowercased()) ? "1" : "0"
            warning(.importAdjusted, "\(what): the default '\(text)' is a boolean on a \(type.rawValue) attribute; imported as \(number), as Core Data reads it", at: location)
            return .scalar(.token(number))
        }
        switch type {
        case .bool:
            switch text.lowercased() {
            case "yes", "true": return .scalar(.token("true"))
            case "no", "false": return .scalar(.token("false"))
            case _ where Double(text) != nil: return .scalar(.token(Double(text) != 0 ? "true" : "false"))
            default:
                error(.cannotImport, "\(what): the default '\(text)' is not YES or NO", at: location)
                return nil
            }
        case .int16, .int32, .int64:
            // Xcode writes `0.0` for some integer defaults: the same whole number.
            if Int64(text) == nil, let number = Double(text), number == number.rounded(), abs(number) < 9e15 {
                return .scalar(.token(String(Int64(number))))
            }
            return .scalar(.token(Int64(text).map(String.init) ?? text))
        case .float, .double, .decimal:
            return .scalar(.token(text))
        case .string, .uuid, .uri:
            return .scalar(.text(text))
        case .date:
            if let date = Self.coreDataDate(text) { return .scalar(.text(date)) }
            warning(.notImported, "\(what): the default date '\(text)' is not in a form modelgen reads; not imported", at: location)
            return nil
        case .binary, .transformable, .undefined, .composite:
            warning(.notImported, "\(what): a default for a \(type.rawValue) attribute has no place in a model file; not imported", at: location)
            return nil
        }
    }

    private mutating func swiftType(forClass customClass: String?, what: String, element: XMLTreeElement) -> String {
        guard let customClass, let name = Self.className(customClass) else {
            warning(.importAdjusted, "\(what) names no value class; imported with swiftType 'Data': set swiftType to the Codable type it holds",
                    at: element.location)
            return "Data"
        }
        if let bridged = Self.bridgedClasses[name] { return bridged }
        if let collection = Self.collectionClasses[name] {
            warning(.importAdjusted, name.hasSuffix("AttributedString")
                    ? "\(what) holds an \(name); imported as 'String' (plain text, attributes not kept): change swiftType to a Codable type that keeps what you need"
                    : "\(what) holds an \(name), whose element type the model does not say; imported as '\(collection)': change swiftType to the type it holds",
                    at: element.location(of: "customClassName"))
            return collection
        }
        return name
    }

    /// A whole number in its plain form (`060` → `60`, `+3` → `3`), as export writes it back, so importing
    /// an export gives back the same file (fuzz-xml found bounds, fetch limits and relationship counts
    /// written with leading zeros); other text as it is (the validator reports it).
    static func plainWholeNumber(_ text: String) -> String {
        Int64(text).map(String.init) ?? text
    }

    /// Seconds since 2001-01-01 GMT as an ISO 8601 date-time.
    static func isoDate(_ interval: String) -> String? {
        guard let given = Double(interval), isoDateRange.contains(given) else { return nil }
        // ISO text keeps milliseconds: round to them, and write a fraction only when one remains, so the
        // export of the imported date (its seconds) imports as the same text.
        let seconds = (given * 1000).rounded() / 1000
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        if seconds != seconds.rounded() { formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds] }
        return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// The seconds since 2001 that ISO 8601's four-digit years can write: 0001-01-01T00:00:00Z up to
    /// 10000-01-01 (Foundation's calendar). Past them the formatter writes a wrong year (10^80 seconds
    /// before 2001 came out as year 5,838,270; found by fuzz-xml), so the import refuses them.
    static let isoDateRange = -63_114_076_800.0 ..< 252_423_993_600.0

    /// The error for a date interval `isoDate` cannot write.
    static func intervalProblem(_ name: String, _ interval: String) -> String {
        guard let seconds = Double(interval), seconds.isFinite else { return "\(name) '\(interval)' is not a number of seconds" }
        return "\(name) '\(interval)' is outside the years 1 to 9999 a model file can write"
    }

    /// Old models' `defaultValueString` for dates (`2010-01-01 00:00:00 +0000`), as ISO 8601.
    static func coreDataDate(_ text: String) -> String? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd HH:mm:ss ZZZZZ", "yyyy-MM-dd HH:mm:ss Z", "yyyy-MM-dd'T'HH:mm:ssZZZZZ"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return isoDate(String(date.timeIntervalSinceReferenceDate)) }
        }
        return nil
    }

    // MARK: Relationships

    private static let relationshipKeys: Set<String> = [
        "name", "optional", "toMany", "ordered", "minCount", "maxCount", "deletionRule", "destinationEntity",
        "inverseName", "inverseEntity", "transient", "syncable", "versionHashModifier",
    ]

    private mutating func relationship(_ element: XMLTreeElement, name: String, entity: String, renamed: Bool) -> YAMLMapping {
        let what = "relationship '\(entity).\(name)'"
        var mapping = YAMLMapping(layout: .flowIfFits)
        var userInfo = self.userInfo(element)
        var known = Self.relationshipKeys
        known.insert("elementID")   // Core Data's renaming identifier: `renamingIdentifier` (below)
        keepUnknown(element, known: known, in: &userInfo)
        if let destination = element["destinationEntity"] {
            mapping.append("destination", token: destination, origin: element.location(of: "destinationEntity"))
        } else {
            error(.cannotImport, "\(what) has no destination entity", at: element.location)
        }
        let toMany = element.flag("toMany")
        if toMany { mapping.append("toMany", token: "true", origin: element.location(of: "toMany")) }
        if element.flag("ordered") {
            if toMany { mapping.append("ordered", token: "true", origin: element.location(of: "ordered")) } else {
                warning(.notImported, "\(what) is to-one; 'ordered' applies to to-many relationships and is not imported", at: element.location(of: "ordered"))
            }
        }
        if let inverse = element["inverseName"], !inverse.isEmpty {
            let owner = element["inverseEntity"] ?? element["destinationEntity"] ?? ""
            mapping.append("inverse", token: importedName(inverse, in: owner), origin: element.location(of: "inverseName"))
        }
        switch element["deletionRule"] {
        case nil, "Nullify": break
        case "Cascade": mapping.append("deleteRule", token: "cascade", origin: element.location(of: "deletionRule"))
        case "Deny": mapping.append("deleteRule", token: "deny", origin: element.location(of: "deletionRule"))
        case "No Action": mapping.append("deleteRule", token: "noAction", origin: element.location(of: "deletionRule"))
        case let other?:
            error(.cannotImport, "\(what): unknown deletion rule '\(other)'", at: element.location(of: "deletionRule"))
        }
        if !element.flag("optional") { mapping.append("optional", token: "false", origin: element.location) }
        if toMany {
            // Counts in their plain form (`005` → `5`, found by fuzz-xml); 0 is Core Data's "none".
            for (xmlName, key) in [("minCount", "min"), ("maxCount", "max")] {
                guard let given = element[xmlName].map(Self.plainWholeNumber), given != "0" else { continue }
                mapping.append(key, token: given, origin: element.location(of: xmlName))
            }
        } else if let max = element["maxCount"], max != "1" {
            warning(.importAdjusted, "\(what) is to-one with maxCount \(max); imported as to-one", at: element.location(of: "maxCount"))
        }
        if element.flag("transient") { mapping.append("transient", token: "true", origin: element.location(of: "transient")) }
        if let elementID = element["elementID"], !elementID.isEmpty {
            mapping.append("renamingIdentifier", text: elementID, origin: element.location(of: "elementID"))
        } else if renamed {
            mapping.append("renamingIdentifier", text: element["name"] ?? name, origin: element.location(of: "name"))
        }
        if let modifier = element["versionHashModifier"], !modifier.isEmpty {
            mapping.append("versionHashModifier", text: modifier, origin: element.location(of: "versionHashModifier"))
        }
        restore(["inverse", "doc"], from: element, into: &mapping)
        if !userInfo.isEmpty { mapping.append("userInfo", .mapping(userInfo)) }
        return mapping
    }

    // MARK: Fetching

    private mutating func fetchedProperty(_ element: XMLTreeElement, name: String, entity: String) -> YAMLValue? {
        let what = "fetched property '\(entity).\(name)'"
        guard let request = element.children(named: "fetchRequest").first, let destination = request["entity"] else {
            error(.cannotImport, "\(what) has no fetch request naming its destination", at: element.location)
            return nil
        }
        var mapping = YAMLMapping(layout: .flowIfFits)
        var userInfo = self.userInfo(element)
        keepUnknown(element, known: ["name", "optional", "syncable"], in: &userInfo)
        keepNothing(request, known: ["name", "entity", "predicateString"], what: what)
        mapping.append("destination", token: destination, origin: request.location(of: "entity"))
        if let predicate = request["predicateString"], !predicate.isEmpty {
            mapping.append("predicate", text: predicate, origin: request.location(of: "predicateString"))
        } else {
            // Core Data fetches every object of the destination; a model file says so explicitly.
            warning(.importAdjusted, "\(what) has no predicate: Core Data fetches every \(destination); imported as 'predicate: TRUEPREDICATE'", at: request.location)
            mapping.append("predicate", token: "TRUEPREDICATE", origin: request.location)
        }
        restore(["sort", "doc"], from: element, into: &mapping)
        if !userInfo.isEmpty { mapping.append("userInfo", .mapping(userInfo)) }
        return .mapping(mapping)
    }

    /// Fetch request flags a template keeps the Core Data default of; anything else is reported.
    private static let templateDefaults: [String: String] = [
        "resultType": "0", "includeSubentities": "YES", "includesSubentities": "YES", "includePropertyValues": "YES",
        "includesPendingChanges": "YES", "returnObjectsAsFaults": "YES", "returnDistinctResults": "NO",
        "returnsDistinctResults": "NO", "fetchBatchSize": "0",
    ]

    /// A lower-camel identifier made of a name's words: `PopularBooks` → `popularBooks`, `by author` → `byAuthor`.
    static func lowerCamelIdentifier(_ name: String) -> String {
        let words = name.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
        var result = words.enumerated().map { index, word in
            (index == 0 ? word.prefix(1).lowercased() : word.prefix(1).uppercased()) + word.dropFirst()
        }.joined()
        if result.first.map({ !$0.isLetter && $0 != "_" }) ?? true { result = "template" + result.prefix(1).uppercased() + result.dropFirst() }
        return result
    }

    private mutating func fetchRequest(_ element: XMLTreeElement, functionNames: inout Set<String>) -> (String, YAMLValue)? {
        guard let name = element["name"], let entity = element["entity"] else {
            error(.cannotImport, "a fetch request needs a name and an entity", at: element.location)
            return nil
        }
        var mapping = YAMLMapping(layout: .block)
        // The template keeps Core Data's name (for fetchRequest(fromTemplate:)); a name that cannot be the
        // generated function's gets a swiftName, as a colliding attribute gets a new name.
        var swiftName: String?
        if !SwiftNames.canNameFetchFunction(name) {
            let camel = Self.lowerCamelIdentifier(name)
            let candidate = SwiftNames.canNameFetchFunction(camel) ? camel : camel + "Template"
            var unique = candidate, counter = 2
            while functionNames.contains(unique) || !SwiftNames.canNameFetchFunction(unique) { unique = "\(candidate)\(counter)"; counter += 1 }
            functionNames.insert(unique)
            swiftName = unique
            let reason = camel == name ? "names a member of the generated model type"
                : SwiftNames.canNameFetchFunction(camel) ? "is no lower-camel Swift identifier"
                : "is no lower-camel Swift identifier, and '\(camel)' names a member of the generated model type"
            warning(.importAdjusted, "fetch request '\(name)' \(reason); its generated function is '\(unique)' (swiftName), and the template keeps the name '\(name)' for fetchRequest(fromTemplate:)",
                    at: element.location(of: "name"))
        }
        mapping.append("entity", token: entity, origin: element.location(of: "entity"))
        if let predicate = element["predicateString"], !predicate.isEmpty {
            mapping.append("predicate", text: predicate, origin: element.location(of: "predicateString"))
        }
        // Counts in their plain form (`03` → `3`), as export writes them (found by fuzz-xml); 0 is Core Data's "none".
        for (xmlName, key) in [("fetchLimit", "limit"), ("fetchOffset", "offset")] {
            guard let count = element[xmlName].map(Self.plainWholeNumber) else { continue }
            if count != "0" { mapping.append(key, token: count, origin: element.location(of: xmlName)) }
        }
        if let swiftName { mapping.append("swiftName", token: swiftName, origin: element.location(of: "name")) }
        for key in element.attributes.keys.sorted() where !["name", "entity", "predicateString", "fetchLimit", "fetchOffset"].contains(key) {
            let value = element[key] ?? ""
            if let standard = Self.templateDefaults[key] {
                if value != standard {
                    warning(.notImported, "fetch request '\(name)': \(key)=\"\(value)\" has no place in a model file (templates return objects, include subentities and pending changes); not imported",
                            at: element.location(of: key))
                }
            } else {
                warning(.notImported, "fetch request '\(name)': unknown attribute '\(key)' is not imported", at: element.location(of: key))
            }
        }
        return (name, .mapping(mapping))
    }
}
