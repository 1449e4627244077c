import Foundation

/// The first 100 bytes of a SQLite database file, read without SQLite (https://sqlite.org/fileformat.html
/// §1.3), to tell a truncated file before SQLite opens it.
struct SQLiteFileHeader {
    /// The size of the file in bytes.
    let fileSize: Int
    /// The page size in bytes.
    let pageSize: Int
    /// The number of pages the header records, when the header says that count is valid.
    let recordedPageCount: Int?

    /// Reads the header; nil when the file is missing, empty or does not begin like a SQLite database
    /// (SQLite itself then reports it: "file is not a database").
    init?(path: String) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        let bytes = [UInt8](try handle.read(upToCount: 100) ?? Data())
        guard bytes.count == 100, bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        func bigEndian(_ offset: Int, _ count: Int) -> Int { bytes[offset..<offset + count].reduce(0) { $0 << 8 | Int($1) } }
        let rawPageSize = bigEndian(16, 2)
        pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        fileSize = Int(try handle.seekToEnd())
        // "The in-header database size is only considered to be valid if it is non-zero and if the
        // 4-byte change counter at offset 24 exactly matches the 4-byte version-valid-for number at offset 92."
        let count = bigEndian(28, 4)
        recordedPageCount = count > 0 && bigEndian(24, 4) == bigEndian(92, 4) ? count : nil
    }

    /// Why the file is truncated, nil when it is not (or when a write-ahead log may hold the pages the
    /// file lacks: then only SQLite can tell).
    func truncation(hasWriteAheadLog: Bool) -> String? {
        guard !hasWriteAheadLog, pageSize >= 512, let pages = recordedPageCount, fileSize < pages * pageSize else { return nil }
        return "the file is truncated: its header records \(pages) pages of \(pageSize) bytes (\(pages * pageSize) bytes), the file has \(fileSize)"
    }
}
