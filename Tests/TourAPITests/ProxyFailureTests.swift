import Foundation
import NIOCore
import NIOSOCKS
import Testing

@testable import TourAPI

/// A failure of a request sent through a proxy names the proxy, in words: a SOCKS proxy that wants
/// a login, or that answers in another protocol, is not a broken connection to the service.
struct ProxyFailureTests {
    let socks = ProxyRule.Server(
        kind: .socks5, host: "proxy.example", port: 1080, user: nil, password: nil, origin: "all_proxy")
    let http = ProxyRule.Server(
        kind: .http, host: "proxy.example", port: 3128, user: "walker", password: "hush", origin: "https_proxy")

    func mapped(_ error: any Error, through proxy: ProxyRule.Server) -> TransportError {
        AsyncHTTPClientTransport.throughProxy(
            error, failure: AsyncHTTPClientTransport.classify(error, timeout: .seconds(20), configuration: .init()),
            proxy: proxy)
    }

    @Test func aSOCKSProxyThatWantsALoginSaysSo() {
        for error: any Error in [
            SOCKSError.NoValidAuthenticationMethod(),
            SOCKSError.InvalidAuthenticationSelection(selection: .usernamePassword),
        ] {
            let failure = mapped(error, through: socks)
            #expect(failure.kind == .invalidRequest, "\(error)")
            #expect(failure.detail.contains("asks for a login"), "\(failure.detail)")
        }
    }

    @Test func aSOCKSProxySpeakingAnotherProtocolIsNamedAndNothingWasSent() {
        for error: any Error in [
            SOCKSError.InvalidProtocolVersion(actual: 4), SOCKSError.InvalidAddressType(actual: 9),
            SOCKSError.InvalidReservedByte(actual: 1), SOCKSError.UnexpectedRead(),
        ] {
            let failure = mapped(error, through: socks)
            #expect(failure.kind == .cannotConnect, "\(error)")
            #expect(failure.requestWasNotSent)
            #expect(failure.detail.contains("the proxy socks5://proxy.example:1080"), "\(failure.detail)")
            #expect(failure.detail.contains("not SOCKS5"), "\(failure.detail)")
            #expect(!failure.detail.contains("Invalid"), "\(failure.detail)")
        }
    }

    @Test func anyOtherFailureThroughAProxyNamesItNeverItsPassword() {
        let failure = mapped(ChannelError.ioOnClosedChannel, through: http)
        #expect(failure.detail.contains("through the proxy http://walker@proxy.example:3128"), "\(failure.detail)")
        #expect(!failure.detail.contains("hush"))
    }
}
