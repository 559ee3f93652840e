import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import TourModel

/// Applies the per-request fault switches, in this order: the rate limit (429 + `Retry-After`), the
/// added latency, an injected 5xx, and last the reset (the connection closed part-way through the
/// answer: for media after part of the body, for JSON anywhere from before the body to its end).
/// `/health` is exempt, so a script can always tell whether the server is up.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    let plan: FaultPlan
    let dice: FaultDice
    let limiter: RateLimiter
    let dialect: APIDialect
    let logger: Logger

    init(plan: FaultPlan, dialect: APIDialect, logger: Logger) {
        self.plan = plan
        self.dice = FaultDice(seed: plan.seed)
        self.limiter = RateLimiter(limit: plan.rateLimitPerSecond)
        self.dialect = dialect
        self.logger = logger
    }

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard plan.actsOnRequests, path != "/health" else { return try await next(request, context) }
        let media = path.hasPrefix(MediaSigner.prefix)
        let roll = dice.next()
        if plan.rateLimitPerSecond > 0, let retry = limiter.admit() {
            logger.debug("fault: rate limited", metadata: ["path": "\(path)"])
            let headers: HTTPFields = [.retryAfter: String(retry)]
            return media
                ? S3Error(
                    status: .tooManyRequests, code: "SlowDown", message: "Please reduce your request rate.",
                    headers: headers
                ).response
                : APIError(.tooManyRequests, "ThrottlerException: Too Many Requests", headers: headers).response(
                    dialect: dialect)
        }
        if plan.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(plan.latencyMilliseconds))
        }
        if roll.fault < plan.faultRate {
            let status: HTTPResponse.Status =
                roll.faultKind < 0.5
                ? .internalServerError : (roll.faultKind < 0.75 ? .badGateway : .serviceUnavailable)
            logger.debug("fault: injected \(status.code)", metadata: ["path": "\(path)"])
            return media
                ? S3Error(
                    status: status, code: status == .internalServerError ? "InternalError" : "ServiceUnavailable",
                    message: "We encountered an internal error. Please try again."
                ).response
                : APIError(status, status == .internalServerError ? "Internal server error" : APIError.name(of: status))
                    .response(dialect: dialect)
        }
        var response = try await next(request, context)
        let length = response.body.contentLength ?? 0
        // Media is cut after at least one byte and before the last (in the middle 80% of the body), so
        // a resuming client always gains; a one-byte body cannot be cut that way and is sent whole.
        if roll.reset < plan.resetRate, request.method != .head, !media || length >= 2 {
            let cut =
                media
                ? min(length - 1, max(1, Int(Double(length) * (0.1 + 0.8 * roll.cut))))
                : Int(Double(length) * roll.cut)
            logger.debug(
                "fault: connection will be cut", metadata: ["path": "\(path)", "after": "\(cut)", "of": "\(length)"])
            let original = response.body
            let channel = context.channel
            response.body = ResponseBody(contentLength: original.contentLength) { writer in
                let body = original
                try await body.write(CuttingBodyWriter(inner: writer, remaining: cut, channel: channel))
            }
        }
        return response
    }
}
