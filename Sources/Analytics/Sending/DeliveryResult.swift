/// What became of one batch sent to the service.
public enum DeliveryResult: Sendable, Hashable {
    /// 204: the service has every event of the batch.
    case delivered
    /// 400: the service will never take this batch as it is; its messages name the bad events.
    case rejected(messages: [String])
    /// 413: the body is larger than the service accepts.
    case tooLarge
    /// Not now: the service failed (5xx), is busy (429), was cut off or could not be reached.
    /// `unreachable` when no connection could be made at all (the walker is offline); `after` when
    /// the service said how long to wait (`Retry-After`).
    case retryLater(reason: String, unreachable: Bool, after: Duration?)
    /// Something waiting will not cure (a session to log in again, a URL that is not allowed).
    case failed(reason: String)
}
