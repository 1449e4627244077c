import Foundation

/// Writes a model as a Core Data model bundle's `contents` XML (`modelgen export --xcdatamodel`), as Xcode
/// writes it, so the same model works with Core Data on Apple platforms.
///
/// What Core Data has no field for travels in `userInfo` under `modelgen.<key>` (a non-transformable
/// `swiftType`, `doc`, `inverse: none`, fetched-property sorts), and `import` reads it back; `coreData.<name>`
/// entries an import kept become XML attributes again. Model options and template sorts and docs have no
/// place at all: each is reported as a warning.
public enum XcodeModelExporter {
    /// The XML and the warnings about what could not be written.
    public struct Result: Sendable {
        /// The `contents` file of the `.xcdatamodel`.
        public var xml: String
        /// What the export could not carry over (warnings).
        public var diagnostics: [Diagnostic]
    }

    /// Core Data's spelling of each attribute type.
    static let typeNames: [AttributeType: String] = Dictionary(
        uniqueKeysWithValues: XcodeModelImporter.attributeTypes.map { ($0.value, $0.key) })

    /// The `contents` XML of a parsed (and valid) model.
    public static func export(_ model: ObjectModel) -> Result {
        var writer = Writer()
        var diagnostics: [Diagnostic] = []
        func warn(_ message: String, at location: SourceLocation) {
            diagnostics.append(Diagnostic(.warning, .notExported, message, at: location))
        }
        if let access = model.options.access {
            warn("options.access has no place in a Core Data model and is not exported", at: access.location)
        }
        if let first = model.options.imports.first {
            warn("options.imports has no place in a Core Data model and is not exported", at: first.location)
        }
        let defaultCodegen = model.options.codegen?.value ?? .class

        writer.line(0, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>")
        writer.open(0, "model", [("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                                 ("lastSavedToolsVersion", "23605"), ("systemVersion", "24A335"),
                                 ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
                                 ("userDefinedModelVersionIdentifier", "")])
        for entity in model.entities {
            var attributes: [(String, String)] = [("name", entity.name.value), ("representedClassName", entity.swiftClassName)]
            if let parent = entity.parent { attributes.append(("parentEntity", parent.value)) }
            if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
            if let renaming = entity.renamingIdentifier { attributes.append(("elementID", renaming.value)) }
            if let modifier = entity.versionHashModifier { attributes.append(("versionHashModifier", modifier.value)) }
            attributes.append(("syncable", "YES"))
            switch entity.codegen?.value ?? defaultCodegen {
            case .class: attributes.append(("codeGenerationType", "class"))
            case .extension: attributes.append(("codeGenerationType", "category"))
            case .none: break
            }
            let (info, extra) = split(entity.userInfo, modelgen: ["doc": entity.doc])
            attributes += extra
            writer.open(1, "entity", attributes)
            for attribute in entity.attributes { writer.attribute(attribute, depth: 2) }
            for relationship in entity.relationships { writer.relationship(relationship, in: model) }
            for property in entity.fetchedProperties {
                let sort = property.sortDescriptors.map(\.source.text).joined(separator: ", ")
                let (info, extra) = split(property.userInfo, modelgen: ["doc": property.doc, "sort": sort.isEmpty ? nil : sort])
                writer.open(2, "fetchedProperty", [("name", property.name.value), ("optional", "YES")] + extra)
                var request = [("name", "fetchedPropertyFetchRequest"), ("entity", property.destination.value)]
                if let predicate = property.predicate { request.append(("predicateString", predicate.source.text)) }
                writer.empty(3, "fetchRequest", request)
                writer.userInfo(3, info)
                writer.close(2, "fetchedProperty")
            }
            for index in entity.indexes {
                let names = index.names.map(\.value)
                // `address.city` (a composite's field) names the index `byAddressCityIndex`.
                let words = names.flatMap { $0.split(separator: ".") }
                writer.open(2, "fetchIndex", [("name", "by" + words.map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined() + "Index")])
                for name in names { writer.empty(3, "fetchIndexElement", [("property", name), ("type", "Binary"), ("order", "ascending")]) }
                writer.close(2, "fetchIndex")
            }
            if !entity.uniquenessConstraints.isEmpty {
                writer.open(2, "uniquenessConstraints", [])
                for constraint in entity.uniquenessConstraints {
                    writer.open(3, "uniquenessConstraint", [])
                    for name in constraint.names { writer.empty(4, "constraint", [("value", name.value)]) }
                    writer.close(3, "uniquenessConstraint")
                }
                writer.close(2, "uniquenessConstraints")
            }
            writer.userInfo(2, info)
            writer.close(1, "entity")
        }
        // Composites follow the entities, as Xcode writes them: `<composite name>` holding its fields.
        for composite in model.composites {
            let (info, extra) = split([], modelgen: ["doc": composite.doc])
            guard !composite.attributes.isEmpty || !info.isEmpty else {
                writer.empty(1, "composite", [("name", composite.name.value)] + extra)
                continue
            }
            writer.open(1, "composite", [("name", composite.name.value)] + extra)
            for field in composite.attributes { writer.attribute(field, depth: 2) }
            writer.userInfo(2, info)
            writer.close(1, "composite")
        }
        for template in model.fetchRequests {
            var attributes = [("name", template.name.value), ("entity", template.entity.value)]
            if let predicate = template.predicate { attributes.append(("predicateString", predicate.source.text)) }
            if let limit = template.limit { attributes.append(("fetchLimit", String(limit.value))) }
            if let offset = template.offset { attributes.append(("fetchOffset", String(offset.value))) }
            if let sort = template.sortDescriptors.first {
                warn("fetch request '\(template.name.value)': a Core Data fetch request template has no sort descriptors; the sort is not exported",
                     at: sort.source.location)
            }
            if template.doc != nil {
                warn("fetch request '\(template.name.value)': a Core Data fetch request template has no place for 'doc'; not exported",
                     at: template.name.location)
            }
            if template.isAggregate || template.having != nil {
                warn("fetch request '\(template.name.value)': a Core Data fetch request template has no groups, columns or having predicate; exported as a fetch of its objects",
                     at: template.name.location)
            } else if template.isProjection {
                warn("fetch request '\(template.name.value)': a Core Data fetch request template has no properties to fetch; exported as a fetch of its objects",
                     at: template.name.location)
            }
            writer.empty(1, "fetchRequest", attributes)
        }
        for configuration in model.configurations {
            writer.open(1, "configuration", [("name", configuration.name.value)])
            for entity in configuration.entities { writer.empty(2, "memberEntity", [("name", entity.value)]) }
            writer.close(1, "configuration")
        }
        writer.close(0, "model")
        return Result(xml: writer.text, diagnostics: diagnostics)
    }

    /// userInfo entries for `<userInfo>`, and XML attributes from `coreData.<name>` entries; modelgen-only
    /// fields are added as `modelgen.<key>` entries; `userInfo.<key>` (an import's escape for an entry whose
    /// own key begins with `coreData.` or `userInfo.`) is written as the entry `<key>`.
    static func split(_ userInfo: [UserInfoEntry], modelgen: KeyValuePairs<String, String?>) -> ([(String, String)], [(String, String)]) {
        var info: [(String, String)] = []
        var attributes: [(String, String)] = []
        for entry in userInfo {
            if entry.key.value.hasPrefix("userInfo.") {
                info.append((String(entry.key.value.dropFirst("userInfo.".count)), entry.value.value))
            } else if entry.key.value.hasPrefix("coreData.") {
                attributes.append((String(entry.key.value.dropFirst("coreData.".count)), entry.value.value))
            } else {
                info.append((entry.key.value, entry.value.value))
            }
        }
        for (key, value) in modelgen { if let value { info.append(("modelgen.\(key)", value)) } }
        return (info, attributes)
    }

    /// Seconds since 2001-01-01 GMT, printed as Xcode prints them.
    static func interval(_ date: Date) -> String {
        let seconds = date.timeIntervalSinceReferenceDate
        return seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    /// XML text with indentation, as Xcode lays it out.
    struct Writer {
        var text = ""

        mutating func line(_ depth: Int, _ content: String) {
            text += String(repeating: "    ", count: depth) + content + "\n"
        }

        mutating func open(_ depth: Int, _ name: String, _ attributes: [(String, String)]) {
            line(depth, "<\(name)\(Self.render(attributes))>")
        }

        mutating func empty(_ depth: Int, _ name: String, _ attributes: [(String, String)]) {
            line(depth, "<\(name)\(Self.render(attributes))/>")
        }

        mutating func close(_ depth: Int, _ name: String) {
            line(depth, "</\(name)>")
        }

        mutating func userInfo(_ depth: Int, _ entries: [(String, String)]) {
            guard !entries.isEmpty else { return }
            open(depth, "userInfo", [])
            for (key, value) in entries { empty(depth + 1, "entry", [("key", key), ("value", value)]) }
            close(depth, "userInfo")
        }

        mutating func attribute(_ attribute: Attribute, depth: Int) {
            let type = attribute.type.value
            var xml: [(String, String)] = [("name", attribute.name.value)]
            if attribute.isOptional { xml.append(("optional", "YES")) }
            if attribute.isTransient { xml.append(("transient", "YES")) }
            // Core Data's Undefined has no attributeType (as Xcode writes it).
            if let typeName = XcodeModelExporter.typeNames[type] { xml.append(("attributeType", typeName)) }
            if type == .composite, let composite = attribute.composite {
                xml.append(("attributeType", "Composite"))
                xml.append(("composite", composite.value))
            }
            for (bound, valueName, dateName) in [(attribute.minimum, "minValueString", "minDateTimeInterval"),
                                                 (attribute.maximum, "maxValueString", "maxDateTimeInterval")] {
                guard let bound = bound?.value else { continue }
                if case .date(let date) = bound { xml.append((dateName, XcodeModelExporter.interval(date))) } else {
                    xml.append((valueName, bound.description))
                }
            }
            if let regex = attribute.regex { xml.append(("regularExpressionString", regex.value)) }
            if let value = attribute.defaultValue?.value {
                switch value {
                case .date(let date): xml.append(("defaultDateTimeInterval", XcodeModelExporter.interval(date)))
                case .bool(let flag): xml.append(("defaultValueString", flag ? "YES" : "NO"))
                default: xml.append(("defaultValueString", value.description))
                }
            }
            if attribute.allowsExternalStorage?.value == true { xml.append(("allowsExternalBinaryDataStorage", "YES")) }
            if let derivation = attribute.derivation {
                xml.append(("derived", "YES"))
                xml.append(("derivationExpression", derivation.source.text))
            }
            if type.isNumeric || type == .bool { xml.append(("usesScalarValueType", "YES")) }
            var swiftType: String?
            if type.holdsSwiftValues {
                if let transformer = attribute.transformer { xml.append(("valueTransformerName", transformer.value)) }
                if let custom = attribute.swiftType { xml.append(("customClassName", custom.value)) }
            } else {
                swiftType = attribute.swiftType?.value
            }
            if let renaming = attribute.renamingIdentifier { xml.append(("elementID", renaming.value)) }
            if let modifier = attribute.versionHashModifier { xml.append(("versionHashModifier", modifier.value)) }
            let (info, extra) = XcodeModelExporter.split(attribute.userInfo, modelgen: ["swiftType": swiftType, "doc": attribute.doc])
            xml += extra
            property(depth, "attribute", xml, userInfo: info)
        }

        /// A property element: empty, or holding its userInfo.
        mutating func property(_ depth: Int, _ name: String, _ attributes: [(String, String)], userInfo entries: [(String, String)]) {
            if entries.isEmpty {
                empty(depth, name, attributes)
            } else {
                open(depth, name, attributes)
                userInfo(depth + 1, entries)
                close(depth, name)
            }
        }

        mutating func relationship(_ relationship: Relationship, in model: ObjectModel) {
            var xml: [(String, String)] = [("name", relationship.name.value)]
            if relationship.isOptional { xml.append(("optional", "YES")) }
            if relationship.isTransient { xml.append(("transient", "YES")) }
            if relationship.isToMany {
                xml.append(("toMany", "YES"))
                if let min = relationship.minCount { xml.append(("minCount", String(min.value))) }
                if let max = relationship.maxCount { xml.append(("maxCount", String(max.value))) }
            } else {
                xml.append(("maxCount", "1"))
            }
            let rule: String
            switch relationship.effectiveDeleteRule {
            case .nullify: rule = "Nullify"
            case .cascade: rule = "Cascade"
            case .deny: rule = "Deny"
            case .noAction: rule = "No Action"
            }
            xml.append(("deletionRule", rule))
            if relationship.isOrdered { xml.append(("ordered", "YES")) }
            xml.append(("destinationEntity", relationship.destination.value))
            if let renaming = relationship.renamingIdentifier { xml.append(("elementID", renaming.value)) }
            if let modifier = relationship.versionHashModifier { xml.append(("versionHashModifier", modifier.value)) }
            var oneWay: String?
            switch relationship.inverse {
            case .named(let inverse):
                xml.append(("inverseName", inverse.value))
                xml.append(("inverseEntity", owner(of: inverse.value, from: relationship.destination.value, in: model)))
            case .none: oneWay = "none"
            case .unspecified: break
            }
            let (info, extra) = XcodeModelExporter.split(relationship.userInfo, modelgen: ["inverse": oneWay, "doc": relationship.doc])
            xml += extra
            property(2, "relationship", xml, userInfo: info)
        }

        /// The entity (the destination or an ancestor) that declares the inverse relationship.
        private func owner(of relationship: String, from entity: String, in model: ObjectModel) -> String {
            var current = model.entity(named: entity)
            var visited: Set<String> = []
            while let candidate = current, visited.insert(candidate.name.value).inserted {
                if candidate.relationships.contains(where: { $0.name.value == relationship }) { return candidate.name.value }
                current = candidate.parent.flatMap { model.entity(named: $0.value) }
            }
            return entity
        }

        static func render(_ attributes: [(String, String)]) -> String {
            attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
        }

        static func escape(_ text: String) -> String {
            var out = ""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\"": out += "&quot;"
                case "\n": out += "&#10;"
                case "\r": out += "&#13;"
                case "\t": out += "&#9;"
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out
        }
    }
}
