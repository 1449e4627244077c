/// Hand-written behaviour beside the generated class.
extension Item {
    /// True when the item should be reordered.
    public var needsReorder: Bool { quantity < 5 }
}
