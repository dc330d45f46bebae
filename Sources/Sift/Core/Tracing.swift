import Foundation

/// A database's tag, reported with its errors and performance traces.
public typealias Tag = Int

/// Receives every error Sift reports.
public typealias ErrorTracer = @Sendable (SiftError) -> Void
/// Receives the text of every SQL statement executed (with `?` placeholders, never the bound values).
public typealias SQLTracer = @Sendable (String) -> Void
/// Receives the SQL texts run with how often each ran, and their total cost in nanoseconds:
/// one call per statement outside a transaction, one call per transaction inside one.
public typealias PerformanceTracer = @Sendable (Tag?, [String: Int], Int64) -> Void

/// The hooks in force on one connection: the database's own, else the global ones.
struct TraceHooks {
    var error: ErrorTracer?
    var sql: SQLTracer?
    var performance: PerformanceTracer?
    var isActive: Bool { sql != nil || performance != nil }

    /// Per-database hooks take precedence over global ones, hook by hook.
    func overriding(_ global: TraceHooks) -> TraceHooks {
        TraceHooks(error: error ?? global.error, sql: sql ?? global.sql, performance: performance ?? global.performance)
    }
}

/// Process-wide hooks; setting one bumps every live pool so connections pick it up at their next use.
enum GlobalTrace {
    static let hooks = Locked(TraceHooks())

    static func update(_ change: (inout TraceHooks) -> Void) {
        hooks.withLock { change(&$0) }
        PoolRegistry.forEachPool { $0.hooksChanged() }
    }
}

extension Database {
    /// Reports every error of every database to `tracer` (nil removes it).
    public static func globalTrace(ofError tracer: ErrorTracer?) {
        GlobalTrace.update { $0.error = tracer }
    }

    /// Reports every SQL statement every database executes (nil removes it). Costs nothing when unset.
    public static func globalTrace(ofSQL tracer: SQLTracer?) {
        GlobalTrace.update { $0.sql = tracer }
    }

    /// Reports the SQL and cost of every statement or transaction of every database (nil removes it).
    public static func globalTrace(ofPerformance tracer: PerformanceTracer?) {
        GlobalTrace.update { $0.performance = tracer }
    }

    /// Reports this database's errors to `tracer`, instead of the global error tracer (nil removes it).
    public func trace(ofError tracer: ErrorTracer?) {
        pool.updateHooks { $0.error = tracer }
    }

    /// Reports this database's SQL to `tracer`, instead of the global SQL tracer (nil removes it).
    public func trace(ofSQL tracer: SQLTracer?) {
        pool.updateHooks { $0.sql = tracer }
    }

    /// Reports this database's performance to `tracer`, instead of the global one (nil removes it).
    public func trace(ofPerformance tracer: PerformanceTracer?) {
        pool.updateHooks { $0.performance = tracer }
    }
}
