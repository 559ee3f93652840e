import Foundation
import HTTPTypes
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import TourModel

/// Per-client limits on the requests that guess a secret: logging in, registering (which says
/// whether an address has an account) and redeeming a voucher. Each client (by its address) has a
/// bucket per kind holding `perMinute` attempts, refilled at `perMinute` a minute; an attempt
/// beyond it gets 429 with `Retry-After`, as the live service's throttler answers. Without it, 300
/// voucher guesses took 0.29 s.
struct GuessThrottleMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    static let guarded: [String: String] = [
        "/auth/login": "login", "/auth/register": "register", "/vouchers/validate": "voucher",
    ]

    let buckets: GuessBuckets
    let dialect: APIDialect

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .post, let kind = Self.guarded[request.uri.path] else {
            return try await next(request, context)
        }
        let client = context.channel.remoteAddress?.ipAddress ?? "local"
        if let retry = buckets.take("\(kind) \(client)") {
            return APIError(
                .tooManyRequests, "ThrottlerException: Too Many Requests",
                headers: [.retryAfter: String(retry)]
            ).response(dialect: dialect)
        }
        return try await next(request, context)
    }
}

/// The buckets behind `GuessThrottleMiddleware`.
final class GuessBuckets: Sendable {
    struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    let perMinute: Int
    private let state = NIOLockedValueBox([String: Bucket]())

    init(perMinute: Int) { self.perMinute = perMinute }

    /// nil when the attempt may go ahead, else the whole seconds until one may.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        guard perMinute > 0 else { return nil }
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        return state.withLockedValue { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: capacity, at: now)
            let elapsed = now - bucket.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            bucket.tokens = min(capacity, bucket.tokens + seconds * perSecond)
            bucket.at = now
            defer {
                buckets[key] = bucket
                // Full buckets say nothing: forget them when there are many clients.
                if buckets.count > 10_000 { buckets = buckets.filter { $0.value.tokens < capacity - 1 } }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
