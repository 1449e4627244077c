/// The decimal digits of an integer as ASCII bytes (a `-` first when negative), made on the stack
/// for writers of text that cannot afford a `String` per number (history rows, PostgreSQL's COPY text).
package func withDecimalDigits<R>(of value: Int64, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
    try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
        var magnitude = value.magnitude
        var start = 20
        repeat {
            start -= 1
            digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        } while magnitude > 0
        if value < 0 {
            start -= 1
            digits[start] = UInt8(ascii: "-")
        }
        return try body(UnsafeBufferPointer(rebasing: digits[start..<20]))
    }
}
