/// A column of a store's current row, read straight into an object's slot (`SlotLoading`).
protocol SlotSource {
    func int64(_ column: Int32) -> Int64
    func double(_ column: Int32) -> Double
    func isNull(_ column: Int32) -> Bool
    /// The column's text; nil for NULL.
    func textIfPresent(_ column: Int32) -> String?
    /// The column's value as an attribute of `type` keeps it.
    func storeValue(_ column: Int32, type: AttributeType) -> StoreValue
}

/// Writing an object's slots in place from a store's row (a fetch that loads its objects as it reads,
/// see `DirectLoadingStore`): the only code outside `ManagedObject` that writes slot memory.
enum SlotLoading {
    /// Reads `column` of `source` into the slot at `raw` (of scalar kind `kind`) of a plain stored
    /// attribute of `type`: what the column's `StoreValue` and then the slot's conversion would write,
    /// without the value between them.
    @inline(__always)
    static func load<Source: SlotSource>(_ source: Source, _ column: Int32, type: AttributeType, kind: UInt8, into raw: UnsafeMutableRawPointer) {
        let scalar = ScalarKind(rawValue: kind) ?? .boxed
        let cell = raw.assumingMemoryBound(to: ScalarCell.self)
        switch scalar {
        case .int, .bool:
            let number = source.int64(column)
            cell.pointee = number == 0 && source.isNull(column) ? ScalarCell(bits: 0, isNull: true)
                : ScalarCell(bits: scalar == .bool ? (number != 0 ? 1 : 0) : UInt64(bitPattern: number), isNull: false)
        case .double, .date:
            let number = source.double(column)
            cell.pointee = ScalarCell(bits: number.bitPattern, isNull: number == 0 && source.isNull(column))
        case .boxed:
            // Text, the usual boxed value, without a `StoreValue` to convert.
            raw.assumingMemoryBound(to: SlotValue.self).pointee = type == .string ? source.textIfPresent(column).map(SlotValue.string) ?? .null
                : SlotValue(source.storeValue(column, type: type))
        }
    }

    /// Writes `value` into the boxed slot at `raw`.
    @inline(__always)
    static func store(_ value: StoreValue, into raw: UnsafeMutableRawPointer) {
        raw.assumingMemoryBound(to: SlotValue.self).pointee = SlotValue(value)
    }
}
