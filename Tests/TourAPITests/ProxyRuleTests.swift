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
        #expect(!ProxyRule(environment: proxy).bypasses("0.0.0.0"))
        #expect(try server(proxy, "https://127.example.org") != nil)
        func straight(_ noProxy: String, _ url: String) throws -> Bool {
            let rule = ProxyRule(environment: proxy.merging(["no_proxy": noProxy]) { $1 })
            let host = try #require(URL(string: url)?.host)
            // Not reached directly: through the proxy (or, an https host named by its address,
            // refused: see below).
            return rule.bypasses(host)
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
        // Only `*` alone names every host, as curl has it: `*.*` and `.*` name none.
        #expect(try !straight("*.*", "https://anything.example"))
        #expect(try !straight(".*", "https://anything.example"))
        #expect(try !straight("*.*, .*", "https://10.1.2.3"))
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
        // The password ends at the last `@`: a `/` in it does not end it (said as a proxy that is
        // not one, the whole value is shown, but never the password).
        #expect(ProxyRule.withoutPassword("walker:a:b@proxy:1/x@y") == "walker@y")
        let slashed = refusal("http://walker:s3cret/pw@proxy.example:1")
        #expect(slashed != nil && slashed?.contains("s3cret") == false, "\(slashed ?? "")")
        #expect(refusal("walker:s3cret/pw@proxy.example:1")?.contains("s3cret") == false)
        // A port too large for any integer is no port, not the default one.
        #expect(refusal("http://127.0.0.1:18446744073709583615")?.contains("no usable port") == true)
        #expect(refusal("http://proxy.example:99999999999999999999")?.contains("no usable port") == true)
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

    /// A service named by its address is not reached through a proxy over https: its certificate
    /// would be checked against the address connected to, the proxy's, so a proxy holding a
    /// certificate for its own address could read everything (a password at login). Said, with
    /// the way out; `no_proxy` reaches it directly, and plain http (no certificate) is not held.
    @Test func anHTTPSServiceNamedByAnAddressIsNotProxied() throws {
        for proxy in ["http://proxy.example:3128", "socks5://proxy.example"] {
            for url in ["https://192.0.2.2:36129/tours", "https://[2001:db8::5]/tours"] {
                #expect(throws: TransportError.self, "\(url) through \(proxy)") {
                    _ = try server(["https_proxy": proxy], url)
                }
                do {
                    _ = try server(["https_proxy": proxy], url)
                } catch {
                    #expect(error.kind == .invalidRequest)
                    #expect(error.detail.contains("no_proxy"), "\(error.detail)")
                    #expect(error.detail.contains("host name"), "\(error.detail)")
                }
            }
            #expect(try server(["https_proxy": proxy, "no_proxy": "192.0.2.0/24"], "https://192.0.2.2:36129") == nil)
            #expect(try server(["all_proxy": proxy], "http://192.0.2.2:8080") != nil)
            #expect(try server(["https_proxy": proxy], "https://api.example.org") != nil)
        }
    }
}
