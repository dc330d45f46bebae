/// Stops an observation started with ``DatabaseObservation/start(onError:onChange:)``: on ``cancel()`` or when
/// the token is released. A value being delivered while it cancels may still arrive; none is fetched after.
public final class ObservationCancellable: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    init(_ onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    deinit { cancel() }

    /// Stops the observation (once; later calls do nothing).
    public func cancel() {
        let body = onCancel.withLock { body -> (@Sendable () -> Void)? in
            defer { body = nil }
            return body
        }
        body?()
    }
}
