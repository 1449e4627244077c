import Foundation
import ModelgenPredicate

/// A property of the row type generated for an aggregate fetch request template.
public struct AggregateRowField: Sendable, Hashable {
    /// The Swift property name (`writerName` for the group key `writer.name`).
    public var propertyName: String
    /// The name the runtime's `AggregateRow` gives the value (the group key path, or the column's name).
    public var key: String
    /// The Swift type, without optionality (`String`, `Int64`, `ObjectID`).
    public var swiftType: String
    /// False only for counts, which always have a value.
    public var isOptional: Bool
    /// What it holds, for its doc comment (`writer.name`, `sum:(pages)`).
    public var summary: String
}

extension ModelValidator {
    /// Checks an aggregate template's group key paths, columns, having predicate and sort (which names
    /// group keys and columns), and works out its row's fields; `variables` are its predicate's, and
    /// gain the having predicate's.
    func checkAggregate(_ template: FetchRequestTemplate, variables: inout [(name: String, type: PredicateValueType)]) -> [AggregateRowField] {
        let entity = template.entity.value
        for (key, count) in [("limit", template.limit), ("offset", template.offset)] {
            if let count {
                error(.inapplicableOption, "an aggregate template (one with groupBy or columns) gives groups, which have no \(key); filter them with having", at: count.location)
            }
        }
        checkRowTypeName(of: template)
        var fields: [AggregateRowField] = []
        var types: [String: PredicateValueType] = [:]
        var propertyNames: [String: String] = [:]
        func add(_ field: AggregateRowField, type: PredicateValueType, at location: SourceLocation) {
            if let other = propertyNames[field.propertyName] {
                error(.nameCollision, "'\(field.key)' and '\(other)' both become the row property '\(field.propertyName)'; rename the column", at: location)
                return
            }
            propertyNames[field.propertyName] = field.key
            types[field.key] = type
            fields.append(field)
        }

        for parsed in template.groupBy {
            let descriptor = parsed.descriptor
            let location = parsed.source.location(atOffset: descriptor.range.start)
            guard hasNoDirection(parsed, "a group key path has no direction; order the groups with sort") else { continue }
            let checker = PredicateChecker(validator: self, entity: entity, source: parsed.source, policy: .inferred)
            guard let resolved = checker.resolveKeyPath(descriptor.keyPath, from: entity, purpose: .groupKey) else { continue }
            // Through a to-many relationship: a group per member (the members' values).
            let type: PredicateValueType
            if case .collection(let member) = resolved { type = member } else { type = resolved }
            let swiftType: String
            switch type {
            case .object: swiftType = "ObjectID"
            case .attribute(let attribute, _) where Self.groupable(attribute):
                swiftType = attribute.swiftTypeName!
            default:
                error(.predicateTypeMismatch, "cannot group by '\(descriptor.keyPathText)': \(type) values do not make groups (group by numbers, strings, Booleans, dates, UUIDs, URLs or a relationship)",
                      at: location)
                continue
            }
            add(AggregateRowField(propertyName: Self.rowPropertyName(descriptor.keyPath), key: descriptor.keyPathText, swiftType: swiftType, isOptional: true,
                                  summary: "Group key `\(descriptor.keyPathText)`"),
                type: type, at: location)
        }

        for column in template.columns {
            let name = column.name
            guard checkRowPropertyName(name, "column name '\(name.value)'", fix: "rename the column") else { continue }
            guard let (field, type) = checkColumn(column, entity: entity) else { continue }
            add(field, type: type, at: name.location)
        }

        if let having = template.having {
            var checker = PredicateChecker(validator: self, entity: entity, source: having.source, policy: .inferred)
            checker.rowNames = types
            checker.assume(variables)
            checker.check(having.predicate)
            variables = checker.variables
        }
        for parsed in template.sortDescriptors where types[parsed.descriptor.keyPathText] == nil {
            let known = types.keys.sorted()
            let notes = Suggestions.note(for: parsed.descriptor.keyPathText, in: known).map { [Diagnostic.Note($0)] } ?? []
            error(.unknownKeyPath, "an aggregate template sorts its groups by their keys and columns\(known.isEmpty ? "" : " (\(known.joined(separator: ", ")))"); '\(parsed.descriptor.keyPathText)' is neither",
                  at: parsed.source.location(atOffset: parsed.descriptor.range.start), notes: notes)
        }
        return fields
    }

    /// Reports a row type (an aggregate or projection template's) that is an entity's class name.
    func checkRowTypeName(of template: FetchRequestTemplate) {
        let rowType = template.rowTypeName
        if let entity = model.entities.first(where: { $0.swiftClassName == rowType }) {
            error(.nameCollision, "fetch request '\(template.name.value)' generates the row type '\(rowType)', which is the class of entity '\(entity.name.value)'; give the template another swiftName",
                  at: template.functionName.location)
        }
    }

    /// Whether a group or projected key path is written without a direction; reports `message` at it otherwise.
    func hasNoDirection(_ parsed: ParsedSortDescriptor, _ message: String) -> Bool {
        guard parsed.source.text.trimmingCharacters(in: .whitespaces) == parsed.descriptor.keyPathText else {
            error(.invalidKeyPath, message, at: parsed.source.location(atOffset: parsed.descriptor.range.start))
            return false
        }
        return true
    }

    /// Whether `name` can name a property of a generated row struct (a lower-camel identifier, not one
    /// of `reservedRowMembers`); reports why not, naming it as `what`, with `fix` for a reserved name.
    func checkRowPropertyName(_ name: Located<String>, _ what: String, fix: String) -> Bool {
        if !SwiftNames.isIdentifier(name.value) || !SwiftNames.startsLowerCase(name.value) {
            error(.invalidIdentifier, "\(what) must be a lower-camel Swift identifier: it names a property of the row", at: name.location)
            return false
        }
        if Self.reservedRowMembers.contains(name.value) {
            error(.reservedName, "\(what) is taken in the generated row struct (self, and Hashable's hashValue); \(fix)", at: name.location)
            return false
        }
        return true
    }

    /// The row property of a key path: its keys joined in lower camel case (`writer.name` → `writerName`).
    static func rowPropertyName(_ keyPath: [KeyPathComponent]) -> String {
        keyPath.enumerated().map { index, component in
            index == 0 ? component.text : component.text.prefix(1).uppercased() + component.text.dropFirst()
        }.joined()
    }

    /// Names a property of the generated row struct cannot have (`self`, and `Hashable`'s `hashValue`).
    static let reservedRowMembers: Set<String> = ["self", "hashValue"]

    /// Whether an attribute's values can be a group key.
    static func groupable(_ type: AttributeType) -> Bool {
        type.isNumeric || [.string, .bool, .date, .uuid, .uri].contains(type)
    }

    /// A column's row field and its type in the having predicate; nil after reporting an error.
    private func checkColumn(_ column: AggregateColumnDeclaration, entity: String) -> (AggregateRowField, PredicateValueType)? {
        let expression = column.expression.expression
        let source = column.expression.source
        let name = column.name.value
        func report(_ message: String, at range: SourceRange) {
            error(.unsupportedFunction, message, at: source.location(atOffset: range.start))
        }
        let functions = AggregateColumnDeclaration.functions.keys.sorted().map { $0 == "count" ? "count()" : "\($0):(…)" }.joined(separator: ", ")
        guard case .function(let function, let arguments) = expression.kind, AggregateColumnDeclaration.functions[function] != nil else {
            report("column '\(name)' is one of \(functions) over a key path, as in sum:(pages); found '\(expression)'", at: expression.range)
            return nil
        }
        if function == "count" && arguments.isEmpty {
            let field = AggregateRowField(propertyName: name, key: name, swiftType: "Int", isOptional: false,
                                          summary: "`count()`: the number of records")
            return (field, .attribute(.int64, swiftType: nil))
        }
        guard arguments.count == 1, case .keyPath(let components) = arguments[0].kind else {
            report("\(function):() takes one key path of '\(entity)'\(function == "count" ? " (or none, count(), to count the records)" : ""), as in \(function):(pages)", at: expression.range)
            return nil
        }
        let checker = PredicateChecker(validator: self, entity: entity, source: source, policy: .inferred)
        guard let type = checker.resolveKeyPath(components, from: entity, purpose: .aggregate) else { return nil }
        let path = components.keyPathText
        guard case .attribute(let attribute, _) = type else {
            if function == "count", case .object = type {
                // count:(writer): the records with a related object.
            } else {
                report("\(function):() needs an attribute, but '\(path)' is \(type)", at: arguments[0].range)
                return nil
            }
            let field = AggregateRowField(propertyName: name, key: name, swiftType: "Int", isOptional: false, summary: "`count:(\(path))`")
            return (field, .attribute(.int64, swiftType: nil))
        }
        let swiftType: String
        let columnType: PredicateValueType
        switch function {
        case "count":
            swiftType = "Int"
            columnType = .attribute(.int64, swiftType: nil)
        case "sum", "average":
            guard attribute.isNumeric else {
                report("\(function):() adds numbers, but '\(path)' is \(attribute.rawValue)", at: arguments[0].range)
                return nil
            }
            // The stores sum integers as integers and other numbers as doubles; a mean is a double.
            swiftType = function == "sum" && attribute.isInteger ? "Int64" : "Double"
            columnType = .attribute(swiftType == "Int64" ? .int64 : .double, swiftType: nil)
        default:
            guard attribute.isNumeric || attribute == .string || attribute == .date else {
                report("\(function):() needs values with an order (numbers, strings, dates), but '\(path)' is \(attribute.rawValue)", at: arguments[0].range)
                return nil
            }
            swiftType = attribute.swiftTypeName!
            columnType = .attribute(attribute, swiftType: nil)
        }
        let field = AggregateRowField(propertyName: name, key: name, swiftType: swiftType, isOptional: function != "count",
                                      summary: "`\(function):(\(path))`")
        return (field, columnType)
    }
}
