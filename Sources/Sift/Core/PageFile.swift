import Foundation

/// A database file's bytes read by SQLite's file format (https://sqlite.org/fileformat2.html), for recovery: it
/// reads what SQLite refuses to, and checks every offset, byteCount, page number and varint against the bytes it
/// has, so garbage yields `nil` (a page or cell that cannot be read), never a trap.
struct PageFile {
    /// The text encoding the header declares (offset 56).
    enum TextEncoding: Int, Codable, Sendable {
        case utf8 = 1, utf16le = 2, utf16be = 3
    }

    /// A b-tree page's kind (its first header byte).
    enum PageKind: UInt8 {
        case indexInterior = 2, tableInterior = 5, indexLeaf = 10, tableLeaf = 13
    }

    /// One cell of a table leaf page: its rowid and its record, with the overflow pages it used. When its
    /// overflow chain is broken, `payload` holds what could be read, shorter than `payloadSize`.
    struct Cell {
        let rowID: Int64
        let payload: [UInt8]
        let payloadSize: Int
        let overflowPages: [Int]
    }

    let bytes: [UInt8]
    let pageSize: Int
    /// Page size minus the bytes reserved at the end of each page (header offset 20).
    let usableSize: Int
    let encoding: TextEncoding
    /// Whole pages present in the file.
    let pageCount: Int
    /// Pages the header says the file has (offset 28) when it is valid, else `pageCount`.
    let declaredPageCount: Int
    /// Whether the first 100 bytes are a valid SQLite header.
    let hasValidHeader: Bool

    /// Reads `bytes`; the page size and encoding come from the header when it is valid, else from the given
    /// fallbacks (a backup's), else the page size is guessed from which page boundaries hold b-tree pages.
    /// `fallbackReserved` is the bytes each page reserves at its end when the header cannot say (an encrypted file's).
    init(bytes: [UInt8], fallbackPageSize: Int? = nil, fallbackEncoding: TextEncoding? = nil, fallbackReserved: Int = 0) {
        self.bytes = bytes
        let header = PageFile.header(bytes)
        hasValidHeader = header != nil
        let size = header?.pageSize ?? fallbackPageSize.flatMap { PageFile.isValidPageSize($0) ? $0 : nil }
            ?? PageFile.guessPageSize(bytes)
        pageSize = size
        usableSize = size - (header?.reserved ?? fallbackReserved)
        encoding = header?.encoding ?? fallbackEncoding ?? .utf8
        pageCount = bytes.count / size
        // The header's size counts only when its "valid for" number matches the change counter, and within reason:
        // garbage there must not make the file look billions of pages long.
        let declared = header?.pageCount ?? 0
        declaredPageCount = declared > pageCount && declared <= max(pageCount * 64, 65536) ? declared : pageCount
    }

    /// Whether the file has pages but neither a header nor more than a chance few pages that read as b-tree pages:
    /// what an encrypted file looks like without its key (random bytes, to this reader). A random page passes
    /// `kind(of:)` (a page type byte, then a cell count and a content offset in range) about once in 70,000, so a file
    /// of 64 pages or more may have one such page, and one more per 10,000 pages; a smaller one none. A plain file
    /// whose header is lost reads as b-tree pages at every table's and index's root, and mostly throughout.
    var looksEncrypted: Bool {
        guard !hasValidHeader, pageCount >= 1 else { return false }
        let chance = pageCount >= 64 ? 1 + pageCount / 10_000 : 0
        var readable = 0
        for page in 1...pageCount where kind(of: page) != nil {
            readable += 1
            if readable > chance { return false }
        }
        return true
    }

    static func isValidPageSize(_ size: Int) -> Bool {
        size >= 512 && size <= 65536 && size & (size - 1) == 0
    }

    /// The header's page size, reserved bytes, encoding and page count, or nil when it is not a valid header.
    static func header(_ bytes: [UInt8]) -> (pageSize: Int, reserved: Int, encoding: TextEncoding, pageCount: Int)? {
        guard bytes.count >= 100, bytes[0..<16].elementsEqual(Array("SQLite format 3".utf8) + [0]) else { return nil }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        let size = raw == 1 ? 65536 : raw
        let reserved = Int(bytes[20])
        guard isValidPageSize(size), size - reserved >= 480 else { return nil }
        let encoding = TextEncoding(rawValue: Int(bytes[56]) << 24 | Int(bytes[57]) << 16 | Int(bytes[58]) << 8 | Int(bytes[59])) ?? .utf8
        let count = Int(bytes[28]) << 24 | Int(bytes[29]) << 16 | Int(bytes[30]) << 8 | Int(bytes[31])
        let current = bytes[24..<28].elementsEqual(bytes[92..<96])
        return (size, reserved, encoding, current ? count : 0)
    }

    /// The page size at whose boundaries the most b-tree pages start whose every cell pointer lies inside the page:
    /// a multiple of the real size finds half as many, a fraction of it finds pages whose cells point past its end.
    static func guessPageSize(_ bytes: [UInt8]) -> Int {
        let sizes = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536]
        let hits = sizes.map { size -> Int in
            let file = PageFile(unchecked: bytes, pageSize: size)
            let pages = min(file.pageCount, 100_000)
            guard pages > 1 else { return 0 }
            return (2...pages).filter { page in file.kind(of: page).flatMap { file.cellOffsets(of: page, kind: $0) } != nil }.count
        }
        guard let best = hits.max(), best > 0, let index = hits.firstIndex(of: best) else { return 4096 }
        return sizes[index]
    }

    private init(unchecked bytes: [UInt8], pageSize: Int) {
        self.bytes = bytes
        self.pageSize = pageSize
        usableSize = pageSize
        encoding = .utf8
        pageCount = bytes.count / pageSize
        declaredPageCount = pageCount
        hasValidHeader = false
    }

    // MARK: - Bytes

    private func u8(_ offset: Int) -> Int? {
        offset >= 0 && offset < bytes.count ? Int(bytes[offset]) : nil
    }

    private func u16(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 2 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 8 | Int(bytes[offset + 1])
    }

    private func u32(_ offset: Int) -> Int? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    /// A varint at `offset` of `buffer`, not reading at or past `end`: its value and byteCount.
    static func varint(_ buffer: [UInt8], at offset: Int, end: Int) -> (value: Int64, byteCount: Int)? {
        var value: UInt64 = 0
        for i in 0..<9 {
            let at = offset + i
            guard at >= 0, at < end, at < buffer.count else { return nil }
            let byte = UInt64(buffer[at])
            if i == 8 { return (Int64(bitPattern: value << 8 | byte), 9) }
            value = value << 7 | (byte & 0x7F)
            if byte & 0x80 == 0 { return (Int64(bitPattern: value), i + 1) }
        }
        return nil
    }

    /// The byte offset of page `number` (1-based), when the page is wholly in the file.
    func offset(of number: Int) -> Int? {
        guard number >= 1, number <= pageCount else { return nil }
        return (number - 1) * pageSize
    }

    /// Where the b-tree header of page `number` starts (page 1 has the file header first).
    private func headerOffset(of number: Int) -> Int? {
        offset(of: number).map { $0 + (number == 1 ? 100 : 0) }
    }

    // MARK: - B-tree pages

    /// The b-tree kind of page `number` when its header is plausible (cell count and content area fit the page).
    func kind(of number: Int) -> PageKind? {
        guard let start = offset(of: number), let h = headerOffset(of: number), let byte = u8(h),
              let kind = PageKind(rawValue: UInt8(byte)), let cells = u16(h + 3), let content = u16(h + 5) else { return nil }
        let headerSize = kind == .tableLeaf || kind == .indexLeaf ? 8 : 12
        let pointersEnd = h - start + headerSize + 2 * cells
        guard pointersEnd <= usableSize, content == 0 || (content >= pointersEnd && content <= usableSize) else { return nil }
        return kind
    }

    /// The cell offsets (absolute) of page `number`, each inside the page's usable area past the pointer array,
    /// each once: pointers that repeat one (a real page has none) do not make its cell read again.
    private func cellOffsets(of number: Int, kind: PageKind) -> [Int]? {
        guard let start = offset(of: number), let h = headerOffset(of: number), let count = u16(h + 3) else { return nil }
        let pointers = h + (kind == .tableLeaf || kind == .indexLeaf ? 8 : 12)
        let low = pointers + 2 * count - start
        var offsets: [Int] = []
        var seen = Set<Int>(minimumCapacity: count)
        for i in 0..<count {
            guard let cell = u16(pointers + 2 * i), cell >= low, cell < usableSize else { return nil }
            if seen.insert(cell).inserted { offsets.append(start + cell) }
        }
        return offsets
    }

    /// The child pages of an interior page (table or index), each a page number within the file's declared size.
    func children(of number: Int) -> [Int]? {
        guard let kind = kind(of: number), kind == .tableInterior || kind == .indexInterior,
              let h = headerOffset(of: number), let right = u32(h + 8), let cells = cellOffsets(of: number, kind: kind) else { return nil }
        var pages: [Int] = []
        for cell in cells {
            guard let child = u32(cell) else { return nil }
            pages.append(child)
        }
        pages.append(right)
        return pages.allSatisfy({ $0 >= 2 && $0 <= declaredPageCount }) ? pages : nil
    }

    /// The cells of a table leaf page, or of an index page (leaf or interior: an index b-tree keeps an entry once,
    /// wherever it sits; its rowid is 0); a cell whose lengths do not fit the page is left out and counted in
    /// `unreadable`. `chained` holds the overflow pages read so far: each is read for one cell only (a real file
    /// never shares one), so however many cells point into a chain, it is copied once.
    func cells(of number: Int, chained: inout Set<Int>) -> (cells: [Cell], unreadable: Int)? {
        guard let kind = kind(of: number), kind != .tableInterior, let start = offset(of: number),
              let offsets = cellOffsets(of: number, kind: kind) else { return nil }
        let end = start + usableSize
        var cells: [Cell] = []
        var unreadable = 0
        for cell in offsets {
            let at = kind == .indexInterior ? cell + 4 : cell
            guard let size = PageFile.varint(bytes, at: at, end: end), size.value >= 0,
                  let rowid = kind == .tableLeaf ? PageFile.varint(bytes, at: at + size.byteCount, end: end) : (0, 0),
                  let payload = payload(at: at + size.byteCount + rowid.byteCount, size: Int(clamping: size.value), pageEnd: end,
                                        index: kind != .tableLeaf, chained: &chained) else {
                unreadable += 1
                continue
            }
            cells.append(Cell(rowID: rowid.0, payload: payload.bytes, payloadSize: Int(clamping: size.value), overflowPages: payload.overflow))
        }
        return (cells, unreadable)
    }

    /// A cell's payload of `size` bytes starting at `start` (index pages keep less of it locally): the local part, then the overflow chain as
    /// far as it can be followed (a page whose link is not a page of the file, a page already read for another
    /// cell (in `chained`) or for this one, or a last page whose link is not 0, is garbage and ends it). A size
    /// that the file's declared pages could not hold is garbage: nil.
    private func payload(at start: Int, size: Int, pageEnd: Int, index: Bool, chained: inout Set<Int>) -> (bytes: [UInt8], overflow: [Int])? {
        let u = usableSize
        let maxLocal = index ? (u - 12) * 64 / 255 - 23 : u - 35
        var local = size
        if size > maxLocal {
            let minLocal = (u - 12) * 32 / 255 - 23
            let k = minLocal + (size - minLocal) % (u - 4)
            local = k <= maxLocal ? k : minLocal
        }
        guard size <= 1 << 30, start + local <= pageEnd, size - local <= declaredPageCount * (u - 4) else { return nil }
        var result = Array(bytes[start..<start + local])
        var overflow: [Int] = []
        guard local < size else { return (result, overflow) }
        guard var next = u32(start + local) else { return nil }
        // Memory for what the pages present can hold, not for what the cell claims.
        result.reserveCapacity(local + min(size - local, max(0, pageCount - chained.count) * (u - 4)))
        while result.count < size {
            guard overflow.count < pageCount, let page = offset(of: next), chained.insert(next).inserted else { break }
            let take = min(size - result.count, u - 4)
            // An overflow page starts with the next one's number, 0 on the last: garbage rarely says so.
            guard let following = u32(page), following <= declaredPageCount, (following == 0) == (result.count + take == size) else { break }
            overflow.append(next)
            result.append(contentsOf: bytes[page + 4..<page + 4 + take])
            next = following
        }
        return (result, overflow)
    }

    /// The pages on the freelist (trunk and leaf pages), as far as its chain can be followed.
    func freelistPages() -> Set<Int> {
        guard hasValidHeader, var trunk = u32(32), let total = u32(36) else { return [] }
        var pages: Set<Int> = []
        while trunk != 0, pages.count <= min(total, pageCount), let start = offset(of: trunk), !pages.contains(trunk) {
            pages.insert(trunk)
            guard let next = u32(start), let count = u32(start + 4), count <= usableSize / 4 - 2 else { break }
            for i in 0..<count {
                if let leaf = u32(start + 8 + 4 * i), leaf >= 2, leaf <= pageCount { pages.insert(leaf) }
            }
            trunk = next
        }
        return pages
    }

    // MARK: - Records

    /// SQLite's hard limit on a table's columns (SQLITE_MAX_COLUMN can be raised to it, no further): a record
    /// header listing more values is garbage.
    static let maximumColumns = 32767

    /// The values of a record (https://sqlite.org/fileformat2.html#record_format) of `size` bytes, or nil when its
    /// header's lengths do not add up to exactly that size: the check that tells a record from garbage. When only
    /// a prefix of the record could be read (a broken overflow chain), the values it holds whole are returned, the
    /// one it cuts keeps its readable part (text and blobs; a number becomes NULL), the rest are NULL.
    func values(ofRecord record: [UInt8], size: Int) -> (values: [FundamentalValue], isPartial: Bool)? {
        guard let headerSize = PageFile.varint(record, at: 0, end: record.count), headerSize.value >= 1,
              headerSize.value <= Int64(min(record.count, size)) else { return nil }
        let headerEnd = Int(headerSize.value)
        var types: [Int64] = []
        var at = headerSize.byteCount
        var contentSize = 0
        while at < headerEnd {
            guard let type = PageFile.varint(record, at: at, end: headerEnd), type.value >= 0, type.value != 10, type.value != 11,
                  let byteCount = PageFile.contentLength(of: type.value) else { return nil }
            types.append(type.value)
            contentSize += byteCount
            at += type.byteCount
            guard contentSize <= size, types.count <= PageFile.maximumColumns else { return nil }
        }
        guard at == headerEnd, headerEnd + contentSize == size else { return nil }
        var values: [FundamentalValue] = []
        values.reserveCapacity(types.count)
        var offset = headerEnd
        for type in types {
            let byteCount = PageFile.contentLength(of: type) ?? 0
            let available = max(0, min(byteCount, record.count - offset))
            let body = record[min(offset, record.count)..<min(offset, record.count) + available]
            offset += byteCount
            if available < byteCount {
                values.append(available == 0 || type < 12 ? .null : type % 2 == 0 ? FundamentalValue(Data(body)) : FundamentalValue(text(body)))
                continue
            }
            switch type {
            case 0: values.append(.null)
            case 1...6: values.append(FundamentalValue(PageFile.signedInteger(body)))
            case 7: values.append(FundamentalValue(Double(bitPattern: UInt64(bitPattern: PageFile.signedInteger(body)))))
            case 8: values.append(FundamentalValue(Int64(0)))
            case 9: values.append(FundamentalValue(Int64(1)))
            case let t where t % 2 == 0: values.append(FundamentalValue(Data(body)))
            default: values.append(FundamentalValue(text(body)))
            }
        }
        return (values, record.count < size)
    }

    private func text(_ body: ArraySlice<UInt8>) -> String {
        switch encoding {
        case .utf8: return String(decoding: body, as: UTF8.self)
        case .utf16le, .utf16be:
            let units = stride(from: body.startIndex, to: body.endIndex - 1, by: 2).map { i -> UInt16 in
                let a = UInt16(body[i]), b = UInt16(body[i + 1])
                return encoding == .utf16le ? a | b << 8 : a << 8 | b
            }
            return String(decoding: units, as: UTF16.self)
        }
    }

    static func contentLength(of serialType: Int64) -> Int? {
        switch serialType {
        case 0, 8, 9: return 0
        case 1, 2, 3, 4: return Int(serialType)
        case 5: return 6
        case 6, 7: return 8
        case 10, 11: return nil
        default: return serialType > 1 << 32 ? nil : Int((serialType - 12) / 2)
        }
    }

    /// A big-endian two's-complement integer of 1 to 8 bytes.
    static func signedInteger(_ body: ArraySlice<UInt8>) -> Int64 {
        guard let first = body.first else { return 0 }
        var value: Int64 = first & 0x80 != 0 ? -1 : 0
        for byte in body { value = value << 8 | Int64(byte) }
        return value
    }
}

extension PageFile {
    /// The pages of a file encrypted with `key` (and of its write-ahead log), authenticated and decrypted one by
    /// one (SiftCipher's format): a page whose HMAC fails, damaged, becomes zeros, which read as a lost page. The
    /// keys come from the file's salt, its first 16 bytes, unless the key has its own.
    /// - Throws: ``CipherFailure/notEncrypted`` for a plain file; ``CipherFailure/wrongKey`` when no page
    ///   authenticates (a wrong key or page size, or the salt destroyed with a key that needs it).
    static func decrypting(_ bytes: [UInt8], wal: [UInt8]?, with key: CipherKey, path: String) throws -> (bytes: [UInt8], wal: [UInt8]?) {
        let size = key.pageSize
        guard bytes.count >= size else { return (bytes, wal) }
        guard !bytes.starts(with: Array("SQLite format 3".utf8) + [0]) else {
            throw CipherKey.error(.notEncrypted, code: .notADatabase, message: "\(path) is not encrypted, but a cipher key was given.", path: path)
        }
        guard let reader = bytes.withUnsafeBytes({ CipherEngine.pageReader(key.context, head: $0.baseAddress) }) else {
            throw CipherKey.error(.cryptoFailure, code: .error, message: "Cannot derive the keys of \(path) (libcrypto failed).", path: path)
        }
        defer { CipherEngine.freePageReader(reader) }
        /// Decrypts the page at `offset` of `buffer` in place; false when it fails authentication.
        func decrypt(_ buffer: inout [UInt8], page: Int, at offset: Int) throws -> Bool {
            let rc = buffer.withUnsafeMutableBytes { raw -> Int32 in
                guard let base = raw.baseAddress, offset + size <= raw.count else { return -1 }
                return CipherEngine.decrypt(reader, page: UInt32(page), at: base + offset)
            }
            guard rc >= 0 else {
                throw CipherKey.error(.cryptoFailure, code: .error, message: "Cannot decrypt page \(page) of \(path) (libcrypto failed).", path: path)
            }
            return rc == 0
        }
        var plain = Array(bytes[..<(bytes.count / size * size)])
        var authentic = 0
        for page in 1...plain.count / size {
            let offset = (page - 1) * size
            if try decrypt(&plain, page: page, at: offset) {
                authentic += 1
            } else {
                plain.replaceSubrange(offset..<offset + size, with: repeatElement(0, count: size))
            }
        }
        guard authentic > 0 else {
            let salt = key.hasSalt ? "." : ", or its first 16 bytes (the salt the key is derived with) are destroyed: then only a "
                + "raw key given with the file's salt can read it."
            throw CipherKey.error(.wrongKey, code: .notADatabase,
                                  message: "No page of \(path) authenticates with the key: a wrong key or page size" + salt, path: path)
        }
        // WAL frames: a 24-byte header (the page number first) as SQLite wrote it, then the page encrypted. A frame
        // that fails authentication stays as it is: its checksum, of the plaintext, then ends the log there.
        guard var log = wal, log.count >= 32 else { return (plain, wal) }
        var frame = 32
        while frame + 24 + size <= log.count {
            let page = Int(log[frame]) << 24 | Int(log[frame + 1]) << 16 | Int(log[frame + 2]) << 8 | Int(log[frame + 3])
            if page >= 1 { _ = try decrypt(&log, page: page, at: frame + 24) }
            frame += 24 + size
        }
        return (plain, log)
    }

    /// `bytes` with the committed frames of a write-ahead log applied (https://sqlite.org/fileformat2.html#walformat):
    /// frames are taken while their salts match the log's header and their running checksums hold, up to the last
    /// commit frame among them, which also gives the database's size. That size is believed up to the pages the file
    /// has plus one per frame (a commit grows the database only by pages it writes to the log): a crafted commit
    /// frame claiming billions of pages sizes nothing. A log that is not one changes nothing.
    static func applyingWAL(_ wal: [UInt8], to bytes: [UInt8]) -> (bytes: [UInt8], pageSize: Int?) {
        guard wal.count >= 32 else { return (bytes, nil) }
        let word = { (offset: Int) -> UInt32 in
            UInt32(wal[offset]) << 24 | UInt32(wal[offset + 1]) << 16 | UInt32(wal[offset + 2]) << 8 | UInt32(wal[offset + 3])
        }
        let magic = word(0)
        guard magic == 0x377F_0682 || magic == 0x377F_0683 else { return (bytes, nil) }
        let bigEndian = magic == 0x377F_0683
        let pageSize = Int(word(8))
        guard isValidPageSize(pageSize) else { return (bytes, nil) }
        /// SQLite's WAL checksum over `count` bytes at `offset`, continuing from `sums`.
        func checksum(_ offset: Int, _ count: Int, _ sums: (UInt32, UInt32)) -> (UInt32, UInt32) {
            var (s0, s1) = sums
            for i in stride(from: offset, to: offset + count, by: 8) {
                let x0 = bigEndian ? word(i) : word(i).byteSwapped
                let x1 = bigEndian ? word(i + 4) : word(i + 4).byteSwapped
                s0 = s0 &+ x0 &+ s1
                s1 = s1 &+ x1 &+ s0
            }
            return (s0, s1)
        }
        var sums = checksum(0, 24, (0, 0))
        guard sums == (word(24), word(28)) else { return (bytes, nil) }
        var frames: [(page: Int, offset: Int)] = []
        var committed: (frames: Int, pages: Int)?
        var offset = 32
        while offset + 24 + pageSize <= wal.count, word(offset + 8) == word(16), word(offset + 12) == word(20) {
            sums = checksum(offset + 24, pageSize, checksum(offset, 8, sums))
            guard sums == (word(offset + 16), word(offset + 20)) else { break }
            frames.append((Int(word(offset)), offset + 24))
            if word(offset + 4) != 0 { committed = (frames.count, Int(word(offset + 4))) }
            offset += 24 + pageSize
        }
        guard let committed else { return (bytes, pageSize) }
        var result = bytes
        let pages = min(committed.pages, bytes.count / pageSize + committed.frames)
        let size = pages * pageSize
        if result.count < size { result += [UInt8](repeating: 0, count: size - result.count) } else { result.removeLast(result.count - size) }
        for frame in frames[..<committed.frames] where frame.page >= 1 && frame.page <= pages {
            result.replaceSubrange((frame.page - 1) * pageSize..<frame.page * pageSize, with: wal[frame.offset..<frame.offset + pageSize])
        }
        return (result, pageSize)
    }
}
