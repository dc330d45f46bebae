/// What SQLite does when a constraint fails.
public enum Conflict: String, Sendable {
    case rollback = "ROLLBACK", abort = "ABORT", fail = "FAIL", ignore = "IGNORE", replace = "REPLACE"
}
