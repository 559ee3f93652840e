import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOHTTP1
import TourModel

/// Turns every error into the answer the live service would give: `APIError` as its JSON body, media
/// errors as S3's XML, an unknown route as `Cannot GET /path` (404), a body whose HTTP framing is
/// broken as 400, anything unexpected as a logged 500.
/// Also logs one line per request (info), so a curator sees what a client asked for.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = ServerContext

    let dialect: APIDialect
    let logger: Logger

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch let error as APIError {
            response = error.response(dialect: dialect)
        } catch let error as S3Error {
            response = error.response
        } catch let error as HTTPError where error.status == .notFound || error.status == .methodNotAllowed {
            response = APIError(.notFound, "Cannot \(request.method.rawValue) \(request.uri.path)").response(
                dialect: dialect)
        } catch let error as HTTPError {
            response = APIError(error.status, error.body ?? APIError.name(of: error.status)).response(dialect: dialect)
        } catch let error as HTTPParserError {
            // A body whose framing is broken (a chunk size that is no number, or past 64 bits):
            // the client's request, not the server, is wrong.
            response = APIError(.badRequest, "Bad request: its body is not valid HTTP (\(error))").response(
                dialect: dialect)
        } catch {
            logger.error(
                "request failed",
                metadata: [
                    "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                    "error": "\(error)",
                ])
            response = APIError(.internalServerError, "Internal server error").response(dialect: dialect)
        }
        let elapsed = ContinuousClock.now - start
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        logger.info(
            "\(request.method.rawValue) \(request.uri.path) \(response.status.code) \(String(format: "%.1f", ms)) ms")
        return response
    }
}
