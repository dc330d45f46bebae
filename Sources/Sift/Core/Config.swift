import CSQLite

/// Sets up a connection; runs on every connection of a database, current and future.
public typealias Config = @Sendable (Handle) throws -> Void

/// A named config and where it runs relative to the others.
struct ConfigEntry: Sendable {
    let name: String
    let order: Int
    let body: Config
}

/// The configs every database starts with; each can be replaced or removed by name.
enum DefaultConfig {
    /// Wait for other processes' locks instead of failing at once.
    static let busyTimeoutName = "sift.busyTimeout"
    /// Write-ahead logging: readers never block the writer, nor the writer readers.
    static let journalModeName = "sift.journalMode"
    /// Enforce the foreign keys the bindings declare.
    static let foreignKeysName = "sift.foreignKeys"

    static let all: [ConfigEntry] = [
        ConfigEntry(name: busyTimeoutName, order: Int.min, body: { $0.setBusyTimeout(10) }),
        ConfigEntry(name: journalModeName, order: Int.min + 1, body: { handle in
            try handle.exec(sql: "PRAGMA journal_mode=WAL")
            try handle.exec(sql: "PRAGMA synchronous=NORMAL")
        }),
        ConfigEntry(name: foreignKeysName, order: Int.min + 2, body: { try $0.exec(sql: "PRAGMA foreign_keys=ON") }),
    ]
}

extension Database {
    /// The default config that switches connections to WAL with `synchronous=NORMAL`; remove it to open a
    /// file without changing its journal mode (for example to inspect a database of unknown kind).
    public static let journalModeConfigName = DefaultConfig.journalModeName
    /// The default config that sets a 10-second busy timeout.
    public static let busyTimeoutConfigName = DefaultConfig.busyTimeoutName
    /// The default config that turns on foreign-key enforcement.
    public static let foreignKeysConfigName = DefaultConfig.foreignKeysName

    /// Installs or replaces the config `name`; it runs on every connection, open now or later,
    /// before that connection's next use. Configs run in ascending `order`.
    ///
    ///     database.setConfig(named: "cacheSize") { handle in
    ///         try handle.exec(sql: "PRAGMA cache_size=-8000")
    ///     }
    public func setConfig(named name: String, with config: @escaping Config, orderBy order: Int = 0) {
        pool.setConfig(ConfigEntry(name: name, order: order, body: config))
    }

    /// Removes the config `name`. Connections keep what it already set; new ones no longer run it.
    public func removeConfig(named name: String) {
        pool.removeConfig(named: name)
    }
}
