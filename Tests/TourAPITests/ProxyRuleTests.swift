import Foundation
import Testing

@testable import TourAPI

/// Which requests go through a proxy, from the environment as curl reads it.
struct ProxyRuleTests {
    func server(_ environment: [String: String], _ url: String) throws(TransportError) -> ProxyRule.Server? {
        try ProxyRule(environment: environment).server(for: URL(string: url)!)
    }

    /// `http_proxy` for http (never `HTTP_PROXY`), `https_proxy` or `HTTPS_PROXY` for https, and
    /// `all_proxy` for either when its own is not set; empty is unset.
    @Test func eachSchemeHasItsVariable() throws {
        let both = ["http_proxy": "http://plain.example:3128", "HTTPS_PROXY": "secure.example:8080"]
        #expect(try server(both, "http://api.example.org/tours")?.host == "plain.example")
        #expect(try server(both, "http://api.example.org/tours")?.port == 3128)
        let secure = try #require(try server(both, "https://api.example.org/tours"))
        #expect(secure.host == "secure.example" && secure.port == 8080 && secure.kind == .http)
        #expect(secure.origin == "HTTPS_PROXY")
        // Lower case first, as curl reads them.
        #expect(
            try server(["https_proxy": "a.example", "HTTPS_PROXY": "b.example"], "https://x.example")?.host
                == "a.example")
        #expect(try server(["HTTP_PROXY": "http://cgi.example"], "http://api.example.org") == nil)
        let all = ["ALL_PROXY": "socks5h://socks.example", "https_proxy": ""]
        let socks = try #require(try server(all, "https://api.example.org"))
        #expect(socks.kind == .socks5 && socks.port == 1080 && socks.origin == "ALL_PROXY")
        #expect(try server(all, "http://api.example.org")?.host == "socks.example")
        #expect(try server([:], "https://api.example.org") == nil)
    }

    /// This machine is never reached through a proxy, and `no_proxy` names hosts, domains (with or
    /// without a leading dot or `*.`), addresses, ranges of them and every host (`*`); a port in
    /// an entry is not looked at.
    @Test func noProxyAndThisMachineGoStraight() throws {
        let proxy = ["https_proxy": "http://proxy.example:3128"]
        for url in ["https://127.0.0.1:8443", "https://localhost", "https://[::1]:8443", "https://127.9.9.9"] {
            #expect(try server(proxy, url) == nil, "\(url)")
        }
        #expect(try server(proxy, "https://0.0.0.0:8443") != nil)
        #expect(try server(proxy, "https://127.example.org") != nil)
        func straight(_ noProxy: String, _ url: String) throws -> Bool {
            try server(proxy.merging(["no_proxy": noProxy]) { $1 }, url) == nil
        }
        #expect(try straight("example.org", "https://api.example.org"))
        #expect(try straight(".example.org", "https://example.org"))
        #expect(try straight("*.example.org", "https://deep.api.example.org."))
        #expect(try !straight("example.org", "https://badexample.org"))
        #expect(try !straight("api.example.org", "https://example.org"))
        #expect(try straight("other.example, API.Example.ORG:443", "https://api.example.org"))
        #expect(try straight("10.0.0.0/8", "https://10.1.2.3"))
        #expect(try !straight("10.0.0.0/8", "https://11.1.2.3"))
        #expect(try straight("192.168.1.5", "https://192.168.1.5:9000"))
        #expect(try straight("[2001:db8::1]:443", "https://[2001:db8::1]"))
        #expect(try straight("2001:db8::/32", "https://[2001:db8:1::7]"))
        #expect(try !straight("2001:db8::/32", "https://[2001:db9::7]"))
        #expect(try straight("*", "https://anything.example"))
        #expect(try straight("example.org.", "https://api.example.org"))
        // An address is matched by addresses and ranges, never as a name's tail.
        #expect(try !straight("1", "https://10.0.0.1"))
        #expect(try !straight("0.1", "https://10.0.0.1"))
        #expect(try straight("x.example", "https://api.example.org") == false)
        // Upper case when lower is not set.
        #expect(try server(proxy.merging(["NO_PROXY": "example.org"]) { $1 }, "https://api.example.org") == nil)
    }

    /// A value that is not a proxy walkscape can use is said when a request would use it, naming
    /// the variable; the password in a proxy's URL is never shown.
    @Test func whatIsNotAProxyIsSaid() throws {
        func refusal(_ value: String) -> String? {
            do {
                _ = try server(["https_proxy": value], "https://api.example.org")
                return nil
            } catch {
                #expect(error.kind == .invalidRequest)
                return error.detail
            }
        }
        #expect(refusal("ftp://proxy.example")?.contains("is a ftp proxy") == true)
        #expect(refusal("https://proxy.example")?.contains("over TLS") == true)
        let socksUser = refusal("socks5://walker:pw@proxy.example")
        #expect(socksUser?.contains("cannot log in to a SOCKS proxy") == true)
        #expect(socksUser?.contains("'socks5://walker@proxy.example'") == true, "\(socksUser ?? "")")
        #expect(refusal("https://walker:hush@proxy.example")?.contains("hush") == false)
        #expect(ProxyRule.withoutPassword("walker:a:b@proxy:1/x@y") == "walker@proxy:1/x@y")
        #expect(ProxyRule.withoutPassword("http://proxy.example") == "http://proxy.example")
        #expect(refusal("http://proxy.example:0")?.contains("no usable port") == true)
        #expect(refusal("http://:3128")?.hasPrefix("https_proxy 'http://:3128' is not a proxy") == true)
        // Said only for requests that would go through it.
        #expect(try server(["https_proxy": "ftp://x"], "http://api.example.org") == nil)
        let secret = try #require(
            try server(["https_proxy": "http://walker:s%3Acret@proxy.example:3128"], "https://a.example"))
        #expect(secret.shown == "http://walker@proxy.example:3128 (from https_proxy)")
        #expect(secret.password == "s:cret")
        // Decoded once: %25 is a percent sign.
        #expect(try server(["https_proxy": "http://u:a%2541@p.example"], "https://a.example")?.password == "a%41")
        #expect(try server(["https_proxy": "http://[2001:db8::2]:3128"], "https://a.example")?.host == "2001:db8::2")
    }
}
