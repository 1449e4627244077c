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
        for row in rows.utf8.split(separator: UInt8(ascii: ";")) {
            let values = row.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false).map { Int64(Substring($0)) }
            guard values.count == rowWidth else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "a deleted row has \(values.count) values, not \(rowWidth)"))
            }
            SetBasedDeletionPlan.record(deletedRow: { $0 < rowWidth ? values[$0] : nil }, lost: { lostByCode[$0] ?? [] }, names: codes, into: &changes)
        }
        SetBasedDeletionPlan.finish(&changes)
        return changes
    }
}
