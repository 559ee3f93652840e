import Foundation
import Testing
import TourAPI

/// Plain http only to this machine: a loopback address as parsed, not a name that looks like one.
struct LoopbackTests {
    @Test(arguments: ["127.0.0.1", "127.255.3.9", "localhost", "LOCALHOST", "::1", "[::1]", "0:0:0:0:0:0:0:1"])
    func loopbackHosts(_ host: String) {
        #expect(ServiceURL.isLoopback(host), "\(host)")
    }

    @Test(arguments: [
        "127.example.invalid", "127.0.0.1.example.invalid", "foo.localhost", "localhost.example.org", "1270.0.0.1",
        "128.0.0.1", "10.0.0.1", "::2", "example.org", "",
    ])
    func namesThatOnlyLookLikeLoopbackAreNot(_ host: String) {
        #expect(!ServiceURL.isLoopback(host), "\(host)")
    }

    @Test func plainHTTPToSuchANameNeedsTheUsersWord() throws {
        for text in ["http://127.example.invalid", "http://127.0.0.1.example.invalid:8080", "http://a.localhost"] {
            guard case .failure(let error) = ServiceURL.validate(text, allowInsecureHTTP: false) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(error.message.contains("plain http to a host that is not this machine"), "\(error.message)")
            #expect((try? ServiceURL.validate(text, allowInsecureHTTP: true).get()) != nil)
        }
        // A media link or a redirect to such a host is not fetched in clear either.
        let media = try #require(URL(string: "http://127.0.0.1.example.invalid/m/1.mp3"))
        #expect(!ServiceURL.permits(media, allowInsecureHTTP: false))
        #expect(
            ServiceURL.permits(try #require(URL(string: "http://127.0.0.1:8080/m/1.mp3")), allowInsecureHTTP: false))
        #expect(ServiceURL.permits(try #require(URL(string: "http://[::1]:8080/m/1.mp3")), allowInsecureHTTP: false))
    }
}

/// An origin as messages name it: an IPv6 address keeps its brackets ("::1:44849" read as an
/// address).
struct OriginTests {
    @Test(arguments: [
        ("https://[::1]:8443/tours", "[::1]:8443"), ("http://127.0.0.1:8080", "127.0.0.1:8080"),
        ("https://walks.example.org/v1", "walks.example.org"), ("https://[fe80::1]/", "[fe80::1]"),
    ])
    func anOriginIsHostAndPort(url: String, origin: String) throws {
        #expect(ServiceURL.origin(try #require(URL(string: url))) == origin)
    }
}
