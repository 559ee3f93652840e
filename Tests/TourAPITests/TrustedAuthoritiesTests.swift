import Foundation
import TestSupport
import Testing

@testable import TourAPI

/// The authorities named in the settings (`SSL_CERT_FILE`, `ca-file`) are read when a secure
/// connection needs them, once per process, and a file that cannot be used is said then.
struct TrustedAuthoritiesTests {
    /// Naming a bundle reads nothing: one that is not there is said only when it is loaded, with
    /// where it was named first.
    @Test func aBundleIsReadOnlyWhenLoaded() throws {
        let missing = "/nonexistent/\(UUID().uuidString).pem"
        let authorities = TrustedAuthorities.system.adding(pemFile: missing, origin: "ca-file (from config file)")
        #expect(authorities != .system)
        #expect(throws: TransportError.self) { try authorities.load() }
        do {
            _ = try authorities.load()
        } catch {
            #expect(error.kind == .invalidRequest)
            #expect(error.detail.hasPrefix("ca-file (from config file): cannot read"), "\(error.detail)")
        }
        // The system's alone: nothing to read, nothing named.
        #expect(try TrustedAuthorities.system.load().named.isEmpty)
    }

    /// A bundle is parsed once per process: loading the same bundles again gives the same
    /// certificates, even once the file is gone.
    @Test func aBundleIsParsedOncePerProcess() throws {
        let home = try TemporaryDirectory()
        let pem = home.file("authority.pem")
        try FileManager.default.copyItem(at: TestCertificates.shared().authority, to: pem)
        let authorities = TrustedAuthorities.system.replacingSystem(withPEMFile: pem.path, origin: "SSL_CERT_FILE")
        let first = try authorities.load()
        try FileManager.default.removeItem(at: pem)
        let again = try authorities.load()
        #expect(first.named.count == 1 && again.named.count == 1)
        #expect(first.named.first === again.named.first)
        #expect(first.replacement != nil && first.added.isEmpty)
    }

    /// A failure is not kept: a bundle mended while a walk runs is read at the next secure
    /// connection.
    @Test func aBundleMendedAfterAFailureIsRead() throws {
        let home = try TemporaryDirectory()
        let pem = home.file("late.pem")
        let authorities = TrustedAuthorities.system.adding(pemFile: pem.path, origin: "ca-file (from config file)")
        #expect(throws: TransportError.self) { try authorities.load() }
        try FileManager.default.copyItem(at: TestCertificates.shared().authority, to: pem)
        #expect(try authorities.load().added.count == 1)
    }

    /// The SSL_CERT_FILE bundle that cannot be used is said before a ca-file's.
    @Test func theFirstBundleThatCannotBeUsedIsSaid() throws {
        let authorities = TrustedAuthorities.system
            .replacingSystem(withPEMFile: "/nonexistent/\(UUID().uuidString).pem", origin: "SSL_CERT_FILE")
            .adding(pemFile: "/nonexistent/other.pem", origin: "ca-file (from WALKSCAPE_CA_FILE)")
        do {
            _ = try authorities.load()
            Issue.record("a missing bundle was loaded")
        } catch {
            #expect(error.detail.hasPrefix("SSL_CERT_FILE: cannot read"), "\(error.detail)")
        }
    }
}
