import Foundation
import ModelgenPredicate

/// A value a translated query binds, with the attribute type of the column it meets (nil: none).
package struct QueryBinding {
    package var value: StoreValue
    package var columnType: AttributeType?
    /// A value written to its column (a batch update's), bound as the column keeps it rather than as a
    /// comparand (SQLite compares decimals as REAL and keeps them as exact TEXT).
    package var isStored = false
}

/// Translates a store query (predicate, sort descriptors, limit, offset) to one SQL statement over the
/// layout, in a store's dialect: key paths through to-one relationships become scalar subqueries,
/// to-many ones `EXISTS` and aggregate subqueries (`ANY`/`ALL`/`NONE`, `@count`, `@sum`, `@avg`,
/// `@min`, `@max`), string operators and `[c]`/`[d]` call the dialect's functions. What it cannot
/// translate throws `Unsupported`, and the store answers nil (the context then evaluates on
/// objects): an aggregate across two to-many steps (`tags.posts.@count`), a SUBQUERY through a to-one
/// relationship, functions other than `now()`.
package final class SQLQueryTranslator {
    package struct Unsupported: Error { package let reason: String }

    /// What `build` translates, or nil when the query is not expressible in SQL (`Unsupported`: the
    /// context then evaluates it on objects, and `queryPlan` says why). Every other error is thrown:
    /// a translator that fails for another reason must not turn a query into a scan of every record.
    package static func expressible<T>(_ build: () throws -> T) throws -> T? {
        do { return try build() } catch is Unsupported { return nil }
    }
    package struct SQL {
        package var text: String
        package var bindings: [QueryBinding]
    }

    private let layout: SQLLayout
    private let query: StoreQuery
    private let dialect: any SQLDialect
    private var bindings: [QueryBinding] = []
    private var aliases = 0
    /// SUBQUERY variables in scope: the alias and entity of the element each names.
    private var scopes: [String: (alias: String, entity: SQLLayout.Entity)] = [:]
    /// While set (an aggregate's group keys and columns), a key path through a to-one relationship
    /// joins the related table (`LEFT JOIN … ON key`, once per relationship) instead of a scalar
    /// subquery: grouping by `writer.name` then reads each writer once, as hand-written SQL would.
    private var joinsToOne = false
    /// While set (an aggregate's group keys), a key path through a to-many relationship joins its
    /// members (`LEFT JOIN`, once per relationship): a row per link, so each group counts each link
    /// once, and a record without members falls in the nil group.
    private var joinsToMany = false
    /// While set (a projected `.first` property), the next to-many step of a key path reads its first
    /// member in this order (a correlated subquery with `ORDER BY … LIMIT 1`).
    private var firstMemberOrder: [SortDescriptor]?
    private var joins: [String] = []
    private var joinAliases: [String: String] = [:]
    /// While set (an aggregate's HAVING clause), what each group key path and column name stands for:
    /// key paths resolve to these and nothing else.
    private var havingTerms: [String: Term]?

    package init(layout: SQLLayout, query: StoreQuery, dialect: any SQLDialect) {
        self.layout = layout
        self.query = query
        self.dialect = dialect
    }

    /// The query selecting every column of the matching records (`onlyIDs`: their key and entity code).
    package func select(onlyIDs: Bool = false, adding extraColumns: [String] = []) throws -> SQL {
        let entity = try layout.entity(query.entityName)
        let table = layout.tables[entity.table]!
        let columns = (onlyIDs ? ["Z_PK", "Z_ENT"] : table.columns).map { "t0." + Self.quote($0) } + extraColumns
        var text = "SELECT \(columns.joined(separator: ", ")) FROM \(Self.quote(table.name)) t0 WHERE \(try whereClause(entity))"
        text += " ORDER BY " + (try ordering(query.sortDescriptors, alias: "t0", entity: entity) + ["t0.\"Z_PK\""]).joined(separator: ", ")
        text += limitClause()
        return SQL(text: text, bindings: bindings)
    }

    /// What an output of an aggregate or a projection holds: a value of an attribute type, or a
    /// related record (two columns: key and entity code).
    package enum Output {
        case value(AttributeType)
        case object
    }

    /// The selected columns of a value (its SQL) or a record (its key and entity code) and what they
    /// hold; nil for anything else.
    private static func selected(_ term: Term) -> (columns: [String], output: Output)? {
        switch term {
        case .scalar(let sql, let type): return ([sql], .value(type ?? .string))
        case .object(let key, let code): return ([key, "CAST(\(code) AS BIGINT)"], .object)
        default: return nil
        }
    }

    /// The `GROUP BY` terms of a group key (its value, or a record's key and entity code).
    private static func grouped(_ term: Term) -> [String] {
        switch term {
        case .scalar(let sql, _): return [sql]
        case .object(let key, let code): return [key, code]
        default: return []
        }
    }

    /// The grouped aggregate of the matching records: `SELECT keys, aggregates FROM … WHERE … GROUP BY
    /// keys`, with the output columns in order (each group key, then each column).
    package func aggregate(groupBy: [String], columns: [AggregateColumn]) throws -> (sql: SQL, outputs: [Output]) {
        let entity = try layout.entity(query.entityName)
        var selects: [String] = [], groups: [String] = [], outputs: [Output] = []
        joinsToOne = true
        var terms: [String: Term] = [:]
        for path in groupBy {
            joinsToMany = true
            defer { joinsToMany = false }
            let term = try keyPath([KeyPathComponent](dotted: path), alias: "t0", entity: entity)
            terms[path] = term
            guard let (columns, output) = Self.selected(term) else {
                throw Unsupported(reason: "grouping by \(path), which is not a value or a record")
            }
            selects += columns
            groups += Self.grouped(term)
            outputs.append(output)
        }
        for column in columns {
            guard let path = column.keyPath else {
                selects.append("CAST(count(*) AS BIGINT)")
                outputs.append(.value(.int64))
                continue
            }
            guard case .scalar(let sql, let type) = try keyPath([KeyPathComponent](dotted: path), alias: "t0", entity: entity) else {
                throw Unsupported(reason: "an aggregate of \(path), which is not an attribute")
            }
            let integer = type?.isInteger ?? false
            switch column.function {
            case .count:
                selects.append("CAST(count(\(sql)) AS BIGINT)")
                outputs.append(.value(.int64))
            case .sum:
                selects.append(integer ? "CAST(sum(\(sql)) AS BIGINT)" : "CAST(sum(\(sql)) AS DOUBLE PRECISION)")
                outputs.append(.value(integer ? .int64 : .double))
            case .average:
                selects.append("CAST(avg(\(sql)) AS DOUBLE PRECISION)")
                outputs.append(.value(.double))
            case .minimum, .maximum:
                guard let type, type != .decimal, type != .transformable, type != .binary else {
                    throw Unsupported(reason: "the \(column.function.rawValue) of \(path)")
                }
                selects.append("\(column.function == .minimum ? "min" : "max")(\(sql))")
                outputs.append(.value(type))
            }
        }
        joinsToOne = false
        // Each column's expression, by its name, for HAVING (after the group keys: a column shadows none).
        for (column, output) in zip(columns, outputs.suffix(columns.count)) {
            if case .value(let type) = output, let index = columns.firstIndex(where: { $0.name == column.name }) {
                terms[column.name] = .scalar(selects[selects.count - columns.count + index], type)
            }
        }
        let from = ([Self.quote(entity.table) + " t0"] + joins).joined(separator: " ")
        var text = "SELECT \(selects.joined(separator: ", ")) FROM \(from) WHERE \(try whereClause(entity))"
        if !groups.isEmpty { text += " GROUP BY " + groups.joined(separator: ", ") }
        // The groups' filter in SQL when every key path it names is a group key or a column (else the
        // context filters the returned groups alone, and says what the predicate names wrongly).
        if let having = query.having {
            let before = bindings.count
            havingTerms = terms
            defer { havingTerms = nil }
            do {
                text += " HAVING " + (try translate(having, alias: "t0", entity: entity))
            } catch is Unsupported {
                bindings.removeSubrange(before...)
            }
        }
        return (SQL(text: text, bindings: bindings), outputs)
    }

    /// A projection of the matching records: `SELECT key, entity code, values FROM … WHERE … ORDER BY
    /// … LIMIT`, a to-one key path joined once (`LEFT JOIN`), a first member a correlated subquery;
    /// the outputs of the values in order (after the key and entity code).
    package func project(_ properties: [ProjectedProperty]) throws -> (sql: SQL, outputs: [Output]) {
        let entity = try layout.entity(query.entityName)
        var selects = ["t0.\"Z_PK\"", "CAST(t0.\"Z_ENT\" AS BIGINT)"], outputs: [Output] = []
        joinsToOne = true
        for property in properties {
            firstMemberOrder = property.memberOrder
            defer { firstMemberOrder = nil }
            guard let (columns, output) = Self.selected(try keyPath([KeyPathComponent](dotted: property.keyPath), alias: "t0", entity: entity)) else {
                throw RuntimeError.invalidPredicate("projected key path '\(property.keyPath)' crosses a to-many relationship: project a member with .first(_:by:)")
            }
            selects += columns
            outputs.append(output)
        }
        let order = try ordering(query.sortDescriptors, alias: "t0", entity: entity)
        joinsToOne = false
        let from = ([Self.quote(entity.table) + " t0"] + joins).joined(separator: " ")
        let text = "SELECT \(selects.joined(separator: ", ")) FROM \(from) WHERE \(try whereClause(entity)) ORDER BY "
            + (order + ["t0.\"Z_PK\""]).joined(separator: ", ") + limitClause()
        return (SQL(text: text, bindings: bindings), outputs)
    }

    /// The records a query matches, for statements over them, from one translation of its
    /// predicate (both forms take the same bindings).
    package struct Matching {
        /// Their keys (`SELECT t0."Z_PK" …`: no order, the window applied), for a statement over them
        /// (`… WHERE "Z_PK" IN (keys)`).
        package var keys: SQL
        /// What they meet, over the alias `t0`, for a statement on their table alone (`DELETE FROM
        /// table AS t0 WHERE …`); nil when the query has a window (limit or offset), which only the keys apply.
        package var condition: String?
    }

    package func matching() throws -> Matching {
        let entity = try layout.entity(query.entityName)
        let clause = try whereClause(entity)
        let windowed = query.fetchLimit ?? 0 > 0 || query.fetchOffset > 0
        var keys = "SELECT t0.\"Z_PK\" FROM \(Self.quote(entity.table)) t0 WHERE \(clause)"
        if windowed { keys += " ORDER BY t0.\"Z_PK\"" + limitClause() }
        return Matching(keys: SQL(text: keys, bindings: bindings), condition: windowed ? nil : clause)
    }

    package func count() throws -> SQL {
        let entity = try layout.entity(query.entityName)
        let inner = "SELECT 1 FROM \(Self.quote(entity.table)) t0 WHERE \(try whereClause(entity))" + limitClause()
        return SQL(text: "SELECT count(*) FROM (\(inner)) AS counted", bindings: bindings)
    }

    /// `ORDER BY` terms of sort descriptors over the rows of `alias` (each a value).
    private func ordering(_ descriptors: [SortDescriptor], alias: String, entity: SQLLayout.Entity) throws -> [String] {
        try descriptors.map { descriptor in
            guard case .scalar(let sql, _) = try keyPath([KeyPathComponent](dotted: descriptor.keyPath), alias: alias, entity: entity) else {
                throw Unsupported(reason: "sorting by \(descriptor.keyPath)")
            }
            return dialect.orderTerm(sql, ascending: descriptor.ascending, mayBeNull: mayBeNull(descriptor.keyPath, from: entity.description))
        }
    }

    /// Whether the value of a sort's key path may be NULL: false only for a path of to-one
    /// relationships and an attribute that are all required.
    private func mayBeNull(_ keyPath: String, from entity: EntityDescription) -> Bool {
        var current = entity
        let names = keyPath.split(separator: ".").map(String.init)
        for (index, name) in names.enumerated() {
            guard let slot = current.slot(of: name) else { return true }
            switch current.property(at: slot) {
            case .attribute(let attribute):
                return attribute.isOptional || index != names.count - 1
            case .relationship(let relationship):
                if relationship.isToMany || relationship.isOptional { return true }
                current = current.destination(ofSlot: slot).entity
            }
        }
        return true
    }

    private func limitClause() -> String {
        var text = ""
        if let limit = query.fetchLimit, limit > 0 { text += " LIMIT \(limit)" } else if query.fetchOffset > 0 { text += dialect.noLimit }
        if query.fetchOffset > 0 { text += " OFFSET \(query.fetchOffset)" }
        return text
    }

    private func whereClause(_ entity: SQLLayout.Entity) throws -> String {
        let codes = try query.entityNames.map { try layout.entity($0).code }
        // A query for every entity its table holds (the usual case: a table of one entity) tests no
        // entity code: SQLite would read and compare the column on each of the table's rows for nothing.
        let wholeTable = layout.tables[entity.table].map { Set($0.entityCodes).isSubset(of: codes) } ?? false
        let entityClause = wholeTable ? nil : "t0.\"Z_ENT\" IN (\(codes.map(String.init).joined(separator: ", ")))"
        let predicateClause = try query.predicate.map { "(\(try translate($0, alias: "t0", entity: entity)))" }
        let clauses = [entityClause, predicateClause].compactMap { $0 }
        return clauses.isEmpty ? dialect.trueLiteral : clauses.joined(separator: " AND ")
    }

    // MARK: Predicates

    private func translate(_ predicate: ModelgenPredicate.Predicate, alias: String, entity: SQLLayout.Entity) throws -> String {
        switch predicate {
        case .constant(let value, _): return value ? dialect.trueLiteral : dialect.falseLiteral
        case .not(let inner, _): return notTrue(try translate(inner, alias: alias, entity: entity))
        case .and(let items, _): return try items.map { "(\(try translate($0, alias: alias, entity: entity)))" }.joined(separator: " AND ")
        case .or(let items, _): return try items.map { "(\(try translate($0, alias: alias, entity: entity)))" }.joined(separator: " OR ")
        case .comparison(let c): return try comparison(c, alias: alias, entity: entity)
        }
    }

    /// True when `condition` is false or NULL.
    private func notTrue(_ condition: String) -> String { "NOT coalesce((\(condition)), \(dialect.falseLiteral))" }

    /// What an expression stands for in SQL.
    private indirect enum Term {
        /// A constant other than nil.
        var isNonNullConstant: Bool {
            if case .constant(let value) = self { return !value.isNull }
            return false
        }

        /// A value: its SQL and, for a column, the attribute's type.
        case scalar(String, AttributeType?)
        /// A record: SQL for its key and for its entity code.
        case object(key: String, entity: String)
        /// The elements of a to-many key path: the FROM … WHERE clause linking them, and each element.
        case collection(from: String, element: Term)
        /// A literal or variable.
        case constant(StoreValue)
        /// A list of literals, or a list variable.
        case list([StoreValue])
    }

    private func comparison(_ c: Comparison, alias: String, entity: SQLLayout.Entity) throws -> String {
        let left = try term(c.left, alias: alias, entity: entity)
        let right = try term(c.right, alias: alias, entity: entity)
        switch c.modifier {
        case .any, .all, .none:
            guard case .collection = left else {
                let direct = try compare(left, c.operator, right, c.options)
                return c.modifier == .none ? notTrue(direct) : direct
            }
            switch c.modifier {
            case .any: return try exists(left) { try compare($0, c.operator, right, c.options) }
            case .none: return notTrue(try exists(left) { try compare($0, c.operator, right, c.options) })
            default: return notTrue(try exists(left) { notTrue(try compare($0, c.operator, right, c.options)) })
            }
        case .direct:
            if case .collection = left, c.operator == .contains {
                return try exists(left) { try compare($0, .equal, right, c.options) }
            }
            if case .collection = right, c.operator == .in {
                return try exists(right) { try compare($0, .equal, left, c.options) }
            }
            return try compare(left, c.operator, right, c.options)
        }
    }

    /// True when some element of a to-many key path passes `test`: `EXISTS` over its elements, nested
    /// once per to-many step (`ANY tags.posts.title == …`).
    private func exists(_ term: Term, _ test: (Term) throws -> String) throws -> String {
        guard case .collection(let from, let element) = term else { return try test(term) }
        return "EXISTS (SELECT 1 \(from) AND (\(try exists(element, test))))"
    }

    private func compare(_ left: Term, _ op: ComparisonOperator, _ right: Term, _ options: ComparisonOptions) throws -> String {
        switch (left, right) {
        case (.collection, _), (_, .collection):
            throw Unsupported(reason: "a to-many key path compared without ANY, ALL, NONE or an aggregate")
        case (.object, _), (_, .object):
            return try compareObjects(left, op, right)
        default:
            break
        }
        let options = options.rawValue
        func folded(_ sql: String) -> String { options == 0 ? sql : dialect.fold(sql, options: options) }
        let l = try sqlOf(left, typedBy: right)
        switch op {
        case .equal:
            let r = try sqlOf(right, typedBy: left)
            // Against a value that is not nil: plain `=`, which databases answer from an index (PostgreSQL
            // cannot for `IS NOT DISTINCT FROM`). A nil column gives NULL there, which WHERE, AND and OR
            // take as false and every NOT of this translation wraps in coalesce(…, false).
            if left.isNonNullConstant || right.isNonNullConstant { return "\(folded(l)) = \(folded(r))" }
            return dialect.isSame(folded(l), folded(r))
        case .notEqual: return "NOT (\(dialect.isSame(folded(l), folded(try sqlOf(right, typedBy: left)))))"
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            return "\(folded(l)) \(op.rawValue) \(folded(try sqlOf(right, typedBy: left)))"
        case .between:
            guard case .list(let bounds) = right, bounds.count == 2 else { return dialect.falseLiteral }
            return "(\(folded(l)) >= \(folded(bind(bounds[0], like: left))) AND \(folded(l)) <= \(folded(bind(bounds[1], like: left))))"
        case .in:
            switch right {
            case .list(let items):
                if items.isEmpty { return dialect.falseLiteral }
                return "\(folded(l)) IN (\(items.map { folded(bind($0, like: left)) }.joined(separator: ", ")))"
            case .constant(.string), .scalar:
                return dialect.match("CONTAINS", options: options, try sqlOf(right, typedBy: left), l)
            default:
                return dialect.falseLiteral
            }
        case .contains, .beginsWith, .endsWith, .like, .matches:
            return dialect.match(op.rawValue, options: options, l, try sqlOf(right, typedBy: left))
        }
    }

    private func compareObjects(_ left: Term, _ op: ComparisonOperator, _ right: Term) throws -> String {
        func equality(_ a: Term, _ b: Term) throws -> String {
            switch (a, b) {
            case (.object(let k1, let e1), .object(let k2, let e2)): return "(\(dialect.isSame(k1, k2)) AND \(dialect.isSame(e1, e2)))"
            case (.object(let key, _), .constant(.reference(nil))), (.object(let key, _), .constant(.null)): return "\(key) IS NULL"
            case (.object(let key, let entity), .constant(.reference(let id?))):
                guard let code = layout.entities[id.entityName]?.code else { return dialect.falseLiteral }
                return "(\(key) = \(bind(.int(id.key), type: .int64)) AND \(entity) = \(code))"   // indexable, as above
            case (.constant, .object): return try equality(b, a)
            default: throw Unsupported(reason: "an object compared with a value")
            }
        }
        switch op {
        case .equal: return try equality(left, right)
        case .notEqual: return notTrue(try equality(left, right))
        case .in:
            guard case .list(let items) = right else { throw Unsupported(reason: "IN on objects") }
            if items.isEmpty { return dialect.falseLiteral }
            return try items.map { try equality(left, .constant($0)) }.joined(separator: " OR ")
        default: throw Unsupported(reason: "\(op.rawValue) on objects")
        }
    }

    /// SQL for a scalar term; constants are bound typed like the column on the other side.
    private func sqlOf(_ term: Term, typedBy other: Term) throws -> String {
        switch term {
        case .scalar(let sql, _): return sql
        case .constant(let value): return bind(value, like: other)
        default: throw Unsupported(reason: "a list or object where a value is expected")
        }
    }

    private func bind(_ value: StoreValue, like other: Term) -> String {
        if case .scalar(_, let type) = other { return bind(value, type: type) }
        return bind(value, type: nil)
    }

    private func bind(_ value: StoreValue, type: AttributeType?) -> String {
        bindings.append(QueryBinding(value: value, columnType: type))
        return dialect.placeholder(bindings.count)
    }

    // MARK: Expressions

    private func term(_ expression: ModelgenPredicate.Expression, alias: String, entity: SQLLayout.Entity) throws -> Term {
        switch expression.kind {
        case .keyPath(let components): return try keyPath(components, alias: alias, entity: entity)
        case .evaluatedObject: return .object(key: "\(alias).\"Z_PK\"", entity: "\(alias).\"Z_ENT\"")
        case .variable(let name) where scopes[name] != nil:
            let scope = scopes[name]!
            return .object(key: "\(scope.alias).\"Z_PK\"", entity: "\(scope.alias).\"Z_ENT\"")
        case .variableKeyPath(let name, let components):
            guard let scope = scopes[name] else { throw Unsupported(reason: "a key path on $\(name)") }
            return try keyPath(components, alias: scope.alias, entity: scope.entity)
        case .subquery(let collection, let variable, let predicate, let suffix):
            // SUBQUERY(toMany, $x, predicate).@count: a counting sub-select over the relationship's
            // elements, the predicate's bare key paths and $x naming each element.
            // The collection: a to-many relationship of the object, or of an enclosing SUBQUERY's element.
            var (base, baseEntity, components) = (alias, entity, [KeyPathComponent]())
            switch collection.kind {
            case .keyPath(let path): components = path
            case .variableKeyPath(let name, let path):
                guard let scope = scopes[name] else { throw Unsupported(reason: "a key path on $\(name)") }
                (base, baseEntity, components) = (scope.alias, scope.entity, path)
            default: break
            }
            guard components.count == 1, case .key(let key) = components[0].kind, let slot = baseEntity.description.slot(of: key),
                  let (from, inner, destination, _) = try toMany(slot, alias: base, entity: baseEntity) else {
                throw Unsupported(reason: "SUBQUERY over other than a to-many relationship of the object or of a SUBQUERY's element")
            }
            guard suffix.map(\.kind) == [.collectionOperator("count")] else { throw Unsupported(reason: "SUBQUERY without .@count") }
            let outer = scopes[variable]
            scopes[variable] = (inner, destination)
            defer { scopes[variable] = outer }
            return .scalar("(SELECT count(*) \(from) AND (\(try translate(predicate, alias: inner, entity: destination))))", .int64)
        case .variable(let name):
            switch query.variables[name] {
            case .value(let value)?: return .constant(value)
            case .list(let values)?: return .list(values)
            case nil: throw RuntimeError.missingVariable(name)
            }
        case .string(let s): return .constant(.string(s))
        case .number(let text):
            if expression.isIntegerLiteral, let v = Int64(text) { return .constant(.int(v)) }
            return .constant(.double(Double(text) ?? .nan))
        case .bool(let b): return .constant(.bool(b))
        case .null: return .constant(.null)
        case .aggregate(let items):
            return .list(try items.map { item in
                guard case .constant(let value) = try term(item, alias: alias, entity: entity) else {
                    throw Unsupported(reason: "a non-constant element in { }")
                }
                return value
            })
        case .function(let name, _):
            if let cast = expression.castValue {
                switch cast {
                case .date(let seconds): return .constant(.date(Date(timeIntervalSinceReferenceDate: seconds)))
                case .number(let text): return try term(Expression(.number(text), range: expression.range), alias: alias, entity: entity)
                case .unsupported(let reason): throw Unsupported(reason: reason)
                }
            }
            guard name == "now" else { throw Unsupported(reason: "function \(name)") }
            return .constant(.date(Date()))
        }
    }

    private func nextAlias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    private func keyPath(_ components: [KeyPathComponent], alias: String, entity: SQLLayout.Entity) throws -> Term {
        if let havingTerms {
            let keys = components.compactMap { component -> String? in if case .key(let key) = component.kind { return key } else { return nil } }
            guard keys.count == components.count, let term = havingTerms[keys.joined(separator: ".")] else {
                throw Unsupported(reason: "a having key path that is neither a group key path nor a column")
            }
            return term
        }
        guard let first = components.first else { return .object(key: "\(alias).\"Z_PK\"", entity: "\(alias).\"Z_ENT\"") }
        guard case .key(var key) = first.kind else { throw Unsupported(reason: "a key path starting with an operator or an index") }
        if components.contains(where: { if case .index = $0.kind { return true } else { return false } }) {
            throw Unsupported(reason: "an index into a relationship ([FIRST], [LAST], [SIZE], [n])")
        }
        var end = 1
        // A composite's field (`address.city`) is one column named by several keys.
        if let field = entity.description.compositeKey(components, at: 0) { (key, end) = field }
        guard let slot = entity.description.slot(of: key) else { throw RuntimeError.unknownKey(entity: entity.description.name, key: key) }
        let rest = Array(components[end...])
        switch entity.storage[slot] {
        case .none:
            throw Unsupported(reason: "transient property \(key)")
        case .attribute(let column, let type, _):
            guard rest.isEmpty else { throw Unsupported(reason: "a key path through attribute \(key)") }
            let sql = "\(alias).\(Self.quote(column))"
            return .scalar(type == .decimal ? dialect.decimalColumn(sql) : sql, type)
        case .toOne(let column):
            let keySQL = "\(alias).\(Self.quote(column))"
            if rest.isEmpty { return .object(key: keySQL, entity: "\(alias).\(Self.quote(column + ".entity"))") }
            guard case .relationship(let r) = entity.description.property(at: slot) else { throw Unsupported(reason: key) }
            let destination = try layout.entity(r.destinationName)
            if joinsToOne {
                let joined: String
                if let known = joinAliases[keySQL] {
                    joined = known
                } else {
                    joined = nextAlias()
                    joinAliases[keySQL] = joined
                    joins.append("LEFT JOIN \(Self.quote(destination.table)) \(joined) ON \(joined).\"Z_PK\" = \(keySQL)")
                }
                return try keyPath(rest, alias: joined, entity: destination)
            }
            let inner = nextAlias()
            let from = "FROM \(Self.quote(destination.table)) \(inner) WHERE \(inner).\"Z_PK\" = \(keySQL)"
            switch try keyPath(rest, alias: inner, entity: destination) {
            case .scalar(let sql, let type): return .scalar("(SELECT \(sql) \(from))", type)
            case .object(let k, let e): return .object(key: "(SELECT \(k) \(from))", entity: "(SELECT \(e) \(from))")
            default: throw Unsupported(reason: "a to-many key path after to-one \(key)")
            }
        case .toManyByInverse, .toManyByJoin:
            if let order = firstMemberOrder {
                firstMemberOrder = nil
                return try firstMember(slot, alias: alias, entity: entity, rest: rest, order: order)
            }
            if joinsToMany {
                let (members, destination) = try joinedMembers(slot, alias: alias, entity: entity)
                return try keyPath(rest, alias: members, entity: destination)
            }
            guard let (from, inner, destination, _) = try toMany(slot, alias: alias, entity: entity) else { throw Unsupported(reason: key) }
            return try collection(from: from, alias: inner, destination: destination, rest: rest)
        }
    }

    /// A value of the first member of a to-many relationship of the row of `alias`, the members in
    /// `order` (the relationship's own order when empty and it is ordered, else by key): a correlated
    /// subquery each, reading the members' table alone (to-one steps after it are subqueries too).
    private func firstMember(_ slot: Int, alias: String, entity: SQLLayout.Entity, rest: [KeyPathComponent], order: [SortDescriptor]) throws -> Term {
        guard let (from, members, destination, position) = try toMany(slot, alias: alias, entity: entity) else { throw Unsupported(reason: "a to-many step") }
        let joining = joinsToOne
        joinsToOne = false
        defer { joinsToOne = joining }
        var sorts = try ordering(order, alias: members, entity: destination)
        let value = try keyPath(rest, alias: members, entity: destination)
        // The first member's value of the one key path the members are sorted by is its least (or
        // greatest) value: an aggregate, which sorts nothing. Only for a value that is never NULL (a
        // sort puts NULL first, an aggregate skips it).
        if order.count == 1, !mayBeNull(order[0].keyPath, from: destination.description),
           case .scalar(let sql, let type) = value, sorts == [dialect.orderTerm(sql, ascending: order[0].ascending, mayBeNull: false)] {
            return .scalar("(SELECT \(order[0].ascending ? "min" : "max")(\(sql)) \(from))", type)
        }
        if order.isEmpty, let position { sorts.append(position) }
        sorts.append("\(members).\"Z_PK\"")
        let tail = "\(from) ORDER BY \(sorts.joined(separator: ", ")) LIMIT 1)"
        switch value {
        case .scalar(let sql, let type): return .scalar("(SELECT \(sql) \(tail)", type)
        case .object(let key, let code): return .object(key: "(SELECT \(key) \(tail)", entity: "(SELECT \(code) \(tail)")
        default: throw Unsupported(reason: "a first member's key path crossing another to-many relationship")
        }
    }

    /// The members of a to-many relationship joined to the rows of `alias` (`LEFT JOIN`, once per
    /// relationship and alias), and their entity: the alias of the members' table.
    private func joinedMembers(_ slot: Int, alias: String, entity: SQLLayout.Entity) throws -> (alias: String, entity: SQLLayout.Entity) {
        guard case .relationship(let r) = entity.description.property(at: slot) else { throw Unsupported(reason: "a to-many step") }
        let destination = try layout.entity(r.destinationName)
        let known = "\(alias).\(slot)"
        if let members = joinAliases[known] { return (members, destination) }
        let members = nextAlias()
        switch entity.storage[slot] {
        case .toManyByInverse(let table, let inverseColumn, _):
            joins.append("LEFT JOIN \(Self.quote(table)) \(members) ON \(members).\(Self.quote(inverseColumn)) = \(alias).\"Z_PK\"")
        case .toManyByJoin(let table):
            let link = nextAlias()
            joins.append("LEFT JOIN \(table.t) \(link) ON \(link).\(table.source) = \(alias).\"Z_PK\" "
                         + "LEFT JOIN \(Self.quote(destination.table)) \(members) ON \(members).\"Z_PK\" = \(link).\(table.target)")
        default:
            throw Unsupported(reason: "a to-many step")
        }
        joinAliases[known] = members
        return (members, destination)
    }

    /// The elements of a to-many relationship of the record `alias`: `FROM … WHERE` linking them, the
    /// alias of each element, its entity and, for an ordered relationship, the position column (nil
    /// for a slot that is no stored to-many relationship).
    private func toMany(_ slot: Int, alias: String, entity: SQLLayout.Entity) throws
        -> (from: String, alias: String, destination: SQLLayout.Entity, position: String?)? {
        guard case .relationship(let r) = entity.description.property(at: slot) else { return nil }
        switch entity.storage[slot] {
        case .toManyByInverse(let table, let inverseColumn, let orderColumn):
            let inner = nextAlias()
            let from = "FROM \(Self.quote(table)) \(inner) WHERE \(inner).\(Self.quote(inverseColumn)) = \(alias).\"Z_PK\""
            return (from, inner, try layout.entity(r.destinationName), orderColumn.map { "\(inner).\(Self.quote($0))" })
        case .toManyByJoin(let table):
            let destination = try layout.entity(r.destinationName)
            let join = nextAlias(), inner = nextAlias()
            let from = "FROM \(table.t) \(join) JOIN \(Self.quote(destination.table)) \(inner) ON \(inner).\"Z_PK\" = \(join).\(table.target) WHERE \(join).\(table.source) = \(alias).\"Z_PK\""
            return (from, inner, destination, r.isOrdered ? "\(join).\(table.position)" : nil)
        default:
            return nil
        }
    }

    private func collection(from: String, alias: String, destination: SQLLayout.Entity, rest: [KeyPathComponent]) throws -> Term {
        if let first = rest.first, case .collectionOperator(let op) = first.kind {
            if op == "count" { return .scalar("(SELECT count(*) \(from))", .int64) }
            guard rest.count == 2, case .scalar(let value, let type) = try keyPath(Array(rest.dropFirst()), alias: alias, entity: destination) else {
                throw Unsupported(reason: "@\(op) without one attribute after it")
            }
            switch op {
            case "sum": return .scalar("(SELECT coalesce(sum(\(value)), 0) \(from))", type == .decimal ? .double : type)
            case "avg": return .scalar("(SELECT avg(\(value)) \(from))", .double)
            case "min", "max": return .scalar("(SELECT \(op)(\(value)) \(from))", type)
            default: throw Unsupported(reason: "@\(op)")
            }
        }
        // An aggregate after a second to-many step counts across all the first step's elements
        // (`tags.posts.@count`), which a per-element sub-select does not: evaluated on objects.
        if rest.contains(where: { if case .collectionOperator = $0.kind { return true } else { return false } }),
           Self.crossesToMany(rest, from: destination.description) {
            throw Unsupported(reason: "an aggregate over two to-many steps")
        }
        // A second to-many step (`tags.posts.title`) nests: each element is itself a collection.
        return .collection(from: from, element: try keyPath(rest, alias: alias, entity: destination))
    }

    /// Whether the keys at the start of `path` cross a to-many relationship, walked on the entity
    /// descriptions (no SQL made).
    private static func crossesToMany(_ path: [KeyPathComponent], from entity: EntityDescription) -> Bool {
        var current = entity
        for component in path {
            guard case .key(let key) = component.kind, let slot = current.slot(of: key),
                  case .relationship(let relationship) = current.property(at: slot) else { return false }
            if relationship.isToMany { return true }
            guard let next = current.destinations[slot]?.entity else { return false }
            current = next
        }
        return false
    }

    package static func quote(_ name: String) -> String { SQLSchemaPlanner.quote(name) }
}
