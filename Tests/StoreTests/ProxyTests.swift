import Foundation
import TestSupport
import Testing

/// Requests through a proxy named in the environment, as curl reads it: tinyproxy (a real HTTP
/// proxy) between walkscape and walkscape-server. The service is named by 0.0.0.0, which reaches
/// this machine without being a loopback address (those never go through a proxy).
@Suite(.serialized)
struct ProxyTests {
    static let fixture = TourFixture(slug: "proxied-walk", points: 2, audioBytes: 40_000)

    /// The service's URL with 0.0.0.0 for its host.
    static func unspecified(_ harness: StoreHarness) -> String {
        harness.server.baseURL.replacingOccurrences(of: "127.0.0.1", with: "0.0.0.0")
    }

    /// A tour's narrations are downloaded over https through `https_proxy`, while its API, on
    /// this machine's loopback address, is reached directly (the service's media links name it
    /// by its host name, which is not a loopback one: every connection tinyproxy opened was a
    /// narration's, and each certificate was checked against that name, not the proxy's
    /// address). A proxy that is not there is named in the error, and `no_proxy` sends the request
    /// straight to the host. The same service named by an address is not reached through the
    /// proxy at all: its certificate would be checked against the proxy's address.
    @Test(.enabled(if: ThisMachine.name != nil, "this machine's host name does not resolve"))
    func narrationsAreDownloadedOverHTTPSThroughTheProxyAndNoProxyGoesAroundIt() async throws {
        let name = try #require(ThisMachine.name)
        let certificates = try TestCertificates.shared()
        let port = try freeTCPPort()
        let harness = try await StoreHarness(
            options: .init(
                extraArguments: certificates.good.serverArguments + [
                    "--host", "0.0.0.0", "--port", "\(port)", "--public-url", "https://\(name):\(port)",
                ])
        ) { tours in try Self.fixture.write(in: tours) }
        try harness.home.write("config/config", "ca-file = \(certificates.authority.path)\n")
        let proxy = try await TinyProxy()
        #expect(harness.server.baseURL == "https://127.0.0.1:\(port)")

        let download = try harness.run(
            ["download", Self.fixture.slug, "--no-analytics"], environment: ["https_proxy": proxy.url])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(try harness.installed().map { $0["slug"] as? String } == [Self.fixture.slug])
        #expect(proxy.connections(to: name) >= 1, "\(proxy.log)")
        #expect(proxy.connections(to: "127.0.0.1") == 0, "\(proxy.log)")

        let url = harness.server.baseURL.replacingOccurrences(of: "127.0.0.1", with: name)
        let dead = try freeTCPPort()
        let gone = ["https_proxy": "http://127.0.0.1:\(dead)"]
        let refused = try harness.run(["tours"], apiURL: url, environment: gone)
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.contains("the proxy http://127.0.0.1:\(dead) (from https_proxy): connection refused"),
            "\(refused.stderr)")
        let around = try harness.run(
            ["tours"], apiURL: url, environment: gone.merging(["no_proxy": "example.org, \(name)"]) { $1 })
        #expect(around.status == 0, "\(around.stderr)")
        #expect(around.stdout.contains(Self.fixture.slug))

        let byAddress = try harness.run(
            ["tours"], apiURL: Self.unspecified(harness), environment: ["https_proxy": proxy.url])
        #expect(byAddress.status == 64, "\(byAddress.stderr)")
        #expect(byAddress.stderr.contains("is named by its address"), "\(byAddress.stderr)")
        #expect(proxy.connections(to: "0.0.0.0") == 0, "\(proxy.log)")
    }

    /// A proxy that asks for a password is told the one in its URL; without one the error says so
    /// (exit 64: the settings are wrong), and with a wrong one the refusal asks about it; the
    /// password is never shown.
    @Test func aProxyThatAsksForAPasswordIsGivenTheOneInItsURL() async throws {
        let harness = try await StoreHarness { tours in try Self.fixture.write(in: tours) }
        let proxy = try await TinyProxy(basicAuth: ("walker", "s3cret"))
        let url = Self.unspecified(harness)
        func tours(_ proxyURL: String) throws -> ProcessResult {
            try harness.run(
                ["tours"], apiURL: url,
                environment: ["http_proxy": proxyURL, "WALKSCAPE_ALLOW_INSECURE_HTTP": "1"])
        }
        let address = "127.0.0.1:\(proxy.port)"
        let without = try tours("http://\(address)")
        #expect(without.status == 64, "\(without.stderr)")
        #expect(without.stderr.contains("asks for a user name and password"), "\(without.stderr)")
        // tinyproxy refuses a wrong password with a 401, not a 407: a refusal like any other.
        let wrong = try tours("http://walker:nope@\(address)")
        #expect(wrong.status == 69, "\(wrong.stderr)")
        #expect(
            wrong.stderr.contains(
                "the proxy http://walker@\(address) (from http_proxy) did not open the way to the host (it may not allow that host or port; or it refused the user name and password)"
            ), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("nope"))
        let right = try tours("http://walker:s3cret@\(address)")
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.contains(Self.fixture.slug))
        #expect(proxy.connections(to: "0.0.0.0") >= 1, "\(proxy.log)")
        // doctor says which proxy its answer came through.
        let doctor = try harness.run(
            ["doctor", "--json", "--audio-device", "null"], apiURL: url,
            environment: ["http_proxy": "http://walker:s3cret@\(address)", "WALKSCAPE_ALLOW_INSECURE_HTTP": "1"])
        let report = try #require(try JSONSerialization.jsonObject(with: doctor.stdoutData) as? [String: Any])
        let api = try #require((report["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "api" })
        #expect(api["status"] as? String == "ok", "\(api)")
        #expect(
            (api["detail"] as? String)?.contains("through the proxy http://walker@\(address) (from http_proxy)")
                == true,
            "\(api)")
        #expect(!doctor.stdout.contains("s3cret"))
    }

    /// Narrations through a SOCKS5 proxy (`all_proxy`, Dante): the service listens on every
    /// interface, its API is reached directly on loopback, and its media links name this machine
    /// by its address on another interface (Dante will not connect to 0.0.0.0).
    @Test(.enabled(if: Dante.outsideAddress != nil, "this machine has no address outside loopback"))
    func narrationsAreDownloadedThroughASOCKSProxy() async throws {
        let outside = try #require(Dante.outsideAddress)
        let port = try freeTCPPort()
        let harness = try await StoreHarness(
            options: .init(extraArguments: [
                "--host", "0.0.0.0", "--port", "\(port)", "--public-url", "http://\(outside):\(port)",
            ])
        ) { tours in try Self.fixture.write(in: tours) }
        let proxy = try await Dante()
        let download = try harness.run(
            ["download", Self.fixture.slug, "--no-analytics"],
            environment: ["all_proxy": proxy.url, "WALKSCAPE_ALLOW_INSECURE_HTTP": "1"])
        #expect(download.status == 0, "\(download.stderr)")
        #expect(try harness.installed().map { $0["slug"] as? String } == [Self.fixture.slug])
        #expect(proxy.connections(to: outside) >= 1, "\(proxy.log)")
        #expect(proxy.connections(to: "127.0.0.1") == 0, "\(proxy.log)")
    }
}
