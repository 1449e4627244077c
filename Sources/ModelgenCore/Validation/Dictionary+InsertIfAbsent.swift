extension Dictionary {
    /// Stores `value` under `key` unless a value is there already, and returns that earlier value (nil
    /// when `value` went in): what keeps a name's first declaration, the later ones being reported.
    /// One hash of the key where it is new, the common case (a lookup, then an insertion, cost twice
    /// as much at 200,000 entities): `updateValue` puts `value` in, and only when there was an earlier
    /// value is that put back.
    @inline(__always)
    mutating func insertIfAbsent(_ value: Value, forKey key: Key) -> Value? {
        guard let earlier = updateValue(value, forKey: key) else { return nil }
        self[key] = earlier
        return earlier
    }
}
