import Foundation
import Synchronization
import TourAPI

/// Opens the one HTTP client of a run, hands the command an `APIClient`, and shuts the client down
/// on every path, errors included.
package enum ServiceConnection {
    /// The validated API URL, or why there is none to use.
    package static func serviceURL(_ settings: Settings) throws(AppError) -> URL {
        guard let text = settings.apiURL else {
            throw AppError.usage(
                "no API URL configured: pass --api-url URL, set WALKSCAPE_API_URL, or put `api-url = URL` in \(settings.paths.configFile.path)"
            )
        }
        return try APIEndpoint.validate(text, allowInsecure: settings.allowInsecureHTTP()).get()
    }

    package static func transportConfiguration(_ settings: Settings) throws(AppError) -> TransportConfiguration {
        let authorities = settings.authorities()
        guard let seconds = try settings.apiTimeout() else {
            return TransportConfiguration(authorities: authorities, proxies: settings.proxies)
        }
        let timeout = Duration.milliseconds(Int64(seconds * 1000))
        return TransportConfiguration(
            connectTimeout: min(.seconds(5), timeout), readTimeout: timeout, requestTimeout: timeout,
            authorities: authorities, proxies: settings.proxies)
    }

    /// A client of the configured service, and the transport to shut down when done with it.
    /// `policy`: how the client retries a request (the analytics sender keeps its own schedule
    /// between attempts and asks for `.once`, so a request is never retried inside a retry).
    /// `timer`: the clock the client reads (token expiry, `Retry-After`) and waits on; tests move it.
    /// `notices`: where a retry's notice goes (standard error unless a download's progress line
    /// must be moved out of its way first: `DownloadReporter.warn`).
    package static func open(
        _ settings: Settings, policy: RetryPolicy = RetryPolicy(), timer: any RetryTimer = SystemRetryTimer(),
        notices: (@Sendable (String) -> Void)? = nil
    ) throws(AppError)
        -> (client: APIClient, transport: AsyncHTTPClientTransport)
    {
        let service = try serviceURL(settings)
        let configuration = try transportConfiguration(settings)
        let redirects = RedirectRule(allowInsecureHTTP: try settings.allowInsecureHTTP())
        let transport = AsyncHTTPClientTransport(configuration: configuration)
        let executor = RequestExecutor(
            transport: transport, policy: policy, redirects: redirects, timer: timer,
            onRetry: { notice in
                let wait = Double(notice.delay.components.seconds) + Double(notice.delay.components.attoseconds) / 1e18
                let text =
                    "walkscape: \(notice.request): \(notice.reason); trying again in \(String(format: "%.1f", wait)) s (attempt \(notice.attempt) of \(notice.maxAttempts))"
                if let notices { notices(text) } else { Console.err(text) }
            })
        let channel = ServiceChannel(
            service: service, executor: executor, userAgent: "walkscape/\(WalkscapeVersion.current) (linux)")
        var client = APIClient(channel: channel, credentials: CredentialsFile(url: settings.paths.credentialsFile))
        // A login gone stale (a week unused) does not shut a walker out of the free tours: what
        // anyone may see is shown, and said once. It was "log in again" for every catalog command.
        let said = Atomic(false)
        client.onSessionExpired = {
            guard !said.exchange(true, ordering: .relaxed) else { return }
            let text =
                "walkscape: your login has expired, so this goes on without it: tours it unlocked show as locked until you log in again (walkscape login)"
            if let notices { notices(text) } else { Console.err(text) }
        }
        return (client, transport)
    }

    /// Runs `body` with a client of the configured service. API failures leave as `AppError`s
    /// with their exit codes; retries are announced on stderr so a wait is never a mystery.
    package static func run<T>(
        _ settings: Settings, timer: any RetryTimer = SystemRetryTimer(), notices: (@Sendable (String) -> Void)? = nil,
        _ body: (APIClient) async throws -> T
    ) async throws -> T {
        let (client, transport) = try open(settings, timer: timer, notices: notices)
        let result: T
        do {
            result = try await body(client)
        } catch {
            try? await transport.shutdown()
            if let error = error as? APIError { throw AppError(error) }
            throw error
        }
        do { try await transport.shutdown() } catch {
            throw AppError.failure("cannot close the connection to the service: \(error)")
        }
        return result
    }
}
