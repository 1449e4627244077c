/// What Core Data's `CAST(value, "Type")` stands for: how date literals are written in predicate
/// strings (`createdAt > CAST(733244400, "NSDate")`), and numbers read from text.
public enum CastValue: Sendable, Hashable {
    /// `CAST(733244400, "NSDate")`: seconds since 2001-01-01 00:00:00 GMT (a number, or a string of one).
    case date(secondsSinceReferenceDate: Double)
    /// `CAST("42", "NSNumber")`: a number, as written.
    case number(String)
    /// A `CAST` that cannot be read, and why.
    case unsupported(String)
}

extension Expression {
    /// The value of a `CAST(…)` expression; nil when this is not one.
    public var castValue: CastValue? {
        guard case .function(let name, let arguments) = kind, name.uppercased() == "CAST" else { return nil }
        guard arguments.count == 2, case .string(let type) = arguments[1].kind else {
            return .unsupported("CAST takes a value and a type name in quotes, as in CAST(733244400, \"NSDate\")")
        }
        let text: String
        switch arguments[0].kind {
        case .number(let written): text = written
        case .string(let written): text = String(written.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        default: return .unsupported("CAST converts a literal number or string, not \(arguments[0])")
        }
        switch type {
        case "NSDate":
            guard let seconds = Double(text), seconds.isFinite else { return .unsupported("CAST to NSDate needs a number of seconds since 2001-01-01, not '\(text)'") }
            return .date(secondsSinceReferenceDate: seconds)
        case "NSNumber":
            guard let number = Double(text), number.isFinite else { return .unsupported("CAST to NSNumber needs a number, not '\(text)'") }
            return .number(text)
        default:
            return .unsupported("CAST to '\(type)' is not supported (NSDate, NSNumber)")
        }
    }
}
