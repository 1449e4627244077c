#if PostgreSQL
import Foundation
import ModelgenRuntime
import NIOCore

/// Values written as `COPY … FROM STDIN` text: one line per row, columns separated by tabs, `\N`
/// for NULL, and backslash, tab, newline and carriage return escaped with a backslash. Each value is
/// converted as `PostgreSQLSQL.bind` converts it for a parameter, so a copied row reads back as an
/// inserted one.
enum PostgreSQLCopyText {
    /// Appends a column's value (`type` is the column's attribute type).
    static func append(_ value: StoreValue, type: AttributeType, to buffer: inout ByteBuffer, entity: @autoclosure () -> String,
                       key: @autoclosure () -> String) throws {
        switch value {
        case .null, .reference(nil), .references:
            buffer.writeStaticString("\\N")
        case .bool(let v):
            switch type {
            case .int16, .int32, .int64, .float, .double, .date: buffer.writeStaticString(v ? "1" : "0")
            default: buffer.writeStaticString(v ? "t" : "f")
            }
        case .int(let v):
            switch type {
            case .int16: appendInteger(Int64(Int16(truncatingIfNeeded: v)), to: &buffer)
            case .int32: appendInteger(Int64(Int32(truncatingIfNeeded: v)), to: &buffer)
            case .float, .double, .date: appendDouble(Double(v), to: &buffer)
            case .bool: buffer.writeStaticString(v != 0 ? "t" : "f")
            default: appendInteger(v, to: &buffer)
            }
        case .double(let v):
            switch type {
            case .int16, .int32, .int64:
                try append(.int(Int64(exactly: v.rounded(.towardZero)) ?? 0), type: type, to: &buffer, entity: entity(), key: key())
            default: appendDouble(v, to: &buffer)
            }
        case .decimal(let v): buffer.writeString(v.description)
        case .string(let v):
            if v.utf8.contains(0) {
                throw PostgreSQLStoreError.unstorableValue(entity: entity(), key: key(), reason: "the text holds U+0000, which PostgreSQL's text type cannot keep")
            }
            appendText(v, to: &buffer)
        case .date(let v): appendDouble(v.timeIntervalSinceReferenceDate, to: &buffer)
        case .data(let v): appendBytes(v, to: &buffer)
        case .uuid(let v): buffer.writeString(v.uuidString)
        case .url(let v): appendText(v.absoluteString, to: &buffer)
        case .reference(let id?): appendInteger(id.key, to: &buffer)
        }
    }

    /// An integer in decimal digits (written in place: no string made).
    static func appendInteger(_ v: Int64, to buffer: inout ByteBuffer) {
        _ = withDecimalDigits(of: v) { buffer.writeBytes($0) }
    }

    /// A double precision value: Swift's shortest text that reads back as the same number (a whole
    /// number below 2^53 as its integer digits), with PostgreSQL's spelling of infinities and NaN.
    static func appendDouble(_ v: Double, to buffer: inout ByteBuffer) {
        if v.magnitude < 9_007_199_254_740_992, v == v.rounded(.towardZero), !(v == 0 && v.sign == .minus) {
            appendInteger(Int64(v), to: &buffer)
        } else if v.isNaN {
            buffer.writeStaticString("NaN")
        } else if v.isInfinite {
            buffer.writeStaticString(v < 0 ? "-Infinity" : "Infinity")
        } else {
            buffer.writeString(v.description)
        }
    }

    /// Text with COPY's escapes (the bytes are UTF-8, the connection's encoding).
    static func appendText(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { bytes in
            // Most values need no escape: written in one piece.
            guard bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 9 || $0 == 10 || $0 == 13 }) else {
                buffer.writeBytes(bytes)
                return
            }
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "\\"): buffer.writeStaticString("\\\\")
                case 9: buffer.writeStaticString("\\t")
                case 10: buffer.writeStaticString("\\n")
                case 13: buffer.writeStaticString("\\r")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }

    /// Bytes as bytea's hex input (`\x0a1b…`), its backslash escaped for COPY.
    static func appendBytes(_ data: Data, to buffer: inout ByteBuffer) {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        buffer.reserveCapacity(minimumWritableBytes: 3 + data.count * 2)
        buffer.writeStaticString("\\\\x")
        for byte in data {
            buffer.writeInteger(digits[Int(byte >> 4)])
            buffer.writeInteger(digits[Int(byte & 0x0f)])
        }
    }
}
#endif
