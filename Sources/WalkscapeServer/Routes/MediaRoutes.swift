import Foundation
import HTTPTypes
import Hummingbird
import TourModel

/// `GET`/`HEAD /media/TOUR/PATH?X-Amz-...`: the media host. The signature and expiry are checked
/// first (403 with S3's XML otherwise); the path is then looked up among the files the tour's
/// tour.json names, never joined onto the folder, so `..`, encoded slashes and the like name nothing.
struct MediaRoutes: Sendable {
    let services: ServerServices

    func register(on router: Router<ServerContext>) {
        router.get("/media/**") { request, context in try await serve(request, context, head: false) }
        router.head("/media/**") { request, context in try await serve(request, context, head: true) }
    }

    func serve(_ request: Request, _ context: ServerContext, head: Bool) async throws -> Response {
        let now = Date()
        var query: [String: String] = [:]
        for (key, value) in request.uri.queryParameters where query[String(key)] == nil {
            query[String(key)] = String(value)
        }
        switch services.signer.check(rawPath: request.uri.path, query: query, now: now) {
        case .malformed(let message):
            throw S3Error.accessDenied(message)
        case .mismatch:
            throw S3Error.signatureMismatch
        case .expired(let expires, let seconds):
            throw S3Error.expired(expires: expires, now: now, seconds: seconds)
        case .valid(let segments):
            let key = segments.joined(separator: "/")
            guard segments.count >= 2,
                segments.allSatisfy({
                    !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") && !$0.contains("\0")
                }),
                let tour = await services.catalog.current().byID[segments[0]],
                let entry = tour.media[segments.dropFirst().joined(separator: "/")]
            else {
                throw S3Error.noSuchKey(key)
            }
            let root = realPath(tour.folder.root.path) ?? tour.folder.root.path
            let response = MediaFileResponse(
                entry: entry, rootRealPath: root, throttle: services.configuration.faults.throttleBytesPerSecond,
                channel: context.channel, budget: services.media, logger: services.logger)
            let file = try response.current()
            // Edited since the tours were last read (within the reload interval): read them now,
            // so the manifest a client asks next, finding the file not as declared, names it as it is.
            if file.stamp != entry.stamp { await services.catalog.checkNow(unlessCheckedSince: file.stamp.modified) }
            return try response.make(for: request, head: head, file: file)
        }
    }
}
