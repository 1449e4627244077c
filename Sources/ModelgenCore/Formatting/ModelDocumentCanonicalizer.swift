/// Puts a model file's `YAMLDocument` into the canonical layout both `modelgen format` and `modelgen import`
/// write: keys in the format's order, `name: TYPE` / `name: TYPE?` for attributes that say nothing else,
/// properties as `{ ... }` when they fit on a line, sections and entities separated by blank lines.
/// Declaration order of entities, properties, templates and userInfo is kept: it is the model's order.
enum ModelDocumentCanonicalizer {
    static let topLevel = ["model", "formatVersion", "options", "composites", "entities", "fetchRequests", "configurations"]
    static let composite = ["doc", "attributes"]
    static let options = ["codegen", "access", "imports"]
    static let entity = ["doc", "parent", "abstract", "class", "codegen", "renamingIdentifier", "versionHashModifier", "attributes", "relationships", "fetchedProperties",
                         "computed", "unique", "indexes", "userInfo"]
    static let attribute = ["type", "optional", "default", "min", "max", "regex", "swiftType", "transformer", "externalStorage",
                            "transient", "derived", "renamingIdentifier", "versionHashModifier", "doc", "userInfo"]
    static let relationship = ["destination", "toMany", "ordered", "inverse", "deleteRule", "optional", "min", "max", "transient",
                               "renamingIdentifier", "versionHashModifier", "doc", "userInfo"]
    static let fetchedProperty = ["destination", "predicate", "sort", "doc", "userInfo"]
    static let fetchRequest = ["entity", "predicate", "properties", "groupBy", "columns", "having", "sort", "limit", "offset", "swiftName", "doc"]

    /// The canonical form of a model document.
    static func canonical(_ document: YAMLDocument) -> YAMLDocument {
        var document = document
        var root = ordered(document.root, topLevel, layout: .block)
        root.spacesBlocks = true
        for index in root.entries.indices {
            switch root.entries[index].key {
            case "options":
                root.entries[index].value = map(root.entries[index].value) { ordered($0, options, layout: .block) }
            case "composites":
                root.entries[index].value = map(root.entries[index].value) { composites in
                    var composites = each(composites, layout: .block) { value in
                        map(value) { composite in
                            var composite = ordered(composite, Self.composite, layout: .block)
                            for index in composite.entries.indices where composite.entries[index].key == "attributes" {
                                composite.entries[index].value = map(composite.entries[index].value) { each($0, layout: .block, attributeValue) }
                            }
                            return composite
                        }
                    }
                    composites.spacesBlocks = true
                    return composites
                }
            case "entities":
                root.entries[index].value = map(root.entries[index].value) { entities in
                    var entities = each(entities, layout: .block) { entityValue($0) }
                    entities.spacesBlocks = true
                    return entities
                }
            case "fetchRequests":
                root.entries[index].value = map(root.entries[index].value) { templates in
                    var templates = each(templates, layout: .block) { map($0) { ordered($0, fetchRequest, layout: .block) } }
                    templates.spacesBlocks = true
                    return templates
                }
            case "configurations":
                root.entries[index].value = map(root.entries[index].value) { configurations in
                    each(configurations, layout: .block) { $0 }
                }
            default: break
            }
        }
        document.root = root
        return document
    }

    private static func entityValue(_ value: YAMLValue) -> YAMLValue {
        map(value) { entity in
            var entity = ordered(entity, Self.entity, layout: .block)
            for index in entity.entries.indices {
                let value = entity.entries[index].value
                switch entity.entries[index].key {
                case "attributes": entity.entries[index].value = map(value) { each($0, layout: .block, attributeValue) }
                case "relationships":
                    entity.entries[index].value = map(value) { each($0, layout: .block) { map($0) { ordered($0, relationship, layout: .flowIfFits) } } }
                case "fetchedProperties":
                    entity.entries[index].value = map(value) { each($0, layout: .block) { map($0) { ordered($0, fetchedProperty, layout: .flowIfFits) } } }
                default: break
                }
            }
            return entity
        }
    }

    /// The long form of an attribute in key order, or its short form when it only has a type and optionality.
    private static func attributeValue(_ value: YAMLValue) -> YAMLValue {
        guard case .mapping(let mapping) = value else { return value }
        let attribute = ordered(mapping, Self.attribute, layout: .flowIfFits)
        guard attribute.entries.allSatisfy({ ($0.key == "type" || $0.key == "optional") && $0.comments.isEmpty }),
              case .scalar(let type)? = attribute["type"] else { return .mapping(attribute) }
        switch attribute["optional"] {
        case nil: return .scalar(.token(type.value))
        case .scalar(let flag) where flag.value == "true": return .scalar(.token(type.value + "?"))
        case .scalar(let flag) where flag.value == "false": return .scalar(.token(type.value))
        default: return .mapping(attribute)
        }
    }

    /// The entries of `mapping` with known keys in `order` (others after them, as they were), and nested
    /// `userInfo` mappings and lists laid out flow-if-fits.
    private static func ordered(_ mapping: YAMLMapping, _ order: [String], layout: YAMLMapping.Layout) -> YAMLMapping {
        let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
        let sorted = mapping.entries.enumerated().sorted { a, b in
            let (ra, rb) = (rank[a.element.key] ?? order.count, rank[b.element.key] ?? order.count)
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map { entry -> YAMLMapping.Entry in
            var entry = entry.element
            if ["predicate", "derived", "regex"].contains(entry.key), case .scalar(var scalar) = entry.value {
                scalar.kind = .expression
                entry.value = .scalar(scalar)
            }
            if entry.key == "userInfo", case .mapping(var info) = entry.value {
                info.layout = .flowIfFits
                entry.value = .mapping(info)
            }
            return entry
        }
        return YAMLMapping(sorted, layout: layout)
    }

    private static func map(_ value: YAMLValue, _ transform: (YAMLMapping) -> YAMLMapping) -> YAMLValue {
        guard case .mapping(let mapping) = value else { return value }
        return .mapping(transform(mapping))
    }

    private static func map(_ value: YAMLValue, _ transform: (YAMLMapping) -> YAMLValue) -> YAMLValue {
        guard case .mapping(let mapping) = value else { return value }
        return transform(mapping)
    }

    /// The mapping with each value transformed (entity names → entities, attribute names → attributes...).
    private static func each(_ mapping: YAMLMapping, layout: YAMLMapping.Layout, _ transform: (YAMLValue) -> YAMLValue) -> YAMLMapping {
        var result = mapping
        result.layout = layout
        for index in result.entries.indices { result.entries[index].value = transform(result.entries[index].value) }
        return result
    }
}
