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
        let client = Self.client(context.channel.remoteAddress)
        if let retry = buckets.take("\(kind) \(client)") {
            return APIError(
                .tooManyRequests, "ThrottlerException: Too Many Requests",
                headers: [.retryAfter: String(retry)]
            ).response(dialect: dialect)
        }
        return try await next(request, context)
    }
}

extension GuessThrottleMiddleware {
    /// Whose bucket a request takes from: an IPv4 address; an IPv6 client by its /64, the block one
    /// host is given and can draw fresh addresses from at will; an IPv4 address written as IPv6
    /// (`::ffff:a.b.c.d`) as itself; and this machine (127.0.0.0/8, `::1`) as one client, which
    /// drew 300 guesses from 300 loopback addresses, and twice the limit over IPv4 and IPv6.
    static func client(_ address: SocketAddress?) -> String {
        switch address {
        case .v4(let v4)?:
            let bytes = withUnsafeBytes(of: v4.address.sin_addr.s_addr) { Array($0) }
            return bytes[0] == 127 ? "loopback" : (address?.ipAddress ?? "local")
        case .v6(let v6)?:
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return bytes[12] == 127 ? "loopback" : bytes[12...].map(String.init).joined(separator: ".")
            }
            if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return "loopback" }
            let prefix = stride(from: 0, to: 8, by: 2).map {
                String(format: "%x", Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]))
            }
            return prefix.joined(separator: ":") + "::/64"
        default:
            return "local"
        }
    }
}

/// The buckets behind `GuessThrottleMiddleware`.
final class GuessBuckets: Sendable {
    struct Bucket {
        var tokens: Double
        var at: ContinuousClock.Instant
    }

    let perMinute: Int
    /// The buckets; how many there may be before the next sweep; sweeps so far.
    private let state = NIOLockedValueBox((buckets: [String: Bucket](), sweepPast: sweepFloor, sweeps: 0))

    /// Buckets kept before the first sweep.
    static let sweepFloor = 10_000

    init(perMinute: Int) { self.perMinute = perMinute }

    /// Clients with a bucket now.
    var count: Int { state.withLockedValue { $0.buckets.count } }
    /// Sweeps of full buckets so far.
    var sweeps: Int { state.withLockedValue { $0.sweeps } }

    /// nil when the attempt may go ahead, else the whole seconds until one may.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> Int? {
        guard perMinute > 0 else { return nil }
        let capacity = Double(perMinute)
        let perSecond = capacity / 60
        func refilled(_ bucket: Bucket) -> Double {
            let elapsed = now - bucket.at
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return min(capacity, bucket.tokens + max(0, seconds) * perSecond)
        }
        return state.withLockedValue { state in
            var bucket = state.buckets[key] ?? Bucket(tokens: capacity, at: now)
            bucket.tokens = refilled(bucket)
            bucket.at = now
            defer {
                state.buckets[key] = bucket
                // Full buckets say nothing: forgotten when there are many clients, once their
                // number has doubled since the last sweep (a sweep looks at every bucket).
                if state.buckets.count > state.sweepPast {
                    state.buckets = state.buckets.filter { refilled($0.value) < capacity }
                    state.sweepPast = max(Self.sweepFloor, state.buckets.count * 2)
                    state.sweeps += 1
                }
            }
            guard bucket.tokens >= 1 else { return max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))) }
            bucket.tokens -= 1
            return nil
        }
    }
}
