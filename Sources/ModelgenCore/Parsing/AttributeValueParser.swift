import Foundation

/// Reads a `default`, `min` or `max` scalar as the attribute's type expects:
/// decimal numbers that fit the width, `true`/`false`, ISO 8601 dates, UUIDs, absolute URIs.
enum AttributeValueParser {
    struct Problem: Error {
        var message: String
    }

    static func parse(_ text: String, as type: AttributeType, isBound: Bool) -> Result<AttributeValue, Problem> {
        if isBound {
            if type.boundsAreLengths {
                guard let length = decimalInteger(text), length >= 0 else {
                    return .failure(Problem(message: "expected a non-negative whole number (a \(type == .string ? "length in characters" : "size in bytes")), found '\(text)'"))
                }
                return .success(.integer(length))
            }
            guard type.acceptsBounds else {
                if type == .composite { return .failure(Problem(message: "a composite attribute has no min or max of its own; bound the composite's fields")) }
                return .failure(Problem(message: "\(type.rawValue) attributes have no min or max"))
            }
        }
        switch type {
        case .string:
            return .success(.string(text))
        case .bool:
            if text == "true" { return .success(.bool(true)) }
            if text == "false" { return .success(.bool(false)) }
            return .failure(Problem(message: "expected 'true' or 'false', found '\(text)'"))
        case .int16, .int32, .int64:
            let bounds = type.integerBounds!
            guard isDecimalInteger(text) else {
                return .failure(Problem(message: "expected a decimal whole number for \(type.rawValue), found '\(text)'"))
            }
            guard let value = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text), bounds.contains(value) else {
                return .failure(Problem(message: "\(text) does not fit in \(type.rawValue) (\(bounds.lowerBound)...\(bounds.upperBound))"))
            }
            return .success(.integer(value))
        case .float, .double:
            guard isDecimalNumber(text), let value = Double(text) else {
                return .failure(Problem(message: "expected a decimal number for \(type.rawValue), found '\(text)'"))
            }
            if type == .float, !Float(value).isFinite || !value.isFinite {
                return .failure(Problem(message: "\(text) does not fit in float"))
            }
            if !value.isFinite { return .failure(Problem(message: "\(text) does not fit in double")) }
            return .success(.floatingPoint(value, text: text))
        case .decimal:
            guard isDecimalNumber(text), let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                return .failure(Problem(message: "expected a decimal number, found '\(text)'"))
            }
            let digits = text.split(whereSeparator: { $0 == "e" || $0 == "E" })[0].filter(\.isNumber)
                .drop(while: { $0 == "0" })
            if digits.count > 38 {
                return .failure(Problem(message: "\(text) has more than 38 significant digits, more than Decimal holds exactly"))
            }
            return .success(.decimal(value, text: text))
        case .date:
            guard let date = parseISO8601(text) else {
                return .failure(Problem(message: "expected an ISO 8601 date ('2024-05-01') or date-time with a zone ('2024-05-01T09:30:00Z'), found '\(text)'"))
            }
            return .success(.date(date))
        case .uuid:
            guard let uuid = UUID(uuidString: text) else {
                return .failure(Problem(message: "expected a UUID like 'E621E1F8-C36C-495A-93FC-0C247A3E6E5F', found '\(text)'"))
            }
            return .success(.uuid(uuid))
        case .uri:
            guard let url = URL(string: text), url.scheme != nil else {
                return .failure(Problem(message: "expected an absolute URI with a scheme, found '\(text)'"))
            }
            return .success(.uri(url))
        case .binary, .transformable, .undefined:
            return .failure(Problem(message: "\(type.rawValue) attributes cannot have a default value"))
        case .composite:
            return .failure(Problem(message: "a composite attribute has no default of its own; give the composite's fields defaults"))
        }
    }

    private static func isDecimalInteger(_ text: String) -> Bool {
        var utf8 = Substring(text).utf8
        if let first = utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { utf8 = utf8.dropFirst() }
        return !utf8.isEmpty && utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    private static func decimalInteger(_ text: String) -> Int64? {
        isDecimalInteger(text) ? Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) : nil
    }

    /// `[+-]digits[.digits][e[+-]digits]`, or `.digits`: decimal notation only (no hex, no `inf`, no `_`).
    static func isDecimalNumber(_ text: String) -> Bool {
        var scalars = Array(text.unicodeScalars)[...]
        if let first = scalars.first, first == "-" || first == "+" { scalars = scalars.dropFirst() }
        func digits() -> Int {
            let count = scalars.prefix { ("0"..."9").contains($0) }.count
            scalars = scalars.dropFirst(count)
            return count
        }
        var mantissaDigits = digits()
        if scalars.first == "." {
            scalars = scalars.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if let e = scalars.first, e == "e" || e == "E" {
            scalars = scalars.dropFirst()
            if let sign = scalars.first, sign == "-" || sign == "+" { scalars = scalars.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return scalars.isEmpty
    }

    /// ISO 8601: a full date (midnight GMT) or a date-time with a zone (`Z` or `±hh:mm`), optional fractional seconds.
    static func parseISO8601(_ text: String) -> Date? {
        // A date-time must say its zone: a wall-clock time alone is not an instant.
        if text.contains("T") {
            let zoned = text.hasSuffix("Z") || text.range(of: #"[+-][0-9]{2}:?[0-9]{2}$"#, options: .regularExpression) != nil
            guard zoned else { return nil }
        }
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "GMT")
        let attempts: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime],
            [.withInternetDateTime, .withFractionalSeconds],
            [.withFullDate, .withDashSeparatorInDate],
        ]
        for options in attempts {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
