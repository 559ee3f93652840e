/// The seam between the API client and the network: sends one request, gets one answer, follows no
/// redirect and retries nothing (`RequestExecutor` decides both). Tests of the retry and session
/// logic put their own transport here; the real one is `AsyncHTTPClientTransport`.
public protocol HTTPTransport: Sendable {
    /// Returns once the answer's head has arrived; its body streams.
    func send(_ request: HTTPRequest) async throws(TransportError) -> HTTPResponse

    /// Closes every connection. Must be called once, on every path, before the process ends.
    func shutdown() async throws
}
