import Foundation

/// The table layout of a SQLite store, recorded in the file (as JSON in `"modelgen.metadata"`) so that
/// a later model can be compared with what the file holds.
///
/// - One table per root entity, named after it; subentities share their root's table. System columns:
///   `Z_PK` (the record's key), `Z_ENT` (the entity's code), `Z_OPT` (version, for optimistic locking).
/// - One column per stored attribute, named after it (`Entity.name` when a sibling took the name).
/// - A to-one relationship: a column with the destination's key and `<name>.entity` with its entity code.
/// - A to-many relationship whose inverse is to-one: nothing of its own (the inverse's column says it);
///   when ordered, `<inverse>.order` on the destination's table keeps the order.
/// - Any other to-many relationship (many-to-many, no inverse): a join table `"<Entity>.<name>"` with
///   `source`, `target`, `target.entity` and `position`, one per side.
package struct SQLiteSchema: Codable, Equatable {
    package static let formatVersion = 1

    package var formatVersion = SQLiteSchema.formatVersion
    package var modelName: String
    package var versionHash: String
    package var entities: [Entity]

    package struct Entity: Codable, Equatable {
        package var name: String
        package var code: Int64
        package var parent: String?
        package var table: String
        package var attributes: [Attribute]
        package var relationships: [Relationship]
    }

    package struct Attribute: Codable, Equatable {
        package var name: String
        package var type: String
        package var optional: Bool
        package var column: String
    }

    package struct Relationship: Codable, Equatable {
        package var name: String
        package var destination: String
        package var toMany: Bool
        package var ordered: Bool
        /// To-one: the key column (its entity code column is `column + ".entity"`).
        package var column: String?
        /// To-many through the inverse: the inverse's name; `orderColumn` on the destination's table when ordered.
        package var inverse: String?
        package var orderColumn: String?
        /// Other to-many: the join table.
        package var joinTable: String?
    }

    package func entity(named name: String) -> Entity? { entities.first { $0.name == name } }
}

/// Builds the layout for a model, reusing what an existing file's layout assigned (so renamed
/// attributes keep their column), and lists what a migration must add or cannot do.
package struct SQLiteSchemaPlanner {
    package let model: ManagedObjectModel
    package let previous: SQLiteSchema?

    package init(model: ManagedObjectModel, previous: SQLiteSchema?) {
        self.model = model
        self.previous = previous
    }

    /// The new layout, the statements that bring an existing file to it, and the changes that cannot be migrated.
    package struct Plan {
        package var schema: SQLiteSchema
        package var statements: [String]
        package var problems: [String]
    }

    package func plan() -> Plan {
        var problems: [String] = []
        var statements: [String] = []
        var tableNames = NameAllocator(reserved: ["modelgen.metadata", "sqlite_sequence"])
        var columnsByTable: [String: NameAllocator] = [:]
        var nextCode = (previous?.entities.map(\.code).max() ?? 0) + 1
        var entities: [SQLiteSchema.Entity] = []
        previous?.entities.forEach { tableNames.take($0.table) }
        for old in previous?.entities ?? [] {
            var columns = columnsByTable[old.table] ?? NameAllocator(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
            old.attributes.forEach { columns.take($0.column) }
            for r in old.relationships {
                if let c = r.column { columns.take(c); columns.take(c + ".entity") }
                if let j = r.joinTable { tableNames.take(j) }
            }
            columnsByTable[old.table] = columns
        }
        // Order columns of ordered to-many relationships live on the destination's table.
        for old in previous?.entities ?? [] {
            for r in old.relationships {
                if let order = r.orderColumn, let destination = previous?.entity(named: r.destination) {
                    columnsByTable[destination.table]?.take(order)
                }
            }
        }

        func root(of entity: EntityDescription) -> EntityDescription {
            var current = entity
            while let parent = current.parent { current = parent }
            return current
        }

        // Entities, attributes and to-one relationships, parents before children.
        let ordered = model.entities.filter { $0.parent == nil }.flatMap(\.selfAndDescendants)
        var added: [String: [(column: String, definition: String)]] = [:]
        var newTables: Set<String> = []
        for entity in ordered {
            let old = previous?.entity(named: entity.name)
            let table: String
            if let parent = entity.parent {
                table = entities.first { $0.name == parent.name }!.table
            } else {
                table = old?.table ?? tableNames.allocate(entity.name)
                if old == nil { newTables.insert(table) }
            }
            if let old, old.parent != entity.parentName {
                problems.append("entity \(entity.name): its parent changed from \(old.parent ?? "none") to \(entity.parentName ?? "none")")
            }
            var columns = columnsByTable[table] ?? NameAllocator(reserved: ["Z_PK", "Z_ENT", "Z_OPT"])
            var attributes: [SQLiteSchema.Attribute] = []
            for a in entity.ownAttributes where !a.isTransient {
                let match = old?.attributes.first { $0.name == a.name }
                    ?? a.renamingIdentifier.flatMap { former in old?.attributes.first { $0.name == former } }
                if let match {
                    if match.type != a.type.rawValue {
                        problems.append("attribute \(entity.name).\(a.name): its type changed from \(match.type) to \(a.type.rawValue)")
                    }
                    if match.optional && !a.isOptional && a.defaultValue.isNull {
                        problems.append("attribute \(entity.name).\(a.name): became required without a default value; saved records may have none")
                    }
                    attributes.append(.init(name: a.name, type: a.type.rawValue, optional: a.isOptional, column: match.column))
                } else {
                    let column = columns.allocate(columns.isFree(a.name) ? a.name : "\(entity.name).\(a.name)")
                    attributes.append(.init(name: a.name, type: a.type.rawValue, optional: a.isOptional, column: column))
                    if old != nil || (entity.parent != nil && !newTables.contains(table)) {
                        if !a.isOptional && a.defaultValue.isNull {
                            problems.append("attribute \(entity.name).\(a.name) is new, required and has no default value: saved \(entity.name) records would have none")
                        }
                        added[table, default: []].append((column, "\(SQLiteSchemaPlanner.quote(column)) \(Self.sqlType(a.type))\(Self.defaultClause(a))"))
                    }
                }
            }
            var relationships: [SQLiteSchema.Relationship] = []
            for r in entity.ownRelationships where !r.isTransient && !r.isToMany {
                let match = old?.relationships.first { $0.name == r.name }
                let column = match?.column ?? columns.allocate(columns.isFree(r.name) ? r.name : "\(entity.name).\(r.name)")
                if match == nil { columns.take(column + ".entity") }
                relationships.append(.init(name: r.name, destination: r.destinationName, toMany: false, ordered: false, column: column))
                if match == nil && (old != nil || (entity.parent != nil && !newTables.contains(table))) {
                    added[table, default: []].append((column, "\(SQLiteSchemaPlanner.quote(column)) INTEGER"))
                    added[table, default: []].append((column + ".entity", "\(SQLiteSchemaPlanner.quote(column + ".entity")) INTEGER"))
                }
            }
            columnsByTable[table] = columns
            entities.append(.init(name: entity.name, code: old?.code ?? nextCode, parent: entity.parentName, table: table,
                                  attributes: attributes, relationships: relationships))
            if old == nil { nextCode += 1 }
        }

        // To-many relationships, now that every table's columns are known.
        for entity in ordered {
            let index = entities.firstIndex { $0.name == entity.name }!
            let old = previous?.entity(named: entity.name)
            for r in entity.ownRelationships where !r.isTransient && r.isToMany {
                let match = old?.relationships.first { $0.name == r.name }
                let inverse = r.inverseName.flatMap { name in model.entity(named: r.destinationName)?.relationships(named: name) }
                var stored = SQLiteSchema.Relationship(name: r.name, destination: r.destinationName, toMany: true, ordered: r.isOrdered)
                if let inverse, !inverse.isToMany, !inverse.isTransient {
                    stored.inverse = inverse.name
                    if r.isOrdered {
                        let destinationTable = entities.first { $0.name == root(of: model.entity(named: r.destinationName)!).name }!.table
                        if let existing = match?.orderColumn {
                            stored.orderColumn = existing
                        } else {
                            var columns = columnsByTable[destinationTable]!
                            let column = columns.allocate("\(inverse.name).order")
                            columnsByTable[destinationTable] = columns
                            stored.orderColumn = column
                            if !newTables.contains(destinationTable) {
                                added[destinationTable, default: []].append((column, "\(SQLiteSchemaPlanner.quote(column)) INTEGER"))
                            }
                        }
                    }
                } else {
                    stored.joinTable = match?.joinTable ?? tableNames.allocate("\(entity.name).\(r.name)")
                    if match?.joinTable == nil { statements.append(Self.createJoinTable(stored.joinTable!)) }
                }
                if let match, match.inverse != stored.inverse || (match.joinTable == nil) != (stored.joinTable == nil) {
                    problems.append("relationship \(entity.name).\(r.name): how it is stored changed (its inverse changed from \(match.inverse ?? "none or to-many") to \(stored.inverse ?? "none or to-many"))")
                }
                entities[index].relationships.append(stored)
            }
        }

        // What the previous layout had that this one lost, or changed incompatibly.
        for old in previous?.entities ?? [] {
            guard let new = entities.first(where: { $0.name == old.name }) else {
                problems.append("entity \(old.name) was removed (or renamed); its records would be lost")
                continue
            }
            for a in old.attributes where !new.attributes.contains(where: { $0.column == a.column }) {
                problems.append("attribute \(old.name).\(a.name) was removed (a rename needs renamingIdentifier: \(a.name)); its values would be lost")
            }
            for r in old.relationships {
                guard let n = new.relationships.first(where: { $0.name == r.name }) else {
                    problems.append("relationship \(old.name).\(r.name) was removed; its links would be lost")
                    continue
                }
                if n.destination != r.destination || n.toMany != r.toMany || n.ordered != r.ordered {
                    problems.append("relationship \(old.name).\(r.name): its destination, cardinality or ordering changed")
                }
            }
        }

        // Tables: new root tables whole, existing ones altered.
        for entity in entities where entity.parent == nil && newTables.contains(entity.table) {
            var definitions = ["\"Z_PK\" INTEGER PRIMARY KEY", "\"Z_ENT\" INTEGER NOT NULL", "\"Z_OPT\" INTEGER NOT NULL"]
            for member in entities where member.table == entity.table {
                let description = model.entity(named: member.name)!
                for a in member.attributes {
                    let attribute = description.ownAttributes.first { $0.name == a.name }!
                    definitions.append("\(Self.quote(a.column)) \(Self.sqlType(attribute.type))")
                }
                for r in member.relationships where r.column != nil {
                    definitions.append("\(Self.quote(r.column!)) INTEGER")
                    definitions.append("\(Self.quote(r.column! + ".entity")) INTEGER")
                }
            }
            for other in entities {
                for r in other.relationships where r.orderColumn != nil {
                    let destinationRoot = root(of: model.entity(named: r.destination)!)
                    if entities.first(where: { $0.name == destinationRoot.name })!.table == entity.table {
                        definitions.append("\(Self.quote(r.orderColumn!)) INTEGER")
                    }
                }
            }
            statements.insert("CREATE TABLE \(Self.quote(entity.table)) (\(definitions.joined(separator: ", ")))", at: 0)
        }
        for (table, columns) in added.sorted(by: { $0.key < $1.key }) {
            for column in columns {
                statements.append("ALTER TABLE \(Self.quote(table)) ADD COLUMN \(column.definition)")
            }
        }

        // Indexes: every to-one column (relationship lookups), the model's indexes and uniqueness constraints.
        for entity in entities {
            guard let description = model.entity(named: entity.name) else { continue }
            func columns(_ names: [String]) -> [String]? {
                var result: [String] = []
                for name in names {
                    var current: EntityDescription? = description
                    var found: String?
                    while let e = current, found == nil {
                        let stored = entities.first { $0.name == e.name }!
                        found = stored.attributes.first { $0.name == name }?.column ?? stored.relationships.first { $0.name == name }?.column
                        current = e.parent
                    }
                    guard let found else { return nil }
                    result.append(found)
                }
                return result
            }
            for r in entity.relationships where r.column != nil {
                statements.append("CREATE INDEX IF NOT EXISTS \(Self.quote("\(entity.table).\(r.column!)")) ON \(Self.quote(entity.table)) (\(Self.quote(r.column!)))")
            }
            for names in description.indexes {
                guard let cs = columns(names) else { continue }
                statements.append("CREATE INDEX IF NOT EXISTS \(Self.quote("\(entity.name).index(\(names.joined(separator: ",")))")) ON \(Self.quote(entity.table)) (\(cs.map(Self.quote).joined(separator: ", ")))")
            }
            for names in description.uniquenessConstraints {
                guard let cs = columns(names) else { continue }
                let condition = entity.parent == nil ? "" : " WHERE \"Z_ENT\" IN (\(codes(of: description, in: entities).map(String.init).joined(separator: ", ")))"
                statements.append("CREATE UNIQUE INDEX IF NOT EXISTS \(Self.quote("\(entity.name).unique(\(names.joined(separator: ",")))")) ON \(Self.quote(entity.table)) (\(cs.map(Self.quote).joined(separator: ", ")))\(condition)")
            }
        }

        let schema = SQLiteSchema(modelName: model.name, versionHash: model.versionHash, entities: entities)
        return Plan(schema: schema, statements: statements, problems: problems)
    }

    private func codes(of entity: EntityDescription, in entities: [SQLiteSchema.Entity]) -> [Int64] {
        entity.selfAndDescendants.compactMap { e in entities.first { $0.name == e.name }?.code }
    }

    static func createJoinTable(_ table: String) -> String {
        "CREATE TABLE \(quote(table)) (\"source\" INTEGER NOT NULL, \"target\" INTEGER NOT NULL, \"target.entity\" INTEGER NOT NULL, \"position\" INTEGER NOT NULL);"
            + " CREATE INDEX \(quote(table + ".source")) ON \(quote(table)) (\"source\", \"position\");"
            + " CREATE INDEX \(quote(table + ".target")) ON \(quote(table)) (\"target\")"
    }

    package static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    static func sqlType(_ type: AttributeType) -> String {
        switch type {
        case .bool, .int16, .int32, .int64: return "INTEGER"
        case .float, .double, .date: return "REAL"
        case .string, .uri, .decimal: return "TEXT"
        case .binary, .uuid, .transformable: return "BLOB"
        }
    }

    /// `DEFAULT <value>` for a column added to existing rows (the attribute's default, when it has one).
    static func defaultClause(_ a: AttributeDescription) -> String {
        switch SQLiteValueCodec.sqlValue(a.defaultValue, type: a.type) {
        case .null: return ""
        case .integer(let v): return " DEFAULT \(v)"
        case .real(let v): return " DEFAULT \(v)"
        case .text(let v): return " DEFAULT '\(v.replacingOccurrences(of: "'", with: "''"))'"
        case .blob(let v): return " DEFAULT X'\(v.map { String(format: "%02X", $0) }.joined())'"
        }
    }
}

/// Hands out names unique without regard to case (SQLite identifiers ignore case).
struct NameAllocator {
    private var taken: Set<String>

    init(reserved: [String]) { taken = Set(reserved.map { $0.lowercased() }) }

    func isFree(_ name: String) -> Bool { !taken.contains(name.lowercased()) }

    mutating func take(_ name: String) { taken.insert(name.lowercased()) }

    /// `name`, or `name2`, `name3`… when taken.
    mutating func allocate(_ name: String) -> String {
        var candidate = name
        var number = 2
        while !isFree(candidate) {
            candidate = "\(name)\(number)"
            number += 1
        }
        take(candidate)
        return candidate
    }
}

extension EntityDescription {
    /// The relationship with this name, own or inherited.
    func relationships(named name: String) -> RelationshipDescription? {
        guard let slot = slotsByName[name], case .relationship(let r) = properties[slot] else { return nil }
        return r
    }
}
