import Foundation

/// Options of one generation run (CLI flags over the model's `options:`, over defaults).
public struct GenerationOptions: Sendable {
    /// Everything in one file (`<Model>Model.swift`), as the build-tool plugin needs.
    public var singleFile = false
    /// Overrides the model's access level.
    public var access: AccessLevel?
    /// How class-mode properties are declared (`@Managed` wrappers unless set to `.accessors`).
    public var propertyStyle: PropertyStyle = .managed
    /// Modules to import beyond the model's `options.imports` (from modelgen-config.yaml).
    public var extraImports: [String] = []
    /// The model's path as the header names it; `RelativePath.from(directory: output, to: model)` in the CLI.
    /// Nil: the path as given (absolute ones reduced to the file name).
    public var headerSourcePath: String?

    /// Defaults: one file per class, the model's access level, built-in templates.
    public init() {}
}

/// Builds the template context of a validated model.
struct ModelViewBuilder {
    let model: ObjectModel
    let variables: [String: [TemplateVariable]]
    /// The row fields of aggregate and projection templates (see `AggregateRowField`).
    let aggregateRows: [String: [AggregateRowField]]
    let options: GenerationOptions
    /// Each entity's position in `model.entities`, by name (positions, not copies: an `Entity` is
    /// large, and a dictionary of them copied one out for each lookup).
    private let entityIndex: [String: Int]
    /// The entities some entity names as its parent (looked up once per entity: a scan of every entity
    /// for each made generation quadratic in the model's size).
    private let parentNames: Set<String>

    init(model: ObjectModel, variables: [String: [TemplateVariable]], aggregateRows: [String: [AggregateRowField]] = [:], options: GenerationOptions) {
        self.model = model
        self.variables = variables
        self.aggregateRows = aggregateRows
        self.options = options
        entityIndex = Dictionary(model.entities.indices.map { (model.entities[$0].name.value, $0) }, uniquingKeysWith: { first, _ in first })
        parentNames = Set(model.entities.compactMap { $0.parent?.value })
    }

    var access: String {
        let level = options.access ?? model.options.access?.value ?? .internal
        return level == .internal ? "" : level.rawValue + " "
    }

    /// The formatter of the Swift the context carries written out (`SwiftFormatter`).
    var formatter: SwiftFormatter { SwiftFormatter(builder: self) }

    func className(_ entityName: String) -> String { entityIndex[entityName].map { model.entities[$0].swiftClassName } ?? entityName }

    /// The positions in `model.entities` of the entity's ancestors, the root first.
    func ancestors(_ entity: Entity) -> [Int] {
        var result: [Int] = []
        var current = entity.parent.flatMap { entityIndex[$0.value] }
        while let index = current, !result.contains(index) {
            result.insert(index, at: 0)
            current = model.entities[index].parent.flatMap { entityIndex[$0.value] }
        }
        return result
    }

    /// The first slot of the entity's own properties (its ancestors' properties come first).
    func firstOwnSlot(_ entity: Entity) -> Int {
        ancestors(entity).reduce(0) { $0 + slotCount(model.entities[$1]) }
    }

    /// The slots an entity's own stored properties take (a composite attribute one per field).
    func slotCount(_ entity: Entity) -> Int {
        entity.attributes.reduce(0) { $0 + model.slotCount(of: $1) } + entity.relationships.count
    }

    // MARK: Model

    func build() -> ModelView {
        let typeName = model.name.value + "Model"
        // Entity views and descriptions are built side by side: each depends on the model only.
        let entities = model.entities
        let views = ParallelMap.map(entities.count) { entityView(entities[$0]) }.compactMap { $0 }
        return ModelView(
            // Relative paths stay as given; an absolute one (the build plugin's) becomes the file name,
            // so generated files never hold a machine's paths.
            modelName: model.name.value, typeName: typeName, versionHash: model.versionHash,
            sourcePath: SwiftLiterals.commentText(options.headerSourcePath
                ?? (model.sourcePath.hasPrefix("/") ? (model.sourcePath as NSString).lastPathComponent : model.sourcePath)),
            imports: (model.options.imports.map(\.value) + options.extraImports.filter { extra in !model.options.imports.contains { $0.value == extra } })
                .filter { $0 != "Foundation" && $0 != "ModelgenRuntime" },
            access: access,
            entityDescriptions: ParallelMap.map(entities.count) { [formatter] in formatter.entityDescription(entities[$0]) },
            entityMembers: ListItemView.list(model.entities.map(entityMember)),
            fetchTemplates: model.fetchRequests.map(fetchTemplateView),
            configurations: configurationViews(),
            fetchHelpers: model.fetchRequests.map(fetchHelper),
            valueTypes: valueConformances(views),
            composites: model.composites.map(compositeView),
            entities: views, isSingleFile: options.singleFile)
    }

    // MARK: Entities

    func entityView(_ entity: Entity) -> EntityView? {
        let mode = model.codegen(of: entity)
        if mode == .none { return nil }
        let hasSubentities = parentNames.contains(entity.name.value)
        var slot = firstOwnSlot(entity)
        var properties: [PropertyView] = []
        let wrappers = mode == .class && options.propertyStyle == .managed
        for attribute in entity.attributes {
            properties.append(attributeView(attribute, slot: slot, wrapper: wrappers))
            slot += model.slotCount(of: attribute)
        }
        for relationship in entity.relationships {
            properties.append(relationshipView(relationship, slot: slot, wrapper: wrappers))
            slot += 1
        }
        properties += entity.fetchedProperties.map(fetchedPropertyView)
        var computed = entity.computedProperties.map(computedPropertyView)
        let ancestors = self.ancestors(entity)
        var keys = (ancestors.flatMap { model.entities[$0].declaredPropertyNames } + entity.declaredPropertyNames).map { name in
            PropertyView(name: SwiftLiterals.identifier(name.value), key: name.value, type: "String", slot: 0, documentation: [],
                         isManaged: false, isComputed: false, isReadOnly: true, isThrowing: false, getterName: "", setterName: "", keyLiteral: "",
                         isToMany: false, isOrdered: false, elementType: "", addName: "", removeName: "", insertName: "")
        }
        let access = self.access
        for index in properties.indices { properties[index].access = access }
        for index in computed.indices { computed[index].access = access }
        for index in keys.indices { keys[index].access = access }
        var parameters: [ParameterView] = []
        func addParameters(of owner: Entity) {
            for a in owner.attributes where requiresValue(a) {
                let name = SwiftLiterals.identifier(a.name.value)
                parameters.append(ParameterView(name: name, type: attributeType(a), keyLiteral: "", isLast: false))
            }
            for r in owner.relationships where !r.isToMany && !r.isOptional {
                let name = SwiftLiterals.identifier(r.name.value)
                parameters.append(ParameterView(name: name, type: className(r.destination.value), keyLiteral: "", isLast: false))
            }
        }
        for index in ancestors { addParameters(of: model.entities[index]) }
        addParameters(of: entity)
        if !parameters.isEmpty { parameters[parameters.count - 1].isLast = true }
        // A subentity adding no required value inherits its parent's initializer (same signature).
        let ownRequired = entity.attributes.contains(where: requiresValue)
            || entity.relationships.contains { !$0.isToMany && !$0.isOptional }
        if entity.parent != nil && !ownRequired { parameters = [] }
        let superclass = entity.parent.map { className($0.value) } ?? "ModelgenRuntime.ManagedObject"
        // A final class generated here, all of whose superclasses are generated too: no code can give
        // it a `validateValue(_:forKey:)` or an `awakeFromFetch()` of its own (an extension cannot override one).
        let isFinalGeneratedClass = mode == .class && !hasSubentities
            && ancestors.allSatisfy { model.codegen(of: model.entities[$0]) == .class }
        return EntityView(
            entityName: entity.name.value, className: entity.swiftClassName, superclassName: superclass,
            classKeyword: hasSubentities ? "class" : "final class", access: access,
            documentation: DocLineView.lines(entity.doc),
            isClassMode: mode == .class, isExtensionMode: mode == .extension, isFinalGeneratedClass: isFinalGeneratedClass,
            properties: properties, toManyProperties: properties.filter(\.isToMany), computedProperties: computed, keys: keys, initParameters: parameters, hasInitParameters: !parameters.isEmpty,
            fileName: mode == .class ? "\(entity.swiftClassName).swift" : "\(entity.swiftClassName)+Generated.swift",
            origin: entity.swiftClassNameLocation)
    }

    /// True when a new object needs a value for the attribute: the generated initializer asks for it.
    /// A composite needs one when any of its fields does.
    func requiresValue(_ a: Attribute) -> Bool {
        guard !a.isOptional && a.defaultValue == nil && a.derivation == nil && !a.isTransient else { return false }
        guard a.type.value == .composite else { return true }
        return model.composite(named: a.composite?.value ?? "")?.attributes.contains(where: requiresValue) ?? false
    }

    func attributeType(_ a: Attribute) -> String {
        let base = a.composite?.value ?? a.swiftType?.value ?? a.type.value.swiftTypeName ?? "Any"
        return a.isOptional ? "\(base)?" : base
    }

    func attributeView(_ a: Attribute, slot: Int, wrapper: Bool) -> PropertyView {
        let type = attributeType(a)
        var getter = "managedValue", setter = "setManagedValue"
        if a.type.value == .composite {
            (getter, setter) = (a.isOptional ? "optionalCompositeValue" : "compositeValue", "setCompositeValue")
        } else if a.type.value.holdsSwiftValues {
            // Two names, not two overloads: `Value?` for an optional `Data?` would match both.
            (getter, setter) = (a.isOptional ? "optionalTransformableValue" : "transformableValue", "setTransformableValue")
        } else if a.swiftType != nil {
            (getter, setter) = ("rawRepresentableValue", "setRawRepresentableValue")
        }
        let isDerived = a.derivation != nil
        var doc = a.doc
        if let derivation = a.derivation?.source.text {
            doc = (doc.map { $0 + "\n\n" } ?? "") + "Derived from `\(derivation)`, recomputed on save."
        }
        // `@Managed(slot:)` in class mode; a `swiftType` the generated code cannot conform
        // (`[String]`, `Foundation.Data`, …) keeps a computed accessor (see valueConformance).
        let managed = wrapper && (a.swiftType == nil || valueConformance(a) != nil)
        return PropertyView(
            name: SwiftLiterals.identifier(a.name.value), key: a.name.value, type: type, slot: slot,
            documentation: DocLineView.lines(doc),
            isManaged: managed, isComputed: !managed, isReadOnly: isDerived, isThrowing: false,
            getterName: getter, setterName: setter, keyLiteral: SwiftLiterals.string(a.name.value),
            isToMany: false, isOrdered: false, elementType: "", addName: "", removeName: "", insertName: "")
    }

    func relationshipView(_ r: Relationship, slot: Int, wrapper: Bool) -> PropertyView {
        let destination = className(r.destination.value)
        let capitalized = r.name.value.prefix(1).uppercased() + r.name.value.dropFirst()
        let type: String, getter: String, setter: String
        if !r.isToMany {
            (type, getter, setter) = ("\(destination)?", "relatedObject", "setRelatedObject")
        } else if r.isOrdered {
            (type, getter, setter) = ("[\(destination)]", "relatedObjects", "setRelatedObjects")
        } else {
            (type, getter, setter) = ("Set<\(destination)>", "relatedSet", "setRelatedSet")
        }
        return PropertyView(
            name: SwiftLiterals.identifier(r.name.value), key: r.name.value, type: type, slot: slot,
            documentation: DocLineView.lines(r.doc),
            isManaged: wrapper, isComputed: !wrapper, isReadOnly: false, isThrowing: false,
            getterName: getter, setterName: setter, keyLiteral: SwiftLiterals.string(r.name.value),
            isToMany: r.isToMany, isOrdered: r.isOrdered, elementType: destination,
            addName: "addTo\(capitalized)", removeName: "removeFrom\(capitalized)", insertName: "insertInto\(capitalized)")
    }

    func fetchedPropertyView(_ f: FetchedProperty) -> PropertyView {
        let destination = className(f.destination.value)
        let doc = (f.doc.map { $0 + "\n\n" } ?? "") + "Fetched: `\(f.predicate?.source.text ?? "")`."
        return PropertyView(
            name: SwiftLiterals.identifier(f.name.value), key: f.name.value, type: "[\(destination)]", slot: -1,
            documentation: DocLineView.lines(doc),
            isManaged: false, isComputed: true, isReadOnly: true, isThrowing: true,
            getterName: "fetchedObjects", setterName: "", keyLiteral: SwiftLiterals.string(f.name.value),
            isToMany: false, isOrdered: false, elementType: destination, addName: "", removeName: "", insertName: "")
    }

    /// The conformance a `swiftType` needs to be held by `@Managed`, or nil when the type is not one
    /// generated code can conform: only a plain (possibly nested) type name, not a standard one.
    func valueConformance(_ a: Attribute) -> ValueTypeView? {
        guard let name = a.swiftType?.value else { return nil }
        let plain = name.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { SwiftNames.isIdentifier(String($0)) }
        guard plain, !SwiftNames.reservedTypeNames.contains(name) else { return nil }
        let transformable = a.type.value.holdsSwiftValues
        return ValueTypeView(typeName: name, isRawValue: !transformable, isTransformable: transformable, isUndefined: a.type.value == .undefined)
    }

    /// One conformance per `swiftType` a wrapper of the generated classes holds, in order of first use.
    func valueConformances(_ views: [EntityView]) -> [ValueTypeView] {
        var seen: Set<String> = [], result: [ValueTypeView] = []
        for view in views where view.isClassMode {
            guard let index = entityIndex[view.entityName] else { continue }
            for (attribute, property) in zip(model.entities[index].attributes, view.properties) where property.isManaged {
                if let conformance = valueConformance(attribute), seen.insert(conformance.declaration).inserted { result.append(conformance) }
            }
        }
        return result
    }

    func compositeView(_ composite: CompositeType) -> CompositeView {
        let access = self.access
        var fields = composite.attributes.map { field -> CompositeFieldView in
            let defaultValue: String
            if let value = field.defaultValue?.value { defaultValue = formatter.swiftLiteral(value) }
            else if field.isOptional { defaultValue = "nil" }
            else { defaultValue = "" }
            return CompositeFieldView(
                name: SwiftLiterals.identifier(field.name.value), key: field.name.value, type: attributeType(field),
                defaultValue: defaultValue, hasDefault: !defaultValue.isEmpty,
                isComposite: field.type.value == .composite, isOptional: field.isOptional,
                documentation: DocLineView.lines(field.doc), isLast: false, access: access)
        }
        if !fields.isEmpty { fields[fields.count - 1].isLast = true }
        return CompositeView(
            name: composite.name.value, access: access,
            documentation: DocLineView.lines(composite.doc),
            fields: fields, hasFields: !fields.isEmpty, slotCount: model.slotCount(ofComposite: composite))
    }

    func computedPropertyView(_ c: ComputedProperty) -> PropertyView {
        let capitalized = c.name.value.prefix(1).uppercased() + c.name.value.dropFirst()
        let dependencies = c.dependsOn.map { "`\($0.value)`" }.joined(separator: ", ")
        let doc = (c.doc.map { $0 + "\n\n" } ?? "")
            + "Computed by `compute\(capitalized)()` in your code from \(dependencies); observers of it hear when any of them changes."
        var view = PropertyView(
            name: SwiftLiterals.identifier(c.name.value), key: c.name.value, type: c.type.value, slot: -1,
            documentation: DocLineView.lines(doc),
            isManaged: false, isComputed: true, isReadOnly: true, isThrowing: false, getterName: "", setterName: "", keyLiteral: "",
            isToMany: false, isOrdered: false, elementType: "", addName: "", removeName: "", insertName: "")
        view.computeName = "compute\(capitalized)"
        return view
    }

    // MARK: Model description literals

    /// The entity's member in the generated `Entities` namespace: lower-camel, so it never shadows a class name.
    func entityMember(_ entity: Entity) -> String {
        SwiftLiterals.identifier(entity.name.value.prefix(1).lowercased() + entity.name.value.dropFirst())
    }

    func fetchTemplateView(_ t: FetchRequestTemplate) -> FetchTemplateView {
        FetchTemplateView(
            nameLiteral: SwiftLiterals.string(t.name.value), entityLiteral: SwiftLiterals.string(t.entity.value),
            predicateLiteral: t.predicate.map { SwiftLiterals.string($0.source.text) } ?? "", hasPredicate: t.predicate != nil,
            sortLiterals: ListItemView.list(t.sortDescriptors.map { SwiftLiterals.string($0.source.text) }), hasSort: !t.sortDescriptors.isEmpty,
            limit: t.limit?.value ?? 0, hasLimit: t.limit != nil, offset: t.offset?.value ?? 0, hasOffset: t.offset != nil,
            groupByLiterals: ListItemView.list(t.groupBy.map { SwiftLiterals.string($0.descriptor.keyPathText) }), hasGroupBy: !t.groupBy.isEmpty,
            columnLiterals: ListItemView.list(t.columns.map(columnLiteral)), hasColumns: !t.columns.isEmpty,
            havingLiteral: t.having.map { SwiftLiterals.string($0.source.text) } ?? "", hasHaving: t.having != nil,
            propertyLiterals: ListItemView.list(t.properties.map(projectedLiteral)), hasProperties: t.isProjection)
    }

    /// A projection template's value as the runtime's `ProjectedProperty`: a key path's string, or
    /// `.first(keyPath, by: [...], as: name)` for a first member.
    func projectedLiteral(_ projected: ProjectedKeyPath) -> String {
        let path = SwiftLiterals.string(projected.descriptor.keyPathText)
        guard let order = projected.memberOrder else { return path }
        let by = order.map { ".init(\(SwiftLiterals.string($0.descriptor.keyPathText))\($0.descriptor.ascending ? "" : ", ascending: false"))" }
        return ".first(\(path)" + (by.isEmpty ? "" : ", by: [\(by.joined(separator: ", "))]") + (projected.name.map { ", as: " + SwiftLiterals.string($0.value) } ?? "") + ")"
    }

    /// A column of an aggregate template as the runtime's `AggregateColumn` (the validator checked its form).
    func columnLiteral(_ column: AggregateColumnDeclaration) -> String {
        guard case .function(let name, let arguments) = column.expression.expression.kind else { return "" }
        let function = AggregateColumnDeclaration.functions[name] ?? name
        var keyPath = ""
        if case .keyPath(let components)? = arguments.first?.kind { keyPath = ", of: " + SwiftLiterals.string(components.keyPathText) }
        return "AggregateColumn(\(SwiftLiterals.string(column.name.value)), .\(function)\(keyPath))"
    }

    func configurationViews() -> [ConfigurationView] {
        let configurations = model.configurations
        return configurations.enumerated().map { index, c in
            ConfigurationView(nameLiteral: SwiftLiterals.string(c.name.value),
                              entityLiterals: ListItemView.list(c.entities.map { SwiftLiterals.string($0.value) }),
                              isLast: index == configurations.count - 1)
        }
    }

    func fetchHelper(_ t: FetchRequestTemplate) -> FetchHelperView {
        var parameters = (variables[t.name.value] ?? []).map { v in
            let name = SwiftLiterals.identifier(v.parameterName)
            return ParameterView(name: name, type: v.type.swiftTypeName(className: className),
                                 keyLiteral: SwiftLiterals.string(v.name), isLast: false)
        }
        if !parameters.isEmpty { parameters[parameters.count - 1].isLast = true }
        var doc = t.doc.map { $0 + "\n\n" } ?? ""
        doc += "Fetch request template `\(t.name.value)`" + (t.predicate.map { ": `\($0.source.text)`" } ?? "") + "."
        if t.isAggregate {
            doc += t.groupBy.isEmpty ? " One row for every matching record." : " A row per group of " + t.groupBy.map { "`\($0.descriptor.keyPathText)`" }.joined(separator: ", ") + "."
        } else if t.isProjection {
            doc += " A row of " + t.properties.map { ($0.memberOrder != nil ? "the first " : "") + "`\($0.descriptor.keyPathText)`" }.joined(separator: ", ")
                + " per matching record."
        }
        let rowType = t.isAggregate || t.isProjection ? t.rowTypeName : ""
        let fields = (aggregateRows[t.name.value] ?? []).map { field in
            RowFieldView(name: SwiftLiterals.identifier(field.propertyName), type: field.swiftType + (field.isOptional ? "?" : ""),
                         keyLiteral: SwiftLiterals.string(field.key), isOptional: field.isOptional, summary: field.summary)
        }
        return FetchHelperView(name: SwiftLiterals.identifier(t.functionName.value), templateName: t.name.value,
                               resultClass: className(t.entity.value), parameters: parameters, hasParameters: !parameters.isEmpty,
                               documentation: DocLineView.lines(doc), isAggregate: t.isAggregate, isProjection: t.isProjection && !t.isAggregate,
                               rowType: rowType, rowFields: fields)
    }
}
