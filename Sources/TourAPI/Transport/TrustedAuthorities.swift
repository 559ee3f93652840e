import Foundation
import NIOSSL
import TourModel

/// The certificate authorities a secure connection is checked against: the system's (Debian's
/// `ca-certificates`), or another bundle in their place (`SSL_CERT_FILE`, as OpenSSL and curl read
/// it), and authorities added to them (a staging service's or a company's own, `ca-file`).
public struct TrustedAuthorities: Sendable, Hashable {
    /// The bundle used instead of the system's, when one is named.
    var replacement: [NIOSSLCertificate]?
    var added: [NIOSSLCertificate]
    /// Why the authorities named could not be had: said at the first secure connection only, so
    /// that a stale `SSL_CERT_FILE` does not stop a plain-HTTP service.
    public var problem: String?

    public static let system = TrustedAuthorities(replacement: nil, added: [])

    public init() { self = .system }

    init(replacement: [NIOSSLCertificate]?, added: [NIOSSLCertificate]) {
        self.replacement = replacement
        self.added = added
    }

    /// The system's authorities and those in the PEM file at `path`.
    public func adding(pemFile path: String) throws(TransportError) -> TrustedAuthorities {
        var copy = self
        copy.added += try Self.certificates(path)
        return copy
    }

    /// The authorities in the PEM file at `path` instead of the system's.
    public func replacingSystem(withPEMFile path: String) throws(TransportError) -> TrustedAuthorities {
        var copy = self
        copy.replacement = try Self.certificates(path)
        return copy
    }

    static func certificates(_ path: String) throws(TransportError) -> [NIOSSLCertificate] {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw TransportError(
                .invalidRequest, "cannot read \(TerminalText.echo(path)): \(error.localizedDescription)")
        }
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMBytes(Array(data)) } catch {
            throw TransportError(.invalidRequest, "\(TerminalText.echo(path)) holds no PEM certificate")
        }
        guard !certificates.isEmpty else {
            throw TransportError(.invalidRequest, "\(TerminalText.echo(path)) holds no PEM certificate")
        }
        return certificates
    }

    var tlsConfiguration: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let replacement { configuration.trustRoots = .certificates(replacement) }
        if !added.isEmpty { configuration.additionalTrustRoots = [.certificates(added)] }
        return configuration
    }
}
