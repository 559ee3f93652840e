import Foundation

/// Sends requests through a transport: follows redirects under `RedirectRule` and retries under
/// `RetryPolicy`.
///
/// A request marked idempotent (every GET; an analytics batch, whose events carry ids the service
/// de-duplicates) is retried after transient failures, 408, 429 and 5xx. Any other request (login,
/// register, refresh, a voucher) is sent again only when the transport proves nothing was sent
/// (connection refused, no connection in time): once it may have reached the server, a second
/// copy could register twice or spend a voucher's use.
public struct RequestExecutor: Sendable {
    public var transport: any HTTPTransport
    public var policy: RetryPolicy
    public var redirects: RedirectRule
    public var timer: any RetryTimer
    public var jitter: any JitterSource
    public var onRetry: (@Sendable (RetryNotice) -> Void)?

    public init(
        transport: any HTTPTransport, policy: RetryPolicy = RetryPolicy(), redirects: RedirectRule = RedirectRule(),
        timer: any RetryTimer = SystemRetryTimer(), jitter: any JitterSource = SystemJitter(),
        onRetry: (@Sendable (RetryNotice) -> Void)? = nil
    ) {
        self.transport = transport
        self.policy = policy
        self.redirects = redirects
        self.timer = timer
        self.jitter = jitter
        self.onRetry = onRetry
    }

    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The final answer (which may still be an error status: the caller names it), or the last
    /// transport failure once no attempt is left.
    ///
    /// With `collectingUpTo`, the body is read within the attempt (up to that many bytes) and
    /// returned in memory, so an answer that breaks off mid-body counts as a failed attempt too.
    /// Without it the body streams to the caller, whose business a broken body then is.
    public func send(_ request: HTTPRequest, idempotent: Bool, collectingUpTo limit: Int? = nil)
        async throws(TransportError) -> HTTPResponse
    {
        var attempt = 1
        // Once the service answered with a retryable status it was reached, only struggling: a
        // broken connection after that belongs to the same struggle and gets as many attempts (the
        // notices announced them).
        var struggling = false
        while true {
            do {
                var response = try await sendFollowingRedirects(request)
                guard idempotent, Self.retryableStatuses.contains(response.status) else {
                    if let limit { response.body = .bytes(try await response.body.collect(upTo: limit)) }
                    return response
                }
                let retryAfter = response.headers["Retry-After"].flatMap { RetryAfter.parse($0, now: timer.now()) }
                guard
                    let wait = policy.delay(
                        afterAttempt: attempt, retryAfter: retryAfter, fraction: jitter.fraction(), serverError: true)
                else {
                    if let limit { response.body = .bytes(try await response.body.collect(upTo: limit)) }
                    return response
                }
                await response.body.discard()
                struggling = true
                try await pause(
                    wait, before: attempt + 1, of: attempts(serverError: true), request: request,
                    reason: "HTTP \(response.status)")
            } catch {
                guard error.kind != .cancelled, error.isTransient, idempotent || error.requestWasNotSent,
                    let wait = policy.delay(
                        afterAttempt: attempt, retryAfter: nil, fraction: jitter.fraction(), serverError: struggling)
                else {
                    throw error
                }
                try await pause(
                    wait, before: attempt + 1, of: attempts(serverError: struggling), request: request,
                    reason: error.detail)
            }
            attempt += 1
        }
    }

    private func attempts(serverError: Bool) -> Int { policy.attempts(serverError: serverError) }

    private func pause(_ wait: Duration, before attempt: Int, of maxAttempts: Int, request: HTTPRequest, reason: String)
        async throws(TransportError)
    {
        onRetry?(
            RetryNotice(
                request: request.summary, attempt: attempt, maxAttempts: maxAttempts,
                delay: wait, reason: reason))
        do { try await timer.sleep(for: wait) } catch { throw TransportError(.cancelled, "cancelled") }
    }

    private func sendFollowingRedirects(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse {
        var current = request
        var visited: Set<String> = [request.url.absoluteString]
        while true {
            let response = try await transport.send(current)
            guard
                let next = redirects.follow(current, status: response.status, location: response.headers["Location"])
            else {
                return response
            }
            await response.body.discard()
            // A loop, or a chain longer than followed, is named as such (not as a redirect status).
            if visited.contains(next.url.absoluteString) {
                throw TransportError(
                    .redirectLoop,
                    "redirects \(request.summary) in a loop (back to \(ServiceURL.origin(next.url))\(next.url.path))")
            }
            guard visited.count <= redirects.maxRedirects else {
                throw TransportError(
                    .redirectLoop, "redirects \(request.summary) more than \(redirects.maxRedirects) times")
            }
            visited.insert(next.url.absoluteString)
            current = next
        }
    }
}
