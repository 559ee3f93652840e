import Analytics
import Foundation
import TourAPI
import TourModel

/// The analytics sender's line to the configured service. The HTTP client is made on the first
/// delivery, so a walk or a command that never gets to send never makes one, and is shut down by
/// `close()`. Its requests are tried once each: the batcher keeps the schedule between attempts.
package final class AnalyticsConnection: BatchTransport, @unchecked Sendable {
    private let settings: Settings
    private let dialect: APIDialect
    private let lock = NSLock()
    private var line: ServiceBatchTransport?
    private var http: AsyncHTTPClientTransport?

    package init(settings: Settings, dialect: APIDialect) {
        self.settings = settings
        self.dialect = dialect
    }

    package func deliver(_ events: [AnalyticsEvent], timeout: Duration?) async -> DeliveryResult {
        let opened: ServiceBatchTransport
        do { opened = try open() } catch { return .failed(reason: error.message) }
        return await opened.deliver(events, timeout: timeout)
    }

    package func deliver(batch: [PendingEvent], timeout: Duration?) async -> DeliveryResult {
        let opened: ServiceBatchTransport
        do { opened = try open() } catch { return .failed(reason: error.message) }
        return await opened.deliver(batch: batch, timeout: timeout)
    }

    package func serviceAnswers(timeout: Duration?) async -> Bool {
        guard let opened = try? open() else { return false }
        return await opened.serviceAnswers(timeout: timeout)
    }

    private func open() throws(AppError) -> ServiceBatchTransport {
        lock.lock()
        defer { lock.unlock() }
        if let line { return line }
        let (client, transport) = try ServiceConnection.open(settings, policy: .once)
        let made = ServiceBatchTransport(client: client, dialect: dialect) { AppError($0).message }
        line = made
        http = transport
        return made
    }

    package func close() async {
        let transport = lock.withLock { () -> AsyncHTTPClientTransport? in
            defer { http = nil; line = nil }
            return http
        }
        try? await transport?.shutdown()
    }
}
