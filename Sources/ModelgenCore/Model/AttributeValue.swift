import Foundation

/// A typed literal from the model file: an attribute's `default`, `min` or `max`.
public enum AttributeValue: Sendable, Hashable, CustomStringConvertible {
    /// Text.
    case string(String)
    /// A Boolean.
    case bool(Bool)
    /// An integer (int16, int32 and int64 attributes).
    case integer(Int64)
    /// Float and double values, with the text as written (so it can be printed back exactly).
    case floatingPoint(Double, text: String)
    /// Decimal values, with the text as written (parsed exactly, never through Double).
    case decimal(Decimal, text: String)
    /// A date (ISO 8601 in the file).
    case date(Date)
    /// A UUID.
    case uuid(UUID)
    /// A URL.
    case uri(URL)

    public var description: String {
        switch self {
        case .string(let s): return s
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .floatingPoint(_, let text), .decimal(_, let text): return text
        case .date(let d): return d.formatted(.iso8601)
        case .uuid(let u): return u.uuidString
        case .uri(let u): return u.absoluteString
        }
    }

    /// A number for comparing against bounds: integers, floats and decimals; date as seconds since 2001.
    var comparableNumber: Decimal? {
        switch self {
        case .integer(let i): return Decimal(i)
        case .floatingPoint(let d, _): return d.isFinite ? Decimal(d) : nil
        case .decimal(let d, _): return d
        case .date(let d): return Decimal(d.timeIntervalSinceReferenceDate)
        default: return nil
        }
    }
}
