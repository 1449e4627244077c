import Foundation

/// The rows one batch `DELETE` returned (`SetBasedDeletionPlan`), as one text value, with what is
/// needed to read them as a change set: rows separated by `;`, values by `,` (the key, the entity
/// code, then each returned to-one key and its entity code), an empty value NULL.
///
/// A one-statement batch delete on PostgreSQL gets its rows back in this form and writes the same
/// text as its history row (`historyPrefix`, the rows, `"}`), so the statement builds no other JSON;
/// `ChangeSet.init(history:)` reads such a row (format 3) with `changeSet()`.
package struct DeletedRows: Codable, Sendable {
    /// A returned column naming a record that loses the deleted one, and that record's relationship.
    package struct LostColumn: Codable, Sendable {
        /// The returned column (counted from 0) holding the related record's key; its entity code follows.
        package var column: Int
        /// The related record's relationship that loses the deleted record.
        package var inverse: String
    }

    /// The history format (a row's first bytes, `{"format":3,`, tell it).
    private var format = 3
    /// By entity code (as text): the returned columns naming records that lose a deleted record.
    private var lost: [String: [LostColumn]]
    /// The names of the entity codes the rows may hold.
    private var names: [String: String]
    /// The number of values of each row.
    private var rowWidth: Int
    /// The rows' text.
    package var rows: String

    /// The rows `plan`'s `DELETE` returns, named by `names` (entity code to name, at least every code
    /// the rows may hold).
    package init(plan: SetBasedDeletionPlan, names: [Int64: String]) {
        self.init(lost: plan.lost.mapValues { $0.map { (column: $0.column, inverse: $0.inverse) } }, names: names,
                  rowWidth: 2 + plan.returnedColumns.count)
    }

    /// Rows of `rowWidth` values; `lost`: by entity code, the returned columns (counted from 0) naming
    /// a record that loses the deleted one, with the name of that record's relationship.
    package init(lost: [Int64: [(column: Int, inverse: String)]], names: [Int64: String], rowWidth: Int, rows: String = "") {
        self.lost = Dictionary(uniqueKeysWithValues: lost.map { code, columns in
            (String(code), columns.map { LostColumn(column: $0.column, inverse: $0.inverse) })
        })
        self.names = Dictionary(uniqueKeysWithValues: names.map { (String($0.key), $0.value) })
        self.rowWidth = rowWidth
        self.rows = rows
    }

    /// The history row's JSON up to the rows' text: the row is this, the rows, then `"}`.
    package var historyPrefix: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var empty = self
        empty.rows = ""
        // `rows` sorts last, so the encoding ends with its empty string.
        let json = String(decoding: (try? encoder.encode(empty)) ?? Data(), as: UTF8.self)
        precondition(json.hasPrefix("{\"format\":3,") && json.hasSuffix("\"rows\":\"\"}"), "DeletedRows: unexpected key order in \(json)")
        return String(json.dropLast(2))
    }

    /// What the rows say: the deleted records in key order, and the records that lost one (each with
    /// the relationship that did), unless deleted too.
    package func changeSet() throws -> ChangeSet {
        var codes: [Int64: String] = [:]
        for (code, name) in names { codes[Int64(code) ?? -1] = name }
        let lostByCode = Dictionary(uniqueKeysWithValues: lost.map { code, columns in
            (Int64(code) ?? -1, columns.map { (column: $0.column, inverse: $0.inverse, names: Set([$0.inverse])) })
        })
        var changes = ChangeSet()
        // One pass over the text: values are decimal integers (or empty for NULL) separated by `,`,
        // rows by `;`.
        var values = [Int64?](repeating: nil, count: rowWidth)
        var count = 0, number: Int64 = 0, negative = false, digits = 0
        func corrupted(_ what: String) -> DecodingError {
            DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a deleted row \(what)"))
        }
        func endValue() throws {
            guard count < rowWidth else { throw corrupted("has more than \(rowWidth) values") }
            if digits == 0 {
                guard !negative else { throw corrupted("has a value that is no number") }
                values[count] = nil
            } else {
                values[count] = negative ? -number : number
            }
            count += 1
            number = 0; negative = false; digits = 0
        }
        func endRow() throws {
            try endValue()
            guard count == rowWidth else { throw corrupted("has \(count) values, not \(rowWidth)") }
            SetBasedDeletionPlan.record(deletedRow: { $0 < rowWidth ? values[$0] : nil }, lost: { lostByCode[$0] ?? [] }, names: codes, into: &changes)
            count = 0
        }
        for byte in rows.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times10, overflow1) = number.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                guard !overflow1, !overflow2 else { throw corrupted("has a number out of range") }
                number = sum; digits += 1
            case UInt8(ascii: "-") where digits == 0 && !negative: negative = true
            case UInt8(ascii: ","): try endValue()
            case UInt8(ascii: ";"): try endRow()
            default: throw corrupted("has a value that is no number")
            }
        }
        if !rows.isEmpty { try endRow() }
        SetBasedDeletionPlan.finish(&changes)
        return changes
    }
}
