import Foundation

/// Wall time between laps, to say how long each phase of a long run takes.
struct PhaseClock {
    private var last = DispatchTime.now().uptimeNanoseconds

    /// The seconds since the previous lap (or since the clock was made), and starts the next lap.
    mutating func lap() -> Double {
        let now = DispatchTime.now().uptimeNanoseconds
        defer { last = now }
        return Double(now - last) / 1e9
    }
}
