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

    /// Reads column `column` of the current row as an attribute of `type`. A NULL reads as 0 or as no
    /// text, so the column's type is asked only then (one call per column instead of two).
    static func storeValue(_ statement: SQLiteStatement, _ column: Int32, type: AttributeType) -> StoreValue {
        switch type {
        case .bool:
            let number = statement.int64(column)
            return number == 0 && statement.isNull(column) ? .null : .bool(number != 0)
        case .int16, .int32, .int64:
            let number = statement.int64(column)
            return number == 0 && statement.isNull(column) ? .null : .int(number)
        case .float, .double:
            let number = statement.double(column)
            return number == 0 && statement.isNull(column) ? .null : .double(number)
        case .date:
            let seconds = statement.double(column)
            return seconds == 0 && statement.isNull(column) ? .null : .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .string: return statement.textIfPresent(column).map(StoreValue.string) ?? .null
        case .decimal:
            guard let text = statement.textIfPresent(column) else { return .null }
            return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal) ?? .null
        case .uri: return statement.textIfPresent(column).flatMap { URL(string: $0) }.map(StoreValue.url) ?? .null
        case .binary, .transformable: return statement.isNull(column) ? .null : .data(statement.blob(column))
        case .uuid:
            let bytes = statement.blob(column)
            guard bytes.count == 16 else { return .null }   // NULL too
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
            return .uuid(UUID(uuid: uuid))
        }
    }
}

extension SQLiteStatement: SlotSource {
    func storeValue(_ column: Int32, type: AttributeType) -> StoreValue { SQLiteValueCodec.storeValue(self, column, type: type) }
}
