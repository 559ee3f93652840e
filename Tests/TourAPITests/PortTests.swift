import Foundation
import Testing
import TourAPI
import TourModel

/// A port is 1-65535. A larger one, from the walker or from the service (its base URL, a media
/// link, a redirect), is refused with words: handed to the connection it stopped the process
/// (exit 132), and one too long to be a number was silently dropped for the scheme's own.
struct PortTests {
    static let unusable = [
        "http://127.0.0.1:99999", "http://127.0.0.1:65536/m/1.mp3", "http://[::1]:70000/", "http://localhost:0/",
        "https://127.0.0.1:99999999999999999999/",
    ]

    @Test(arguments: unusable)
    func aPortNoHostCanHaveIsNoUsableURL(_ text: String) throws {
        let url = try #require(URL(string: text))
        #expect(!url.hasUsablePort)
        #expect(!ServiceURL.permits(url, allowInsecureHTTP: true), "a media link or a redirect to it is not followed")
        guard case .failure(let error) = ServiceURL.validate(text, allowInsecureHTTP: true) else {
            Issue.record("\(text) was accepted as the service's URL")
            return
        }
        #expect(error.kind == .invalidConfiguration)
        #expect(error.message.contains("1-65535"), "\(error.message)")
    }

    @Test(arguments: ["http://127.0.0.1:1/", "http://127.0.0.1:65535/", "https://h.example/", "http://[::1]:8080/x"])
    func portsAHostCanHaveAreUsable(_ text: String) throws {
        #expect(try #require(URL(string: text)).hasUsablePort)
        #expect((try? ServiceURL.validate(text, allowInsecureHTTP: false).get()) != nil)
    }

    /// The transport itself refuses one, whoever asks: no request reaches the connection.
    @Test(arguments: unusable)
    func theTransportRefusesItInsteadOfStopping(_ text: String) async throws {
        let transport = AsyncHTTPClientTransport()
        defer { Task { try? await transport.shutdown() } }
        let url = try #require(URL(string: text))
        do {
            _ = try await transport.send(HTTPRequest(method: .get, url: url))
            Issue.record("\(text) was requested")
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.detail.contains("1-65535"), "\(error.detail)")
        }
    }

    /// A media link with such a port is the service's bad data (exit 76), not the walker's set-up.
    @Test func aMediaLinkWithSuchAPortIsTheServicesBadData() async throws {
        let channel = ServiceChannel(
            service: try #require(URL(string: "http://127.0.0.1:9")),
            executor: RequestExecutor(transport: ScriptedTransport([])), userAgent: "walkscape-tests")
        let client = APIClient(channel: channel, credentials: MemoryCredentialStore())
        let link = try #require(URL(string: "http://127.0.0.1:70000/m/1.mp3"))
        do {
            _ = try await client.fetch(link)
            Issue.record("the link was fetched")
        } catch {
            #expect(error.kind == .protocolError)
            #expect(error.message.contains("1-65535"), "\(error.message)")
        }
    }
}
