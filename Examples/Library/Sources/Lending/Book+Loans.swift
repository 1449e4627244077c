import Foundation
import ModelgenRuntime

// Your code beside the generated classes (the plugin writes them at build time).
extension Book {
    /// Loans not returned yet.
    public var openLoans: [Loan] { loans.filter { !$0.returned }.sorted { $0.due < $1.due } }
}
