import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import TourModel

/// What the routes share: configuration, the catalog, the stores, the signers. Built once at start.
struct ServerServices: Sendable {
    let configuration: ServerConfiguration
    let catalog: TourCatalog
    let database: ServerDatabase
    let accounts: AccountStore
    let vouchers: VoucherStore
    let analytics: AnalyticsStore
    let tokens: TokenIssuer
    let authenticator: Authenticator
    let hasher: PasswordHasher
    let signer: MediaSigner
    /// Media answers in progress, and how many may be.
    let media: MediaBudget
    let logger: Logger
    /// Compared against when a login names an unknown address, so it costs what a wrong password costs.
    let decoyHash: String
    /// `http://host:port` once the server listens (the port may have been picked by the kernel).
    let listening = NIOLockedValueBox("http://127.0.0.1")

    var dialect: APIDialect { configuration.dialect }

    func json(_ value: some APIEncodable, status: HTTPResponse.Status = .ok) -> Response {
        JSONResponse.make(value, status: status, dialect: dialect)
    }

    func body(of request: Request) async throws -> [String: JSONValue] {
        try await JSONBody.object(from: request, limit: configuration.bodyLimit)
    }

    /// The base URL media links are signed for: `--public-url`, else the address the client used.
    func publicBase(for request: Request) -> String {
        if let url = configuration.publicURL { return url.hasSuffix("/") ? String(url.dropLast()) : url }
        if let host = request.head.authority, !host.isEmpty,
            !host.contains(where: { $0 == "/" || $0 == "?" || $0 == "#" || $0 == "@" || $0.isWhitespace })
        {
            return "\(configuration.scheme)://\(host)"
        }
        return listening.withLockedValue { $0 }
    }

    func presenter(for request: Request) -> TourPresenter {
        TourPresenter(configuration: configuration, signer: signer, base: publicBase(for: request), now: Date())
    }
}
