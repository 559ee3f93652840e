import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import TourModel

/// Why a host's certificate was refused, in words a walker can act on: TLS libraries say only
/// "CERTIFICATE_VERIFY_FAILED". Found by a second handshake that keeps the certificates the host
/// presents (and trusts none), then reading them. The chain failed to verify: a certificate in it
/// expired or not yet valid, the host's certificate self-signed, or from an authority this machine
/// does not trust. The host name did not match (checked apart, after the chain): the names it is for.
enum CertificateDiagnosis {
    enum Refusal {
        /// The chain did not verify.
        case chain
        /// The chain verified; the host name is not among the certificate's.
        case hostName
    }

    /// The reason for `host:port`, and whether trusting an authority of one's own could help; nil
    /// when its certificates cannot be had again. `trusted`: the authorities named in the settings.
    static func reason(
        host: String, port: Int, refusal: Refusal, trusted: [NIOSSLCertificate], group: any EventLoopGroup,
        timeout: Duration
    ) async -> (words: String, authorityMayHelp: Bool)? {
        guard let chain = await presented(host: host, port: port, group: group, timeout: timeout) else { return nil }
        return reason(chain: chain, host: host, refusal: refusal, trusted: trusted, now: Date())
    }

    /// The reason, from the certificates presented (the host's first). Only what the certificates
    /// show for certain is said as certain: the host's own dates, self-signed, the names; what a
    /// chain's other certificates show is said as what may be.
    static func reason(
        chain: [NIOSSLCertificate], host: String, refusal: Refusal, trusted: [NIOSSLCertificate] = [], now: Date
    ) -> (words: String, authorityMayHelp: Bool) {
        guard let leaf = chain.first else { return ("it presented no certificate", false) }
        let der = (try? leaf.toDERBytes()).map(Names.init)
        if refusal == .hostName {
            let alternatives = self.alternativeNames(leaf)
            if alternatives.isEmpty, let common = der?.subjectCommonName {
                return (
                    "its certificate names \(shown(common)) only as its common name, which is not checked: the name must be in its subjectAltName",
                    false
                )
            }
            let listed = alternatives.isEmpty ? "no host name" : alternatives.prefix(4).joined(separator: ", ")
            return ("its certificate is for \(shown(listed)), not \(shown(host))", false)
        }
        let seconds = now.timeIntervalSince1970
        if seconds > Double(leaf.notValidAfter) {
            return ("its certificate expired on \(day(leaf.notValidAfter))", false)
        }
        if seconds < Double(leaf.notValidBefore) {
            return (
                "its certificate is valid only from \(day(leaf.notValidBefore)) (is this machine's clock right?)", false
            )
        }
        if chain.count == 1, let der, let subject = der.subject, subject == der.issuer {
            return ("its certificate is self-signed", true)
        }
        for certificate in chain.dropFirst() {
            if seconds > Double(certificate.notValidAfter) {
                return (
                    "its chain could not be verified: a certificate in it expired on \(day(certificate.notValidAfter)), or the authority it leads to is not trusted here",
                    true
                )
            }
        }
        let top = chain.count > 1 ? ((try? chain[chain.count - 1].toDERBytes()).map(Names.init)) : der
        let authority = top?.issuerCommonName.map { shown($0) } ?? "an authority"
        let trustedSubjects = trusted.compactMap { (try? $0.toDERBytes()).map(Names.init)?.subject }
        if let issuer = top?.issuer, trustedSubjects.contains(issuer) {
            return (
                "its chain could not be verified, though \(authority) is trusted here: a certificate in it may not be allowed to serve a host, or to sign others",
                false
            )
        }
        return ("its certificate comes from \(authority), which is not among the authorities this machine trusts", true)
    }

    /// The DNS names and IP addresses the certificate is for (its subjectAltName: a common name is
    /// not checked).
    static func alternativeNames(_ certificate: NIOSSLCertificate) -> [String] {
        certificate._subjectAlternativeNames().compactMap { name -> String? in
            let bytes = Array(name.contents)
            switch name.nameType {
            case .dnsName: return String(decoding: bytes, as: UTF8.self).lowercased()
            case .ipAddress where bytes.count == 4: return bytes.map(String.init).joined(separator: ".")
            case .ipAddress where bytes.count == 16:
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
                var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { return nil }
                return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            default: return nil
            }
        }
    }

    /// A name from the certificate or the URL, printable and not too long.
    static func shown(_ text: String) -> String { TerminalText.line(String(text.prefix(100))) }

    static func day(_ time: time_t) -> String {
        var seconds = time
        var parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d-%02d-%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    /// A certificate's issuer and subject, read from its DER (RFC 5280: the signed part holds an
    /// optional version, the serial number, the signature's algorithm, the issuer, the validity,
    /// the subject).
    struct Names {
        var issuer: ArraySlice<UInt8>?
        var subject: ArraySlice<UInt8>?

        init(_ der: [UInt8]) {
            guard let certificate = Self.element(der, at: 0),
                let signed = Self.element(der, at: certificate.content.lowerBound)
            else { return }
            var fields: [Range<Int>] = []
            var at = signed.content.lowerBound
            while at < signed.content.upperBound, let field = Self.element(der, at: at) {
                if !(fields.isEmpty && field.tag == 0xA0) { fields.append(at..<field.end) }
                at = field.end
            }
            // serial, algorithm, issuer, validity, subject
            guard fields.count >= 5 else { return }
            issuer = der[fields[2]]
            subject = der[fields[4]]
        }

        var issuerCommonName: String? { issuer.flatMap(Self.commonName) }
        var subjectCommonName: String? { subject.flatMap(Self.commonName) }

        /// A name's common name (OID 2.5.4.3), if it has one.
        static func commonName(_ name: ArraySlice<UInt8>) -> String? {
            let bytes = Array(name)
            let oid: [UInt8] = [0x06, 0x03, 0x55, 0x04, 0x03]
            var index = 0
            while index + oid.count < bytes.count {
                if bytes[index..<index + oid.count].elementsEqual(oid),
                    let value = element(bytes, at: index + oid.count)
                {
                    return String(decoding: bytes[value.content], as: UTF8.self)
                }
                index += 1
            }
            return nil
        }

        /// The element at `index`: its tag, where its content lies, where the next one starts.
        static func element(_ bytes: [UInt8], at index: Int) -> (tag: UInt8, content: Range<Int>, end: Int)? {
            guard index + 2 <= bytes.count else { return nil }
            var length = Int(bytes[index + 1])
            var start = index + 2
            if length & 0x80 != 0 {
                let count = length & 0x7f
                guard (1...4).contains(count), start + count <= bytes.count else { return nil }
                length = bytes[start..<start + count].reduce(0) { $0 << 8 | Int($1) }
                start += count
            }
            guard length >= 0, start + length <= bytes.count else { return nil }
            return (bytes[index], start..<start + length, start + length)
        }
    }

    /// The certificates `host:port` presents, by a handshake that keeps them and goes no further.
    static func presented(host: String, port: Int, group: any EventLoopGroup, timeout: Duration) async
        -> [NIOSSLCertificate]?
    {
        let kept = Mutex<[NIOSSLCertificate]?>(nil)
        let context: NIOSSLContext
        var trustingNone = TrustedAuthorities.clientBase
        trustingNone.trustRoots = .certificates([])
        do { context = try NIOSSLContext(configuration: trustingNone) } catch { return nil }
        let isAddress = ServiceURL.address(host) != nil
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(AsyncHTTPClientTransport.timeAmount(timeout))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(
                        context: context, serverHostname: isAddress ? nil : host,
                        customVerificationCallback: { certificates, promise in
                            kept.withLock { $0 = certificates }
                            promise.succeed(.failed)
                        })
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
        do {
            let channel = try await bootstrap.connect(
                host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port
            ).get()
            // The handshake ends in failure once the certificates are kept: the channel closes.
            let closing = channel.closeFuture
            let bound = channel.eventLoop.scheduleTask(in: AsyncHTTPClientTransport.timeAmount(timeout)) {
                channel.close(promise: nil)
            }
            try? await closing.get()
            bound.cancel()
        } catch {
            return nil
        }
        return kept.withLock { $0 }
    }
}
