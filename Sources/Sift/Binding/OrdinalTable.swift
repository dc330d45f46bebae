/// Where each of a model's columns sits in one statement (its result column, or its parameter), by key
/// ordinal, built once per statement and read for every property of every row.
///
/// A buffer rather than an array: reading an array stored in a class retains and releases it on each read.
/// The coder that owns the table frees it (`deallocate()`).
struct OrdinalTable {
    let slots: UnsafeMutableBufferPointer<Int32>
    /// The slot of a column the statement does not use.
    let absent: Int32
    /// The binding's key enum, when its tags are the ordinals (a key is then its slot in one load).
    private let taggedKeyType: ObjectIdentifier?
    /// For keys of other types (rare): ordinal by column name.
    private let ordinalByName: [String: Int]

    /// A table where ordinal `ordinal` holds `slot` for each pair, and `absent` elsewhere.
    init<Key>(_ binding: TableBinding<Key>, absent: Int32, slots pairs: [(ordinal: Int, slot: Int32)]) {
        slots = .allocate(capacity: max(1, binding.keys.count))
        slots.initialize(repeating: absent)
        for (ordinal, slot) in pairs where slots[ordinal] == absent { slots[ordinal] = slot }
        self.absent = absent
        taggedKeyType = binding.keysAreTagged(Key.self) ? ObjectIdentifier(Key.self) : nil
        ordinalByName = binding.ordinalByName
    }

    func deallocate() { slots.deallocate() }

    /// Whether keys of type `K` are the tagged binding enum.
    @inline(__always)
    func isTagged<K>(_ type: K.Type) -> Bool { taggedKeyType == ObjectIdentifier(K.self) }

    /// The slot of `key`; `byTag` is `isTagged(K.self)`, which callers work out once per key type.
    @inline(__always)
    func slot<K: CodingKey>(of key: K, byTag: Bool) -> Int32 {
        byTag ? slots[Int(unsafeBitCast(key, to: UInt8.self))] : slot(named: key.stringValue)
    }

    func slot(named name: String) -> Int32 {
        guard let ordinal = ordinalByName[name], ordinal < slots.count else { return absent }
        return slots[ordinal]
    }
}
