import Foundation

/// A JSON value. Extra fields of corpus and query lines are kept in this form rather than as `Any`,
/// so records stay `Sendable` and comparable.
public enum JSONValue: Sendable, Hashable {
    /// JSON `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Integers are kept apart from doubles so that numeric IDs survive unchanged.
    case integer(Int)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// A nested object.
    case object([String: JSONValue])

    /// The string, if this is one; most extra fields in BEIR data are strings.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Converts what `JSONSerialization` produced. Booleans arrive as `NSNumber` too, so the
    /// Objective-C type code is what tells `true` from `1`.
    init(foundation value: Any) {
        switch value {
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            self = JSONValue(number: number)
        case let array as [Any]:
            self = .array(array.map(JSONValue.init(foundation:)))
        case let object as [String: Any]:
            self = .object(object.mapValues(JSONValue.init(foundation:)))
        default:
            self = .null
        }
    }

    private init(number: NSNumber) {
        switch String(cString: number.objCType) {
        case "c", "B":
            self = .bool(number.boolValue)
        case "f", "d":
            self = .number(number.doubleValue)
        case "Q", "L", "I", "S", "C":
            let unsigned = number.uint64Value
            self = unsigned <= UInt64(Int.max) ? .integer(Int(unsigned)) : .number(number.doubleValue)
        default:
            self = .integer(number.intValue)
        }
    }
}
