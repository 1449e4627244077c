/// Compares two versions of a model (`modelgen diff`), entity by entity and property by property,
/// and classifies each change by what it means for stores made with the old version and for code
/// written against its generated classes (see `ChangeImpact`). Entities, attributes and relationships
/// are matched by name or by the new version's `renamingIdentifier`; other parts by name.
public enum ModelDiff {
    /// Records one change: its message, places in the old and new file, and impacts.
    typealias Add = (String, SourceLocation?, SourceLocation?, Set<ChangeImpact>) -> Void

    /// Every change from `old` to `new`, in the new file's order (removals where they were in the old one).
    public static func changes(from old: ObjectModel, to new: ObjectModel) -> [ModelChange] {
        var changes: [ModelChange] = []
        func add(_ message: String, old: SourceLocation?, new: SourceLocation?, _ impacts: Set<ChangeImpact>) {
            changes.append(ModelChange(message, old: old, new: new, impacts: impacts))
        }
        if old.name.value != new.name.value {
            add("the model was renamed from \(old.name.value) to \(new.name.value) (the generated \(old.name.value)Model type is renamed)",
                old: old.name.location, new: new.name.location, [.apiBreak])
        }
        compareOptions(old, new, add)
        var matched: Set<String> = []
        // Entities renamed with renamingIdentifier: a relationship to one keeps its destination.
        var renamed: [String: String] = [:]
        for entity in new.entities {
            if let former = entity.renamingIdentifier?.value, old.entity(named: entity.name.value) == nil,
               new.entity(named: former) == nil, old.entity(named: former) != nil {
                renamed[former] = entity.name.value
            }
        }
        for entity in new.entities {
            let previous = old.entity(named: entity.name.value)
                ?? entity.renamingIdentifier.flatMap { former in new.entity(named: former.value) == nil ? old.entity(named: former.value) : nil }
            guard let previous else {
                add("entity \(entity.name.value) was added", old: nil, new: entity.name.location, [.lightweight])
                continue
            }
            matched.insert(previous.name.value)
            let first = changes.count
            if previous.name.value != entity.name.value {
                add("entity \(previous.name.value) was renamed to \(entity.name.value) (renamingIdentifier: stores keep its records)",
                    old: previous.name.location, new: entity.name.location, [.lightweight, .apiBreak])
            }
            compare(previous, entity, oldModel: old, newModel: new, renamed: renamed, add)
            // What the entity lost is anchored in the new file at the entity.
            for index in first..<changes.count where changes[index].new == nil { changes[index].anchor = entity.name.location }
        }
        for entity in old.entities where !matched.contains(entity.name.value) {
            add("entity \(entity.name.value) was removed: its saved records are dropped, and its class \(entity.swiftClassName) is gone",
                old: entity.name.location, new: nil, [.dataLoss, .apiBreak])
        }
        compareComposites(old, new, add)
        compareTemplates(old, new, add)
        // Other removals (entities, composite types and their fields, templates) at the model's name.
        for index in changes.indices where changes[index].new == nil && changes[index].anchor == nil { changes[index].anchor = new.name.location }
        return changes
    }

    private static func compareOptions(_ old: ObjectModel, _ new: ObjectModel, _ add: Add) {
        let oldAccess = old.options.access?.value ?? .internal, newAccess = new.options.access?.value ?? .internal
        if oldAccess != newAccess {
            let narrower = AccessLevel.allCases.firstIndex(of: newAccess)! < AccessLevel.allCases.firstIndex(of: oldAccess)!
            add("the generated code's access level changed from \(oldAccess.rawValue) to \(newAccess.rawValue)",
                old.options.access?.location, new.options.access?.location, narrower ? [.apiBreak] : [])
        }
        let oldCodegen = old.options.codegen?.value ?? .class, newCodegen = new.options.codegen?.value ?? .class
        if oldCodegen != newCodegen {
            add("the default codegen mode changed from \(oldCodegen.rawValue) to \(newCodegen.rawValue) (entities without their own mode)",
                old.options.codegen?.location, new.options.codegen?.location, [.apiBreak])
        }
    }

    private static func compare(_ old: Entity, _ new: Entity, oldModel: ObjectModel, newModel: ObjectModel, renamed: [String: String],
                                _ add: Add) {
        let name = new.name.value
        if old.parent.map({ renamed[$0.value] ?? $0.value }) != new.parent?.value {
            add("entity \(name): its parent changed from \(old.parent?.value ?? "none") to \(new.parent?.value ?? "none") (stores keep a hierarchy in one table)",
                old.parent?.location ?? old.name.location, new.parent?.location ?? new.name.location, [.customStage, .apiBreak])
        }
        if old.isAbstract != new.isAbstract {
            add("entity \(name) became \(new.isAbstract ? "abstract: its saved records of its own must move to a subentity" : "concrete")",
                old.name.location, new.name.location, new.isAbstract ? [.customStage, .apiBreak] : [])
        }
        // A class named after its entity follows the entity's rename (reported as that).
        if old.swiftClassName != new.swiftClassName, old.className != nil || new.className != nil {
            add("entity \(name): its class was renamed from \(old.swiftClassName) to \(new.swiftClassName)",
                old.swiftClassNameLocation, new.swiftClassNameLocation, [.apiBreak])
        }
        // The entity's own mode (a change of the model's default is reported once, for the model).
        if oldModel.codegen(of: old) != newModel.codegen(of: new), old.codegen?.value != new.codegen?.value {
            add("entity \(name): its codegen mode changed from \(oldModel.codegen(of: old).rawValue) to \(newModel.codegen(of: new).rawValue)",
                old.codegen?.location ?? old.name.location, new.codegen?.location ?? new.name.location, [.apiBreak])
        }
        if old.versionHashModifier?.value != new.versionHashModifier?.value {
            add(modifierMessage("entity \(name)", old.versionHashModifier, new.versionHashModifier),
                old.versionHashModifier?.location ?? old.name.location, new.versionHashModifier?.location ?? new.name.location, [.lightweight])
        }
        compareAttributes(entity: name, old.attributes, new.attributes, add)
        // The former name of a relationship of the new model (its renamingIdentifier): an inverse renamed
        // with it is the same inverse.
        let formerName: (String, String) -> String? = { entity, relationship in
            newModel.entity(named: entity)?.relationships.first { $0.name.value == relationship }?.renamingIdentifier?.value
        }
        compareRelationships(entity: name, old.relationships, new.relationships, renamed: renamed, formerName: formerName, add)
        compareNamed(entity: name, kind: "fetched property", old.fetchedProperties.map(\.name), new.fetchedProperties.map(\.name), add)
        compareNamed(entity: name, kind: "computed property", old.computedProperties.map(\.name), new.computedProperties.map(\.name), add)
        compareLists(entity: name, kind: "index", old.indexes, new.indexes, added: [.lightweight], removed: [.lightweight], add)
        compareLists(entity: name, kind: "uniqueness constraint", old.uniquenessConstraints, new.uniquenessConstraints,
                     added: [.customStage], removed: [.lightweight], add,
                     addedNote: " (saved records that repeat the values must be merged first)")
    }

    // MARK: Attributes

    /// Compares attribute lists (an entity's, or a composite type's fields, `owner` naming which).
    static func compareAttributes(entity owner: String, _ old: [Attribute], _ new: [Attribute],
                                  _ add: Add) {
        var matched: Set<String> = []
        for attribute in new {
            let name = attribute.name.value
            let previous = old.first { $0.name.value == name }
                ?? attribute.renamingIdentifier.flatMap { former in old.first { $0.name.value == former.value } }
            guard let previous else {
                let required = !attribute.isOptional && attribute.defaultValue == nil && !attribute.isTransient
                add("attribute \(owner).\(name) was added" + (required ? ", required and without a default: saved records have no value for it" : ""),
                    nil, attribute.name.location, required ? [.customStage] : [.lightweight])
                continue
            }
            matched.insert(previous.name.value)
            compare(owner, previous, attribute, add)
        }
        for attribute in old where !matched.contains(attribute.name.value) {
            add("attribute \(owner).\(attribute.name.value) was removed: its saved values are dropped",
                attribute.name.location, nil, attribute.isTransient ? [.apiBreak] : [.dataLoss, .apiBreak])
        }
    }

    private static func compare(_ owner: String, _ old: Attribute, _ new: Attribute,
                                _ add: Add) {
        let name = new.name.value
        let place = (old.name.location, new.name.location)
        if old.name.value != name {
            add("attribute \(owner).\(old.name.value) was renamed to \(name) (renamingIdentifier: stores keep its values)",
                place.0, place.1, [.lightweight, .apiBreak])
        }
        if old.type.value != new.type.value || old.composite?.value != new.composite?.value {
            add("attribute \(owner).\(name): its type changed from \(describe(old)) to \(describe(new)); saved values must be converted",
                old.type.location, new.type.location, old.isTransient && new.isTransient ? [.apiBreak] : [.customStage, .apiBreak])
        }
        if old.isTransient != new.isTransient {
            add("attribute \(owner).\(name) became \(new.isTransient ? "transient: its saved values are dropped" : "stored")",
                place.0, place.1, new.isTransient ? [.dataLoss] : [.lightweight])
        }
        if old.isOptional != new.isOptional {
            if new.isOptional {
                add("attribute \(owner).\(name) became optional", old.optionalLocation ?? place.0, new.optionalLocation ?? place.1, [.apiBreak])
            } else {
                let fill = new.defaultValue == nil && !new.isTransient
                add("attribute \(owner).\(name) became required" + (fill ? " without a default: saved records without a value need one" : ""),
                    old.optionalLocation ?? place.0, new.optionalLocation ?? place.1, fill ? [.customStage, .apiBreak] : [.apiBreak])
            }
        }
        if old.swiftType?.value != new.swiftType?.value {
            add("attribute \(owner).\(name): its Swift type changed from \(old.swiftType?.value ?? "the attribute type's") to \(new.swiftType?.value ?? "the attribute type's")",
                old.swiftType?.location ?? place.0, new.swiftType?.location ?? place.1, [.apiBreak])
        }
        if old.transformer?.value != new.transformer?.value {
            add("attribute \(owner).\(name): its value transformer changed from \(old.transformer?.value ?? "Codable") to \(new.transformer?.value ?? "Codable"); saved values must be converted",
                old.transformer?.location ?? place.0, new.transformer?.location ?? place.1, [.customStage])
        }
        if old.defaultValue?.value != new.defaultValue?.value {
            add("attribute \(owner).\(name): its default changed from \(old.defaultValue.map { "\($0.value)" } ?? "none") to \(new.defaultValue.map { "\($0.value)" } ?? "none") (new objects only)",
                old.defaultValue?.location ?? place.0, new.defaultValue?.location ?? place.1, [])
        }
        for (label, a, b) in [("minimum", old.minimum, new.minimum), ("maximum", old.maximum, new.maximum)] where a?.value != b?.value {
            add("attribute \(owner).\(name): its \(label) changed from \(a.map { "\($0.value)" } ?? "none") to \(b.map { "\($0.value)" } ?? "none") (checked when a record is next saved)",
                a?.location ?? place.0, b?.location ?? place.1, [])
        }
        if old.versionHashModifier?.value != new.versionHashModifier?.value {
            add(modifierMessage("attribute \(owner).\(name)", old.versionHashModifier, new.versionHashModifier),
                old.versionHashModifier?.location ?? place.0, new.versionHashModifier?.location ?? place.1, [.lightweight])
        }
        if old.regex?.value != new.regex?.value {
            add("attribute \(owner).\(name): its pattern changed (checked when a record is next saved)",
                old.regex?.location ?? place.0, new.regex?.location ?? place.1, [])
        }
        if (old.allowsExternalStorage?.value ?? false) != (new.allowsExternalStorage?.value ?? false) {
            add("attribute \(owner).\(name): external storage turned \(new.allowsExternalStorage?.value ?? false ? "on" : "off") (values move when next saved)",
                old.allowsExternalStorage?.location ?? place.0, new.allowsExternalStorage?.location ?? place.1, [.lightweight])
        }
        if old.derivation?.source.text != new.derivation?.source.text {
            add("attribute \(owner).\(name): its derivation changed (recomputed when a record is next saved)", place.0, place.1, [])
        }
    }

    /// A changed `versionHashModifier`: the same layout, a new version hash.
    private static func modifierMessage(_ what: String, _ old: Located<String>?, _ new: Located<String>?) -> String {
        "\(what): its versionHashModifier changed from \(old?.value ?? "none") to \(new?.value ?? "none"): stores see a new version of the model (a migration stage runs, with your code where the plan has one)"
    }

    private static func describe(_ attribute: Attribute) -> String {
        attribute.composite?.value ?? attribute.type.value.rawValue
    }

    // MARK: Relationships

    private static func compareRelationships(entity owner: String, _ old: [Relationship], _ new: [Relationship], renamed: [String: String],
                                             formerName: (String, String) -> String?, _ add: Add) {
        var matched: Set<String> = []
        for relationship in new {
            let name = relationship.name.value
            let previous = old.first(where: { $0.name.value == name })
                ?? relationship.renamingIdentifier.flatMap { former in old.first { $0.name.value == former.value } }
            guard let previous else {
                let required = !relationship.isToMany && !relationship.isOptional && !relationship.isTransient
                add("relationship \(owner).\(name) was added" + (required ? ", to-one and required: saved records have no related object" : ""),
                    nil, relationship.name.location, required ? [.customStage] : [.lightweight])
                continue
            }
            matched.insert(previous.name.value)
            let place = (previous.name.location, relationship.name.location)
            if previous.name.value != name {
                add("relationship \(owner).\(previous.name.value) was renamed to \(name) (renamingIdentifier: stores keep its links)",
                    place.0, place.1, [.lightweight, .apiBreak])
            }
            if renamed[previous.destination.value] ?? previous.destination.value != relationship.destination.value {
                add("relationship \(owner).\(name): its destination changed from \(previous.destination.value) to \(relationship.destination.value); saved links must be moved",
                    previous.destination.location, relationship.destination.location, [.customStage, .apiBreak])
            }
            if previous.isToMany != relationship.isToMany {
                add(relationship.isToMany ? "relationship \(owner).\(name) became to-many: saved links move to its new storage"
                        : "relationship \(owner).\(name) became to-one: records with several related objects keep one",
                    place.0, place.1, relationship.isToMany ? [.customStage, .apiBreak] : [.customStage, .dataLoss, .apiBreak])
            } else if previous.isOrdered != relationship.isOrdered {
                add("relationship \(owner).\(name) became \(relationship.isOrdered ? "ordered (an array)" : "unordered (a set)")",
                    previous.ordered?.location ?? place.0, relationship.ordered?.location ?? place.1, [.lightweight, .apiBreak])
            }
            if inverseName(previous) != inverseName(relationship),
               inverseName(relationship).flatMap({ formerName(relationship.destination.value, $0) }) != inverseName(previous) {
                add("relationship \(owner).\(name): its inverse changed from \(inverseName(previous) ?? "none") to \(inverseName(relationship) ?? "none"); how its links are stored may change",
                    place.0, place.1, [.customStage])
            }
            if previous.versionHashModifier?.value != relationship.versionHashModifier?.value {
                add(modifierMessage("relationship \(owner).\(name)", previous.versionHashModifier, relationship.versionHashModifier),
                    previous.versionHashModifier?.location ?? place.0, relationship.versionHashModifier?.location ?? place.1, [.lightweight])
            }
            if previous.isTransient != relationship.isTransient {
                add("relationship \(owner).\(name) became \(relationship.isTransient ? "transient: its saved links are dropped" : "stored")",
                    place.0, place.1, relationship.isTransient ? [.dataLoss] : [.lightweight])
            }
            if !relationship.isToMany, previous.isOptional != relationship.isOptional {
                add("relationship \(owner).\(name) became \(relationship.isOptional ? "optional" : "required: saved records without a related object need one")",
                    place.0, place.1, relationship.isOptional ? [.apiBreak] : [.customStage, .apiBreak])
            }
            if previous.effectiveDeleteRule != relationship.effectiveDeleteRule {
                add("relationship \(owner).\(name): its delete rule changed from \(previous.effectiveDeleteRule.rawValue) to \(relationship.effectiveDeleteRule.rawValue)",
                    previous.deleteRule?.location ?? place.0, relationship.deleteRule?.location ?? place.1, [])
            }
            if previous.minCount?.value != relationship.minCount?.value || previous.maxCount?.value != relationship.maxCount?.value {
                add("relationship \(owner).\(name): its count bounds changed (checked when a record is next saved)", place.0, place.1, [])
            }
        }
        for relationship in old where !matched.contains(relationship.name.value) {
            add("relationship \(owner).\(relationship.name.value) was removed: its saved links are dropped",
                relationship.name.location, nil, relationship.isTransient ? [.apiBreak] : [.dataLoss, .apiBreak])
        }
    }

    private static func inverseName(_ relationship: Relationship) -> String? {
        if case .named(let name) = relationship.inverse { return name.value }
        return nil
    }

    // MARK: Other parts

    private static func compareNamed(entity owner: String, kind: String, _ old: [Located<String>], _ new: [Located<String>],
                                     _ add: Add) {
        for name in new where !old.contains(where: { $0.value == name.value }) {
            add("\(kind) \(owner).\(name.value) was added", nil, name.location, [])
        }
        for name in old where !new.contains(where: { $0.value == name.value }) {
            add("\(kind) \(owner).\(name.value) was removed", name.location, nil, [.apiBreak])
        }
    }

    private static func compareLists(entity owner: String, kind: String, _ old: [PropertyNameList], _ new: [PropertyNameList],
                                     added: Set<ChangeImpact>, removed: Set<ChangeImpact>,
                                     _ add: Add, addedNote: String = "") {
        func key(_ list: PropertyNameList) -> [String] { list.names.map(\.value) }
        for list in new where !old.contains(where: { key($0) == key(list) }) {
            add("\(kind) \(owner)(\(key(list).joined(separator: ", "))) was added\(addedNote)", nil, list.location, added)
        }
        for list in old where !new.contains(where: { key($0) == key(list) }) {
            add("\(kind) \(owner)(\(key(list).joined(separator: ", "))) was removed", list.location, nil, removed)
        }
    }

    private static func compareComposites(_ old: ObjectModel, _ new: ObjectModel,
                                          _ add: Add) {
        for composite in new.composites {
            guard let previous = old.composite(named: composite.name.value) else {
                add("composite type \(composite.name.value) was added", nil, composite.name.location, [])
                continue
            }
            compareAttributes(entity: composite.name.value, previous.attributes, composite.attributes, add)
        }
        for composite in old.composites where new.composite(named: composite.name.value) == nil {
            add("composite type \(composite.name.value) was removed", composite.name.location, nil, [.apiBreak])
        }
    }

    private static func compareTemplates(_ old: ObjectModel, _ new: ObjectModel,
                                         _ add: Add) {
        for template in new.fetchRequests {
            guard let previous = old.fetchRequests.first(where: { $0.name.value == template.name.value }) else {
                add("fetch request template \(template.name.value) was added", nil, template.name.location, [])
                continue
            }
            if previous.entity.value != template.entity.value {
                add("fetch request template \(template.name.value) now fetches \(template.entity.value), not \(previous.entity.value)",
                    previous.entity.location, template.entity.location, [.apiBreak])
            } else if previous.predicate?.source.text != template.predicate?.source.text
                        || previous.sortDescriptors.map(\.source.text) != template.sortDescriptors.map(\.source.text)
                        || previous.limit?.value != template.limit?.value || previous.offset?.value != template.offset?.value
                        || previous.properties.map(\.memberOrderText) != template.properties.map(\.memberOrderText) {
                add("fetch request template \(template.name.value) changed what it fetches", previous.name.location, template.name.location, [])
            }
            // The generated row type follows the group keys, columns and projected key paths (names and
            // types): only a new having predicate keeps it.
            func rowShape(_ t: FetchRequestTemplate) -> [String] {
                t.groupBy.map(\.descriptor.keyPathText) + ["|"] + t.columns.map { "\($0.name.value) \($0.expression.source.text)" }
                    + ["|"] + t.properties.map { ($0.memberOrder != nil ? "first " : "") + $0.descriptor.keyPathText + ($0.name.map { " as " + $0.value } ?? "") }
            }
            let rowChanged = rowShape(previous) != rowShape(template)
            if rowChanged || previous.having?.source.text != template.having?.source.text {
                add("fetch request template \(template.name.value) changed its \(template.isProjection || previous.isProjection ? "projected properties" : "groups, columns or having predicate")",
                    previous.name.location, template.name.location, rowChanged ? [.apiBreak] : [])
            }
            if previous.functionName.value != template.functionName.value {
                add("fetch request template \(template.name.value): its generated function was renamed from \(previous.functionName.value) to \(template.functionName.value)",
                    previous.functionName.location, template.functionName.location, [.apiBreak])
            }
        }
        for template in old.fetchRequests where !new.fetchRequests.contains(where: { $0.name.value == template.name.value }) {
            add("fetch request template \(template.name.value) was removed", template.name.location, nil, [.apiBreak])
        }
    }
}
