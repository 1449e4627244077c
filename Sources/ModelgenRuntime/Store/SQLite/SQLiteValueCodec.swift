import Foundation

/// How attribute values are kept in SQLite columns: integers and booleans as INTEGER, floating point as
/// REAL, dates as REAL seconds since 2001-01-01 00:00:00 GMT (as Core Data does), strings, URLs and
/// decimals (exact) as TEXT, binaries, UUIDs (16 bytes) and transformable values as BLOB.
enum SQLiteValueCodec {
    static func sqlValue(_ value: StoreValue, type: AttributeType) -> SQLiteValue {
        switch value {
        case .null, .reference(nil): return .null
        case .bool(let v): return .integer(v ? 1 : 0)
        case .int(let v): return type == .double || type == .float ? .real(Double(v)) : .integer(v)
        case .double(let v): return type.isInteger ? type.integerValue(truncating: v).map(SQLiteValue.integer) ?? .real(v) : .real(v)
        case .decimal(let v): return .text(v.description)
        case .string(let v): return .text(v)
        case .date(let v): return .real(v.timeIntervalSinceReferenceDate)
        case .data(let v): return .blob(v)
        case .uuid(let v): return .blob(withUnsafeBytes(of: v.uuid) { Data($0) })
        case .url(let v): return .text(v.absoluteString)
        case .reference(let id?): return .integer(id.key)
        case .references: return .null
        }
    }

    /// A predicate operand: like `sqlValue`, typed by the value itself.
    static func sqlValue(_ value: StoreValue) -> SQLiteValue {
        switch value {
        case .int: return sqlValue(value, type: .int64)
        case .double: return sqlValue(value, type: .double)
        default: return sqlValue(value, type: .string)
        }
    }

    /// Reads column `column` of the current row as an attribute of `type`.
    static func storeValue(_ statement: SQLiteStatement, _ column: Int32, type: AttributeType) -> StoreValue {
        if statement.isNull(column) { return .null }
        switch type {
        case .bool: return .bool(statement.int64(column) != 0)
        case .int16, .int32, .int64: return .int(statement.int64(column))
        case .float, .double: return .double(statement.double(column))
        case .decimal: return Decimal(string: statement.text(column), locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal) ?? .null
        case .string: return .string(statement.text(column))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: statement.double(column)))
        case .binary, .transformable: return .data(statement.blob(column))
        case .uuid:
            let bytes = statement.blob(column)
            guard bytes.count == 16 else { return .null }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
            return .uuid(UUID(uuid: uuid))
        case .uri: return URL(string: statement.text(column)).map(StoreValue.url) ?? .null
        }
    }
}
