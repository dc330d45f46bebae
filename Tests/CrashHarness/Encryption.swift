import Foundation
import Sift

/// The database at `path`; encrypted with the raw key in the environment variable `SIFT_CRASH_KEY` (64 hex digits)
/// when it is set, so the harness (and the writers it starts, which inherit the variable) test encrypted files.
func openDatabase(_ path: String) -> Database {
    let database = Database(withPath: path)
    guard let hex = ProcessInfo.processInfo.environment["SIFT_CRASH_KEY"] else { return database }
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex), next > index,
          let byte = UInt8(hex[index..<next], radix: 16) {
        bytes.append(byte)
        index = next
    }
    guard bytes.count == 32, index == hex.endIndex else { fail("SIFT_CRASH_KEY must be 64 hex digits") }
    do {
        try database.setCipherKey(rawKey: Data(bytes))
    } catch {
        fail("cannot set the key: \(error)")
    }
    return database
}
