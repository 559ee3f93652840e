import FileAccess
import Foundation
import NIOSSL
import Synchronization
import TourModel

/// The certificate authorities a secure connection is checked against: the system's (Debian's
/// `ca-certificates`), or another bundle in their place (`SSL_CERT_FILE`, as OpenSSL and curl read
/// it), and authorities added to them (a staging service's or a company's own, `ca-file`).
///
/// A bundle named here is read only when a secure connection needs it, and once per process: a
/// plain-HTTP service needs none, and Debian's whole bundle (146 certificates, 200 kB) took a few
/// milliseconds to parse at every command that only spoke to a plain-HTTP service (twice for a
/// download, whose analytics go out on a second client). A bundle that cannot be used is said at
/// the first secure connection, so that a stale `SSL_CERT_FILE` does not stop a plain-HTTP service.
public struct TrustedAuthorities: Sendable, Hashable {
    /// A PEM file named in the settings, and where it was named (the start of its error).
    struct Bundle: Sendable, Hashable {
        var path: String
        var origin: String
    }

    /// The bundle used instead of the system's, when one is named.
    var replacement: Bundle?
    var added: [Bundle] = []

    public static let system = TrustedAuthorities()

    public init() {}

    /// The system's authorities and those in the PEM file at `path`; `origin` opens the error
    /// said when the file cannot be used ("ca-file (from config file)").
    public func adding(pemFile path: String, origin: String) -> TrustedAuthorities {
        var copy = self
        copy.added.append(Bundle(path: path, origin: origin))
        return copy
    }

    /// The authorities in the PEM file at `path` instead of the system's.
    public func replacingSystem(withPEMFile path: String, origin: String) -> TrustedAuthorities {
        var copy = self
        copy.replacement = Bundle(path: path, origin: origin)
        return copy
    }

    /// The certificates of the bundles named, read now.
    struct Loaded: Sendable {
        var replacement: [NIOSSLCertificate]?
        var added: [NIOSSLCertificate]
        /// Each bundle named, the replacement first, and how many authorities it holds.
        var bundles: [NamedBundle] = []
        /// The authorities named in the settings (not the system's).
        var named: [NIOSSLCertificate] { (replacement ?? []) + added }

        var tlsConfiguration: TLSConfiguration {
            var configuration = TrustedAuthorities.clientBase
            if let replacement { configuration.trustRoots = .certificates(replacement) }
            if !added.isEmpty { configuration.additionalTrustRoots = [.certificates(added)] }
            return configuration
        }
    }

    /// Each set of bundles read so far in this process.
    private static let read = Mutex<[TrustedAuthorities: Loaded]>([:])

    /// The certificates of the bundles named: read at the first call for these bundles, the same
    /// ones after. Fails with the first bundle that cannot be used, its origin first
    /// (`.invalidRequest`: the settings are wrong, not the service); a failure is not kept, so a
    /// file mended while a walk runs is read at its next secure connection.
    func load() throws(TransportError) -> Loaded {
        if let known = Self.read.withLock({ $0[self] }) { return known }
        func read(_ bundle: Bundle) throws(TransportError) -> [NIOSSLCertificate] {
            do { return try Self.certificates(bundle.path) } catch {
                throw TransportError(.invalidRequest, "\(bundle.origin): \(error.detail)")
            }
        }
        var loaded = Loaded(replacement: nil, added: [])
        if let replacement {
            let certificates = try read(replacement)
            loaded.replacement = certificates
            loaded.bundles.append(NamedBundle(replacement, authorities: certificates.count, replacesSystem: true))
        }
        for bundle in added {
            let certificates = try read(bundle)
            loaded.added += certificates
            loaded.bundles.append(NamedBundle(bundle, authorities: certificates.count, replacesSystem: false))
        }
        // Two callers at once may both read; the first kept is the one every caller gets.
        return Self.read.withLock { read in
            if let known = read[self] { return known }
            read[self] = loaded
            return loaded
        }
    }

    /// A bundle named in the settings, read: what `doctor` shows.
    public struct NamedBundle: Sendable, Hashable {
        /// Where it was named ("SSL_CERT_FILE", "ca-file (from config file)").
        public let origin: String
        public let path: String
        /// How many certificates of authorities it holds.
        public let authorities: Int
        /// Trusted instead of the system's (`SSL_CERT_FILE`), not beside them.
        public let replacesSystem: Bool

        init(_ bundle: Bundle, authorities: Int, replacesSystem: Bool) {
            (origin, path) = (bundle.origin, bundle.path)
            self.authorities = authorities
            self.replacesSystem = replacesSystem
        }
    }

    /// The bundles named in the settings, read now (or already, in this process); none when only
    /// the system's authorities are trusted. Fails as the first secure connection would.
    public func namedBundles() throws(TransportError) -> [NamedBundle] {
        try load().bundles
    }

    /// Where the system's authorities are, as NIOSSL looks for them when no bundle replaces them:
    /// a bundle (Debian's `ca-certificates`, Fedora's), else a folder of them; nil when none is.
    public static var systemBundle: String? {
        var info = stat()
        for file in ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt"]
        where stat(file, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
            return file
        }
        let folder = "/etc/ssl/certs"
        return stat(folder, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR ? folder : nil
    }

    /// A bundle larger than this is not a bundle of authorities (Debian's whole one is 200 kB).
    static let largest = 10 << 20

    static func certificates(_ path: String) throws(TransportError) -> [NIOSSLCertificate] {
        let shown = TerminalText.echo(path)
        // A regular file only (a FIFO would block, a device stream forever), and not a huge one.
        let handle: FileHandle
        do { handle = try InputFile.handle(path) } catch {
            throw TransportError(.invalidRequest, "cannot read \(shown): \(error.reason)")
        }
        var info = stat()
        guard fstat(handle.fileDescriptor, &info) == 0, info.st_size <= Self.largest else {
            throw TransportError(.invalidRequest, "\(shown) is larger than 10 MB: not a bundle of certificates")
        }
        let data: Data
        do { data = try handle.readToEnd() ?? Data() } catch {
            throw TransportError(.invalidRequest, "cannot read \(shown): \(error.localizedDescription)")
        }
        guard !data.isEmpty else { throw TransportError(.invalidRequest, "\(shown) is empty: it holds no certificate") }
        do { return try NIOSSLCertificate.fromPEMBytes(Array(data)).nonEmpty() } catch {
            // Which block is wrong, when there are several: the whole bundle is refused for one,
            // and a person must be able to find it.
            let text = String(decoding: data, as: UTF8.self)
            let blocks = Self.pemBlocks(text)
            let begun = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").count - 1
            if blocks.count > 1,
                let bad = blocks.firstIndex(where: { (try? NIOSSLCertificate.fromPEMBytes(Array($0.utf8))) == nil })
            {
                throw TransportError(
                    .invalidRequest,
                    "\(shown): certificate \(bad + 1) of its \(max(begun, blocks.count)) cannot be read")
            }
            // Whole blocks that are all good, and one begun that never ends (a file cut short).
            if begun > blocks.count, !blocks.isEmpty {
                throw TransportError(
                    .invalidRequest,
                    "\(shown): certificate \(blocks.count + 1) of its \(begun) has no END line (is the file cut short?)"
                )
            }
            throw TransportError(.invalidRequest, "\(shown) holds no PEM certificate")
        }
    }

    /// The `-----BEGIN CERTIFICATE-----` ... `-----END CERTIFICATE-----` blocks of a PEM text.
    static func pemBlocks(_ text: String) -> [String] {
        var blocks: [String] = []
        var rest = text[...]
        while let begin = rest.range(of: "-----BEGIN CERTIFICATE-----"),
            let end = rest.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<rest.endIndex)
        {
            blocks.append(String(rest[begin.lowerBound..<end.upperBound]) + "\n")
            rest = rest[end.upperBound...]
        }
        return blocks
    }

    /// What every secure connection of the client offers, whatever it trusts.
    static var clientBase: TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        // TLS 1.0 and 1.1 are retired (RFC 8996); curl refuses them too.
        configuration.minimumTLSVersion = .tlsv12
        configuration.verifySignatureAlgorithms = verifiedSignatures
        configuration.curves = curves
        return configuration
    }

    /// BoringSSL's own groups, and P-521 after them: over TLS 1.2 a host's P-521 key is used only
    /// when the client offers that curve. The key shares sent stay the first ones'.
    static let curves: [NIOTLSCurve] = [.x25519_MLKEM768, .x25519, .secp256r1, .secp384r1, .secp521r1]

    /// The signatures a host may prove its key with: BoringSSL's own list, and Ed25519 and P-521,
    /// which it leaves out and curl (OpenSSL) offers. Without them a host whose certificate has
    /// such a key failed the handshake ("sslv3 alert handshake failure"). Not SHA-1 (BoringSSL's
    /// list keeps RSA with SHA-1 for old servers): a TLS 1.2 host signing with it is refused, as
    /// curl (OpenSSL's default security level) refuses it.
    static let verifiedSignatures: [SignatureAlgorithm] = [
        .ecdsaSecp256R1Sha256, .rsaPssRsaeSha256, .rsaPkcs1Sha256, .ecdsaSecp384R1Sha384, .rsaPssRsaeSha384,
        .rsaPkcs1Sha384, .ed25519, .ecdsaSecp521R1Sha512, .rsaPssRsaeSha512, .rsaPkcs1Sha512,
    ]
}

extension Array where Element == NIOSSLCertificate {
    /// Itself when it holds a certificate; a PEM text with none is an error, like a broken one.
    fileprivate func nonEmpty() throws -> Self {
        guard !isEmpty else { throw NIOSSLError.failedToLoadCertificate }
        return self
    }
}
