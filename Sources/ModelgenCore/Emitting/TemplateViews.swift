import Mustache

// The context templates receive (documented in docs/templates.md: TemplateContextDocsTests keeps the two in step).
// Every name, type, literal and flag is computed here, so templates stay logic-less.

/// One line of a doc comment's text (line breaks and invisible characters already made safe for a
/// `///` comment by SwiftLiterals): templates write `///` and, unless the line is empty, a space and the text.
struct DocLineView: MustacheParent, Sendable {
    /// The line's text.
    var text: String
    /// True for an empty line (written `///` alone, without a trailing space).
    var isEmpty: Bool

    /// The lines of a `doc` text; none for no text.
    static func lines(_ text: String?) -> [DocLineView] {
        guard let text, !text.isEmpty else { return [] }
        return SwiftLiterals.commentLines(text).map { DocLineView(text: $0, isEmpty: $0.isEmpty) }
    }

    /// The lines written out with `///` at an indentation, as the deprecated `docLines` gives them.
    static func written(_ lines: [DocLineView], indent: String) -> [String] {
        lines.map { $0.written(indent: indent) }
    }

    /// The line written out with `///` at an indentation (no trailing space when empty).
    func written(indent: String) -> String {
        isEmpty ? indent + "///" : indent + "/// " + text
    }

    func child(named: String) -> Any? {
        switch named {
        case "text": return TemplateValue(text)
        case "isEmpty": return isEmpty
        default: return nil
        }
    }
}

/// A generated property: an attribute, a relationship or a fetched property.
struct PropertyView: MustacheParent, Sendable {
    /// The Swift name, in backticks when it is a keyword.
    var name: String
    /// The name as written in the model (for key constants and messages).
    var key: String
    /// The Swift type of the property.
    var type: String
    /// The storage slot.
    var slot: Int
    /// The lines of the `doc` text (with, for attributes, the derivation; for fetched properties, the predicate).
    var documentation: [DocLineView]
    /// The documentation written out as `///` lines (deprecated `docLines`).
    var docLines: [String] { DocLineView.written(documentation, indent: "    ") }
    /// Declared as `@Managed(slot: slot) var name: type` (class mode, `propertyStyle: managed`); read-only
    /// ones (derived attributes) get `private(set)`.
    var isManaged: Bool
    /// A computed property reading `getterName(at: slot)` (and writing `setterName(newValue, at: slot)`
    /// unless read-only): extension mode, `propertyStyle: accessors`, fetched properties; the names are
    /// filled in for managed properties too.
    var isComputed: Bool
    /// No setter (derived attributes, fetched properties).
    var isReadOnly: Bool
    /// Fetched properties: the getter throws (`try fetchedObjects(forProperty: keyLiteral)`).
    var isThrowing: Bool
    /// The runtime's accessor for the property's kind of value (`managedValue`, `relatedSet`, …).
    var getterName: String
    /// Its setter (`setManagedValue`, `setRelatedSet`, …).
    var setterName: String
    /// `key` as a Swift string literal.
    var keyLiteral: String
    /// The getter's call written out (`managedValue(at: 3)`; `try fetchedObjects(forProperty: "x")` when
    /// throwing); empty without a getter. The formatter's accessors and the deprecated `getter`.
    var getterCall: String {
        isThrowing ? "try " + getterName + "(forProperty: " + keyLiteral + ")" : getterName.isEmpty ? "" : getterName + "(at: " + String(slot) + ")"
    }
    /// The setter's call written out (`setManagedValue(newValue, at: 3)`); empty without a setter.
    /// The formatter's accessors and the deprecated `setter`.
    var setterCall: String {
        setterName.isEmpty ? "" : setterName + "(newValue, at: " + String(slot) + ")"
    }
    /// To-many helpers: `addToTags(_:)`, `removeFromTags(_:)`, and for ordered ones `insertIntoPosts(_:at:)`.
    var isToMany: Bool
    var isOrdered: Bool
    var elementType: String
    var addName: String
    var removeName: String
    var insertName: String
    /// Computed properties: the function of the user's code that computes the value (`computeFullName`).
    var computeName: String = ""
    /// The entity's `access` again (`public `, `package ` or empty): found here, a template's
    /// `{{access}}` inside `{{#properties}}` or `{{#keys}}` needs no climb up the context stack.
    var access: String = ""

    func child(named: String) -> Any? {
        // The names templates look up for every property first (the built-in template's three, then the
        // explicit template's): a string switch tries its cases in turn (`access` last cost twenty failed
        // comparisons, twice per property).
        switch named {
        case "declaration": return TemplateValue(SwiftFormatter.declaration(of: self))
        case "keyDeclaration": return TemplateValue(SwiftFormatter.keyDeclaration(of: self))
        case "collectionFunctions": return TemplateValue(SwiftFormatter.collectionFunctions(of: self))
        case "name": return TemplateValue(name)
        case "access": return TemplateValue(access)
        case "type": return TemplateValue(type)
        case "slot": return TemplateValue(slot)
        case "isManaged": return isManaged
        case "documentation": return documentation
        case "isReadOnly": return isReadOnly
        case "key": return TemplateValue(key)
        case "docLines": return docLines   // deprecated
        case "isComputed": return isComputed
        case "isThrowing": return isThrowing
        case "getterName": return TemplateValue(getterName)
        case "setterName": return TemplateValue(setterName)
        case "keyLiteral": return TemplateValue(keyLiteral)
        // Deprecated (the calls written out, as before `getterName`/`setterName`): kept so custom
        // templates of earlier releases still render; docs/templates.md lists them as such.
        case "getter": return TemplateValue(getterCall)
        case "setter": return TemplateValue(setterCall)
        case "isToMany": return isToMany
        case "isOrdered": return isOrdered
        case "elementType": return TemplateValue(elementType)
        case "addName": return TemplateValue(addName)
        case "removeName": return TemplateValue(removeName)
        case "insertName": return TemplateValue(insertName)
        case "computeName": return TemplateValue(computeName)
        default: return nil
        }
    }
}

/// A parameter of a generated function or initializer.
struct ParameterView: MustacheParent, Sendable {
    /// The parameter's Swift name (keywords in backticks).
    var name: String
    /// Its Swift type.
    var type: String
    /// For a fetch helper: the `$VARIABLE`'s name as a Swift string literal (`"MIN_LIKES"`); empty in initializers.
    var keyLiteral: String
    /// True for the last parameter (no comma after it).
    var isLast: Bool

    func child(named: String) -> Any? {
        switch named {
        case "name": return TemplateValue(name)
        case "type": return TemplateValue(type)
        case "keyLiteral": return TemplateValue(keyLiteral)
        case "isLast": return isLast
        // Deprecated (written out, as before `name`/`type`/`keyLiteral`), for custom templates of earlier releases.
        case "declaration": return TemplateValue("\(name): \(type)")
        case "use": return TemplateValue(keyLiteral.isEmpty ? "self.\(name) = \(name)" : "\(keyLiteral): \(name)")
        default: return nil
        }
    }
}

/// A generated class (class mode), extension (extension mode), or nothing (none).
struct EntityView: MustacheParent, Sendable {
    var entityName: String
    var className: String
    /// `ManagedObject`, or the parent entity's class.
    var superclassName: String
    /// `final class` for leaf entities, `class` for entities with subentities.
    var classKeyword: String
    /// `public `, `package ` or empty, with its trailing space.
    var access: String
    /// The lines of the `doc` text.
    var documentation: [DocLineView]
    /// The documentation written out as `///` lines (deprecated `docLines`).
    var docLines: [String] { DocLineView.written(documentation, indent: "") }
    var isClassMode: Bool
    var isExtensionMode: Bool
    /// A final class-mode class whose superclasses are generated too: nothing can override a method of
    /// it (an extension cannot), so it tells the runtime that it has no `validateValue(_:forKey:)` and
    /// no `awakeFromFetch()` of its own, and saves and fetches skip those hooks for its objects.
    var isFinalGeneratedClass: Bool
    /// Properties the entity declares (inherited ones come from the parent's class).
    var properties: [PropertyView]
    /// The to-many relationships among `properties` (their add/remove/insert functions).
    var toManyProperties: [PropertyView]
    /// Computed properties with dependencies (`computed:`): each reads `compute<Name>()` of the user's code.
    var computedProperties: [PropertyView]
    /// Key-name constants for every property, inherited included.
    var keys: [PropertyView]
    /// Required values without defaults (inherited first): the initializer's parameters.
    var initParameters: [ParameterView]
    var hasInitParameters: Bool
    /// The file name of the entity's generated file.
    var fileName: String
    /// Where the entity's class is named in the model (not a template value).
    var origin: SourceLocation

    func child(named: String) -> Any? {
        switch named {
        case "entityName": return TemplateValue(entityName)
        case "className": return TemplateValue(className)
        case "superclassName": return TemplateValue(superclassName)
        case "classKeyword": return TemplateValue(classKeyword)
        case "access": return TemplateValue(access)
        case "documentation": return documentation
        case "docLines": return docLines   // deprecated
        case "isClassMode": return isClassMode
        case "isExtensionMode": return isExtensionMode
        case "isFinalGeneratedClass": return isFinalGeneratedClass
        case "hasNoValueValidation": return isFinalGeneratedClass   // its earlier name
        case "properties": return properties.asObjects
        case "toManyProperties": return toManyProperties.asObjects
        case "computedProperties": return computedProperties.asObjects
        case "keys": return keys.asObjects
        case "initParameters": return initParameters.asObjects
        case "hasInitParameters": return hasInitParameters
        case "fileName": return TemplateValue(fileName)
        default: return nil
        }
    }
}

/// A typed function for a fetch request template.
struct FetchHelperView: MustacheParent, Sendable {
    /// The Swift function name (the template's name).
    var name: String
    /// The template's name as written in the model.
    var templateName: String
    var resultClass: String
    var parameters: [ParameterView]
    var hasParameters: Bool
    /// The lines of the `doc` text.
    var documentation: [DocLineView]
    /// True for a template with `groupBy` or `columns`: the function returns a typed aggregate request.
    var isAggregate: Bool = false
    /// True for a template with `properties`: the function returns a typed projection request.
    var isProjection: Bool = false
    /// An aggregate or projection template's row type (`PagesPerWriterRow`); empty otherwise.
    var rowType: String = ""
    /// An aggregate template's row properties (group keys, then columns), or a projection template's.
    var rowFields: [RowFieldView] = []
    /// The documentation written out as `///` lines (deprecated `docLines`).
    var docLines: [String] { DocLineView.written(documentation, indent: "    ") }

    func child(named: String) -> Any? {
        switch named {
        case "name": return TemplateValue(name)
        case "templateName": return TemplateValue(templateName)
        case "resultClass": return TemplateValue(resultClass)
        case "parameters": return parameters.asObjects
        case "hasParameters": return hasParameters
        case "isAggregate": return isAggregate
        case "isProjection": return isProjection
        case "rowType": return TemplateValue(rowType)
        case "rowFields": return rowFields.asObjects
        case "documentation": return documentation
        case "docLines": return docLines   // deprecated
        default: return nil
        }
    }
}

/// A field of a composite struct.
struct CompositeFieldView: MustacheParent, Sendable {
    /// The Swift name, in backticks when it is a keyword.
    var name: String
    /// The name as written in the model.
    var key: String
    /// The Swift type (`String`, `Int16?`, `GeoPoint`).
    var type: String
    /// The initializer's default for the field (`nil`, a literal), or empty when the caller must pass it.
    var defaultValue: String
    var hasDefault: Bool
    /// The field holds another composite (read with `fields.composite()`, written with `putComposite`).
    var isComposite: Bool
    var isOptional: Bool
    /// The lines of the `doc` text.
    var documentation: [DocLineView]
    /// The documentation written out as `///` lines (deprecated `docLines`).
    var docLines: [String] { DocLineView.written(documentation, indent: "    ") }
    /// True for the last field (no comma after it).
    var isLast: Bool
    /// The model's access level again (`public `, `package ` or empty), as in `PropertyView`.
    var access: String

    func child(named: String) -> Any? {
        switch named {
        case "name": return TemplateValue(name)
        case "key": return TemplateValue(key)
        case "type": return TemplateValue(type)
        case "defaultValue": return TemplateValue(defaultValue)
        case "hasDefault": return hasDefault
        case "isComposite": return isComposite
        case "isOptional": return isOptional
        case "documentation": return documentation
        case "docLines": return docLines   // deprecated
        case "isLast": return isLast
        case "access": return TemplateValue(access)
        default: return nil
        }
    }
}

/// A composite type: a generated struct and its `ManagedComposite` conformance.
struct CompositeView: MustacheParent, Sendable {
    /// The struct's name.
    var name: String
    var access: String
    /// The lines of the `doc` text.
    var documentation: [DocLineView]
    /// The documentation written out as `///` lines (deprecated `docLines`).
    var docLines: [String] { DocLineView.written(documentation, indent: "") }
    var fields: [CompositeFieldView]
    var hasFields: Bool
    /// The storage slots a value takes (its flattened fields).
    var slotCount: Int

    func child(named: String) -> Any? {
        switch named {
        case "name": return TemplateValue(name)
        case "access": return TemplateValue(access)
        case "documentation": return documentation
        case "docLines": return docLines   // deprecated
        case "fields": return fields.asObjects
        case "hasFields": return hasFields
        case "slotCount": return TemplateValue(slotCount)
        default: return nil
        }
    }
}

/// One element of a list a template joins with commas: its text and whether it is the last.
struct ListItemView: MustacheParent, Sendable {
    /// The element (an identifier or a Swift literal, as the list says).
    var value: String
    /// True for the last element (no comma after it).
    var isLast: Bool

    /// Items of `values`, the last one marked.
    static func list(_ values: [String]) -> [ListItemView] {
        values.enumerated().map { ListItemView(value: $1, isLast: $0 == values.count - 1) }
    }

    func child(named: String) -> Any? {
        switch named {
        case "value": return TemplateValue(value)
        case "isLast": return isLast
        default: return nil
        }
    }
}

/// A property of an aggregate or projection template's row type.
struct RowFieldView: MustacheParent, Sendable {
    /// The property's Swift name.
    var name: String
    /// Its Swift type, `?` included when optional.
    var type: String
    /// The name the runtime's `AggregateRow` or `ProjectedRow` gives its value, as a Swift string literal.
    var keyLiteral: String
    /// False for counts, which always have a value, and for projected values the model does not let be nil.
    var isOptional: Bool
    /// What it holds (`group key \`writer.name\``, `\`sum:(pages)\``), for its doc comment.
    var summary: String

    func child(named: String) -> Any? {
        switch named {
        case "name": return TemplateValue(name)
        case "type": return TemplateValue(type)
        case "keyLiteral": return TemplateValue(keyLiteral)
        case "isOptional": return isOptional
        case "summary": return TemplateValue(summary)
        default: return nil
        }
    }
}

/// A fetch request template of the model description (`FetchRequestTemplate(…)`).
struct FetchTemplateView: MustacheParent, Sendable {
    /// The template's name as a Swift string literal.
    var nameLiteral: String
    /// Its entity's name as a Swift string literal.
    var entityLiteral: String
    /// The predicate as a Swift string literal; empty without one.
    var predicateLiteral: String
    var hasPredicate: Bool
    /// The sort descriptors as Swift string literals.
    var sortLiterals: [ListItemView]
    var hasSort: Bool
    /// The fetch limit and offset (0 and `hasLimit`/`hasOffset` false when not given).
    var limit: Int
    var hasLimit: Bool
    var offset: Int
    var hasOffset: Bool
    /// An aggregate template's group key paths, as Swift string literals.
    var groupByLiterals: [ListItemView] = []
    var hasGroupBy = false
    /// An aggregate template's columns, as `AggregateColumn(…)` expressions.
    var columnLiterals: [ListItemView] = []
    var hasColumns = false
    /// An aggregate template's having predicate, as a Swift string literal; empty without one.
    var havingLiteral = ""
    var hasHaving = false
    /// A projection template's key paths, as Swift string literals.
    var propertyLiterals: [ListItemView] = []
    var hasProperties = false

    /// The expression written out, as `templateDescriptions` (deprecated) gives it.
    var expression: String {
        var text = "FetchRequestTemplate(\(nameLiteral), entity: \(entityLiteral)"
        if hasPredicate { text += ", predicate: \(predicateLiteral)" }
        if hasSort { text += ", sort: [\(sortLiterals.map(\.value).joined(separator: ", "))]" }
        if hasLimit { text += ", limit: \(limit)" }
        if hasOffset { text += ", offset: \(offset)" }
        if hasGroupBy { text += ", groupBy: [\(groupByLiterals.map(\.value).joined(separator: ", "))]" }
        if hasColumns { text += ", columns: [\(columnLiterals.map(\.value).joined(separator: ", "))]" }
        if hasHaving { text += ", having: \(havingLiteral)" }
        if hasProperties { text += ", properties: [\(propertyLiterals.map(\.value).joined(separator: ", "))]" }
        return text + ")"
    }

    func child(named: String) -> Any? {
        switch named {
        case "nameLiteral": return TemplateValue(nameLiteral)
        case "entityLiteral": return TemplateValue(entityLiteral)
        case "predicateLiteral": return TemplateValue(predicateLiteral)
        case "hasPredicate": return hasPredicate
        case "sortLiterals": return sortLiterals
        case "hasSort": return hasSort
        case "limit": return TemplateValue(limit)
        case "hasLimit": return hasLimit
        case "offset": return TemplateValue(offset)
        case "hasOffset": return hasOffset
        case "groupByLiterals": return groupByLiterals
        case "hasGroupBy": return hasGroupBy
        case "columnLiterals": return columnLiterals
        case "hasColumns": return hasColumns
        case "havingLiteral": return TemplateValue(havingLiteral)
        case "hasHaving": return hasHaving
        case "propertyLiterals": return propertyLiterals
        case "hasProperties": return hasProperties
        default: return nil
        }
    }
}

/// A configuration of the model description: its name and entities.
struct ConfigurationView: MustacheParent, Sendable {
    /// The configuration's name as a Swift string literal.
    var nameLiteral: String
    /// Its entities' names as Swift string literals.
    var entityLiterals: [ListItemView]
    /// True for the last configuration (no comma after it).
    var isLast: Bool

    func child(named: String) -> Any? {
        switch named {
        case "nameLiteral": return TemplateValue(nameLiteral)
        case "entityLiterals": return entityLiterals
        case "isLast": return isLast
        default: return nil
        }
    }
}

/// A `swiftType` a `@Managed` property holds, which generated code conforms to the runtime's protocol.
struct ValueTypeView: MustacheParent, Sendable {
    /// The Swift type's name as the model writes it (`PostStatus`, `Geometry.Rect`).
    var typeName: String
    /// Stored as its raw value (`ManagedRawValue`): a string or integer attribute's `swiftType`.
    var isRawValue: Bool
    /// Held as a transformable value (`ManagedTransformable`): a transformable or undefined attribute's.
    var isTransformable: Bool
    /// An undefined attribute's type (a value code sets, never stored).
    var isUndefined: Bool

    /// The conformance written out with its doc line, as `valueConformances` (deprecated) gives it.
    var declaration: String {
        if isRawValue { return "/// Lets `@Managed` properties hold `\(typeName)` (stored as its raw value).\nextension \(typeName): ModelgenRuntime.ManagedRawValue {}" }
        return "/// Lets `@Managed` properties hold `\(typeName)` (a \(isUndefined ? "value of an undefined attribute" : "transformable value")).\nextension \(typeName): ModelgenRuntime.ManagedTransformable {}"
    }

    func child(named: String) -> Any? {
        switch named {
        case "typeName": return TemplateValue(typeName)
        case "isRawValue": return isRawValue
        case "isTransformable": return isTransformable
        case "isUndefined": return isUndefined
        default: return nil
        }
    }
}

/// The whole model: what `model.mustache` and the file templates receive.
struct ModelView: MustacheParent, Sendable {
    var modelName: String
    /// `<Model>Model`, the generated model type.
    var typeName: String
    /// The hash of what stores keep (`ObjectModel.versionHash`, the runtime's `ManagedObjectModel.versionHash`).
    var versionHash: String
    /// The model file's path as given (relative paths stay relative).
    var sourcePath: String
    /// Extra modules to import.
    var imports: [String]
    var access: String
    /// `static let Name: EntityDescription = EntityDescription(…)` declarations, one per entity, each one text.
    var entityDescriptions: [String]
    /// The generated `Entities` namespace's members (`person`, `post`), in declaration order.
    var entityMembers: [ListItemView]
    /// The fetch request templates, for the model description.
    var fetchTemplates: [FetchTemplateView]
    /// The configurations, for the model description.
    var configurations: [ConfigurationView]
    var fetchHelpers: [FetchHelperView]
    /// Each `swiftType` held by a `@Managed` property, once, in order of first use.
    var valueTypes: [ValueTypeView]
    /// Composite types: a struct each, with its conformance.
    var composites: [CompositeView]
    /// Entities with class or extension code (none-mode entities have no generated Swift).
    var entities: [EntityView]
    /// True when everything goes into one file.
    var isSingleFile: Bool

    func child(named: String) -> Any? {
        switch named {
        case "modelName": return TemplateValue(modelName)
        case "typeName": return TemplateValue(typeName)
        case "versionHash": return TemplateValue(versionHash)
        case "sourcePath": return TemplateValue(sourcePath)
        case "imports": return imports
        case "access": return TemplateValue(access)
        case "entityDescriptions": return entityDescriptions.map { DescriptionLines(text: $0) }
        case "entityMembers": return entityMembers
        case "fetchTemplates": return fetchTemplates.asObjects
        case "hasFetchTemplates": return !fetchTemplates.isEmpty
        case "configurations": return configurations.asObjects
        case "hasConfigurations": return !configurations.isEmpty
        // Deprecated (written out, as before the lists above), for custom templates of earlier releases.
        case "entityList": return TemplateValue(entityMembers.map { "Entities." + $0.value }.joined(separator: ", "))
        case "templateDescriptions": return fetchTemplates.map(\.expression)
        case "configurationsLiteral":
            if configurations.isEmpty { return TemplateValue("[:]") }
            return TemplateValue("[" + configurations.map { c in "\(c.nameLiteral): [" + c.entityLiterals.map(\.value).joined(separator: ", ") + "]" }
                .joined(separator: ", ") + "]")
        case "fetchHelpers": return fetchHelpers.asObjects
        case "valueTypes": return valueTypes.asObjects
        // Deprecated (the conformances written out, each with its doc line), for custom templates of earlier releases.
        case "valueConformances": return valueTypes.map(\.declaration)
        case "composites": return composites.asObjects
        case "entities": return entities.asObjects
        case "isSingleFile": return isSingleFile
        default: return nil
        }
    }
}

/// One entity's description declaration: its lines, or all of them as one text.
struct DescriptionLines: MustacheParent {
    /// The declaration as the formatter writes it: lines after the first indented by
    /// `SwiftFormatter.builtinIndent`, where the built-in template writes it.
    var text: String
    /// The lines, without that indentation (only a custom template asks for them).
    var lines: [String] {
        let indent = SwiftFormatter.builtinIndent
        return text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            index == 0 ? String(line) : String(line.dropFirst(indent.count))
        }
    }
    func child(named: String) -> Any? {
        switch named {
        case "lines": return lines
        // The built-in template writes each declaration as one value, not a section per line (a large
        // model has tens of thousands of such lines).
        case "text": return TemplateValue(text)
        default: return nil
        }
    }
}

/// One file's context: the model plus, for entity files, the entity (handed to the engine as a
/// `ViewObject`, as every view is).
struct FileView: MustacheParent, Sendable {
    let model: ModelView
    let entity: EntityView?

    func child(named: String) -> Any? {
        if named == "entity" { return entity }
        if let entity, let value = entity.child(named: named) { return value }
        return model.child(named: named)
    }
}

/// A view handed to swift-mustache as one reference. The engine casts the object at each level of its
/// context stack for every tag it looks up, and a cast copies it: a view struct would be copied whole
/// (a property's view: a dozen strings retained and released; a file's: the model's and the entity's
/// views), this only retains its storage. And a struct, not a class, because the runtime casts an
/// object at twice the cost (it also checks whether it is Foundation's box of a Swift value). The
/// views stay plain structs for building and reading; they reach templates wrapped.
struct ViewObject<View: MustacheParent & Sendable>: MustacheParent, Sendable {
    private final class Storage: Sendable {
        let view: View

        init(_ view: View) { self.view = view }
    }

    private let storage: Storage

    init(_ view: View) { storage = Storage(view) }

    func child(named name: String) -> Any? { storage.view.child(named: name) }
}

extension Array where Element: MustacheParent & Sendable {
    /// The views as objects for the engine (`ViewObject`).
    var asObjects: [ViewObject<Element>] { map(ViewObject.init) }
}
