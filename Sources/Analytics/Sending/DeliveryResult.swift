/// What became of one batch sent to the service.
public enum DeliveryResult: Sendable, Hashable {
    /// 204: the service has every event of the batch.
    case delivered
    /// 400: the service will never take this batch as it is; its messages name the bad events.
    case rejected(messages: [String])
    /// 413: the body is larger than the service accepts.
    case tooLarge
    /// 5xx: the service answered and failed on this batch. Waited out like `retryLater`, unless the
    /// service answers other requests meanwhile: then the batch holds events it fails on (a tour,
    /// point or account it no longer has) and they are searched out.
    case serviceFailed(status: Int, reason: String, after: Duration?)
    /// Not now: the service is busy (429), was cut off or could not be reached.
    /// `unreachable` when no connection could be made at all (the walker is offline); `after` when
    /// the service said how long to wait (`Retry-After`).
    case retryLater(reason: String, unreachable: Bool, after: Duration?)
    /// Something waiting will not cure (a session to log in again, a URL that is not allowed).
    case failed(reason: String)
}
