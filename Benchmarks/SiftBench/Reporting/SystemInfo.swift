import CSQLite
import Foundation

/// The machine and software a report was measured on.
struct MachineInfo: Codable {
    let cpu: String
    let cores: Int
    let memoryGB: Double
    let os: String
    let sqliteVersion: String
    let sqliteSourceID: String
    let swiftVersion: String
    let buildConfiguration: String

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let meminfo = (try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8)) ?? ""
        let cpu = field("model name", in: cpuinfo) ?? "unknown"
        let memoryKB = field("MemTotal", in: meminfo).flatMap { Double($0.split(separator: " ")[0]) } ?? 0
        return MachineInfo(
            cpu: cpu,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            memoryGB: (memoryKB / 1_048_576 * 10).rounded() / 10,
            os: osDescription(),
            sqliteVersion: String(cString: sqlite3_libversion()),
            sqliteSourceID: String(cString: sqlite3_sourceid()),
            swiftVersion: compilerVersion,
            buildConfiguration: isDebugBuild ? "debug" : "release")
    }

    var summaryLine: String {
        "\(cpu), \(cores) cores, \(Format.number(memoryGB)) GB; \(os); SQLite \(sqliteVersion); "
            + "Swift \(swiftVersion); \(buildConfiguration)"
    }

    /// The value of the first `key : value` line of a /proc file.
    private static func field(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    private static func osDescription() -> String {
        let release = (try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)) ?? ""
        for line in release.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return ProcessInfo.processInfo.operatingSystemVersionString
    }

    /// The compiler that built this binary (compile-time, so free).
    static var compilerVersion: String {
        #if compiler(>=6.5)
        ">= 6.5"
        #elseif compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #elseif compiler(>=6.1)
        "6.1"
        #else
        "6.0"
        #endif
    }

    static var isDebugBuild: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }
}

/// Resident memory of this process, from /proc/self/status (Linux).
enum MemoryProbe {
    /// Resets the peak (VmHWM) to the current RSS by writing 5 to /proc/self/clear_refs (Linux >= 4.0).
    /// Returns false where that is not allowed; the peak then covers the whole process lifetime.
    static func resetPeak() -> Bool {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return write(fd, "5", 1) == 1
    }

    /// Returns freed heap pages to the kernel (glibc `malloc_trim`), so that memory freed by earlier work and
    /// reused by the next does not hide the next's growth.
    static func trimHeap() {
        // <malloc.h> is not part of the Glibc module: look the function up.
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    /// Resets SQLite's own allocation high-water mark (all connections of the process).
    static func resetSQLitePeak() {
        _ = sqlite3_memory_highwater(1)
    }

    /// Peak bytes allocated by SQLite since the last `resetSQLitePeak()`.
    static func sqlitePeakBytes() -> Int {
        Int(sqlite3_memory_highwater(0))
    }

    /// Current resident set size in bytes.
    static func residentBytes() -> Int { statusField("VmRSS:") }

    /// Peak resident set size in bytes since start or the last `resetPeak()`.
    static func peakBytes() -> Int {
        let peak = statusField("VmHWM:")
        if peak > 0 { return peak }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    private static func statusField(_ key: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            let kilobytes = line.dropFirst(key.count).split(whereSeparator: \.isWhitespace).first
                .flatMap { Int($0) } ?? 0
            return kilobytes * 1024
        }
        return 0
    }
}
