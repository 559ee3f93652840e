import Foundation
import TestSupport
import Testing

/// The service over HTTPS, as the live one is: walkscape-server with a certificate (signed by a
/// test authority of our own, made with openssl), the client trusting that authority through
/// `ca-file` or `SSL_CERT_FILE`, and a refused certificate said in words with the way to trust it
/// (it was BoringSSL's dump, "handshakeFailed(...CERTIFICATE_VERIFY_FAILED at <source path>)").
@Suite(.serialized)
struct SecureConnectionTests {
    static let fixture = TourFixture(slug: "secure-walk", points: 2, audioBytes: 40_000)

    func harness(_ pair: TestCertificates.Pair) async throws -> StoreHarness {
        try await StoreHarness(options: .init(extraArguments: pair.serverArguments)) { tours in
            try Self.fixture.write(in: tours)
        }
    }

    /// `openssl s_server -www` with `pair` and `options` on a free port, once it listens.
    static func opensslServer(
        _ openssl: URL, _ pair: TestCertificates.Pair, _ options: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> (ChildProcess, Int) {
        let port = try freeTCPPort()
        let server = try ChildProcess(
            openssl,
            ["s_server", "-accept", "127.0.0.1:\(port)", "-cert", pair.certificate.path, "-key", pair.key.path]
                + options + ["-www", "-quiet"], separateErrorOutput: true)
        #expect(
            await server.listens(on: port, within: 2), "openssl s_server: \(server.errorOutput)",
            sourceLocation: sourceLocation)
        return (server, port)
    }

    /// `walkscape tours` from https://127.0.0.1:`port`, the test authority trusted (`ca-file`).
    static func toursTrustingTheAuthority(port: Int) throws -> ProcessResult {
        let home = try TemporaryDirectory()
        try home.write("config/config", "ca-file = \(try TestCertificates.shared().authority.path)\n")
        return try runWalkscape(
            ["tours"], home: home, environment: ["WALKSCAPE_API_URL": "https://127.0.0.1:\(port)"], timeout: 60)
    }

    /// Nothing of the TLS library's own text reaches the walker.
    func expectPlainWords(_ stderr: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for leak in ["OPENSSL", "BoringSSL", "handshakeFailed", ".build", "NIOSSL"] {
            #expect(!stderr.contains(leak), "\(stderr)", sourceLocation: sourceLocation)
        }
        #expect(stderr.split(separator: "\n").count == 1, "\(stderr)", sourceLocation: sourceLocation)
    }

    @Test func aServiceOverHTTPSIsUsedOnceItsAuthorityIsTrusted() async throws {
        let certificates = try TestCertificates.shared()
        let harness = try await harness(certificates.good)
        #expect(harness.server.baseURL.hasPrefix("https://127.0.0.1:"))

        let refused = try harness.run(["tours"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "its certificate comes from Walk Test Authority, which is not among the authorities this machine trusts"
            ),
            "\(refused.stderr)")
        #expect(refused.stderr.contains("ca-file = PATH"), "\(refused.stderr)")
        expectPlainWords(refused.stderr)

        // doctor says the same, and where an authority of one's own goes.
        let doctor = try harness.run(["doctor"])
        #expect(doctor.stdout.contains("which is not among the authorities this machine trusts"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("ca-file = PATH"), "\(doctor.stdout)")

        // A ca-file already named that holds the host's own certificate, not its authority's: the
        // advice says what such a file must hold, and that the one named does not.
        try harness.home.write("config/config", "ca-file = \(certificates.good.certificate.path)\n")
        let leafOnly = try harness.run(["tours"])
        #expect(leafOnly.status == 69, "\(leafOnly.stderr)")
        #expect(
            leafOnly.stderr.contains(
                "the certificate at the top of the host's chain in PEM, not an intermediate's; ca-file (from config file) '\(certificates.good.certificate.path)' does not hold it"
            ), "\(leafOnly.stderr)")
        expectPlainWords(leafOnly.stderr)
        try harness.home.write("config/config", "")

        // The authority in the process's environment, as OpenSSL and curl read it.
        let bundle = try harness.run(["tours"], environment: ["SSL_CERT_FILE": certificates.authority.path])
        #expect(bundle.status == 0, "\(bundle.stderr)")
        #expect(bundle.stdout.contains("secure-walk"))

        // http:// to the HTTPS port: the server answers in plain HTTP that it speaks HTTPS, once
        // (it closed the connection unanswered, which the client retried as a broken one: exit 75).
        let plain = try harness.run(
            ["tours"], apiURL: harness.server.baseURL.replacingOccurrences(of: "https://", with: "http://"))
        #expect(plain.status == 65, "\(plain.stderr)")
        #expect(plain.stderr.contains("This port speaks HTTPS: use https://"), "\(plain.stderr)")
        #expect(!plain.stderr.contains("trying again"), "\(plain.stderr)")

        // The authority in the settings, named from the config file's folder: everything goes over
        // HTTPS, the media links too.
        try harness.home.write("config/config", "ca-file = authority.pem\n")
        try FileManager.default.copyItem(at: certificates.authority, to: harness.home.file("config/authority.pem"))
        let download = try harness.run(["download", "secure-walk", "--json"])
        #expect(download.status == 0, "\(download.stderr)")
        let installed = try #require(StoreHarness.jsonLines(download).last)
        #expect(installed["event"] as? String == "installed", "\(download.stdout)")
        #expect(installed["bytesReceived"] as? Int == 2 * Self.fixture.audioBytes)
        try harness.expectBlobsHashRight()
        try harness.expectVerifyClean()
    }

    /// Each refusal says why: self-signed, for another name, expired, or a port that speaks plain
    /// HTTP.
    @Test func aRefusedCertificateSaysWhy() async throws {
        let certificates = try TestCertificates.shared()
        // The reason, and whether trusting an authority of one's own is offered as the way out.
        let cases: [(TestCertificates.Pair, String, Bool)] = [
            (certificates.selfSigned, "its certificate is self-signed", true),
            (certificates.otherName, "its certificate is for other.example.org, not 127.0.0.1", false),
            (certificates.expired, "its certificate expired on ", false),
            (
                certificates.commonNameOnly,
                "its certificate names 127.0.0.1 only as its common name, which is not checked", false
            ),
        ]
        for (pair, reason, advised) in cases {
            let harness = try await harness(pair)
            // Trusting the authority does not make a certificate for another name or an expired
            // one good.
            try harness.home.write("config/config", "ca-file = \(certificates.authority.path)\n")
            let result = try harness.run(["tours"])
            #expect(result.status == 69, "\(result.stderr)")
            #expect(result.stderr.contains("no secure connection to 127.0.0.1:"), "\(result.stderr)")
            #expect(result.stderr.contains(reason), "\(reason): \(result.stderr)")
            #expect(result.stderr.contains("ca-file = PATH") == advised, "\(result.stderr)")
            expectPlainWords(result.stderr)
        }

        let plain = try await StoreHarness { tours in try Self.fixture.write(in: tours) }
        let https = plain.server.baseURL.replacingOccurrences(of: "http://", with: "https://")
        let result = try plain.run(["tours"], apiURL: https)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("it does not speak TLS on that port (plain http?)"), "\(result.stderr)")
        expectPlainWords(result.stderr)

        // A plain-HTTP service needs no authority: a ca-file that holds none is not read for it,
        // and is said at the first secure connection.
        try plain.home.write("config/config", "ca-file = \(plain.home.file("config/config").path)\n")
        let overHTTP = try plain.run(["tours"])
        #expect(overHTTP.status == 0, "\(overHTTP.stderr)")
        let overHTTPS = try plain.run(["tours"], apiURL: https)
        #expect(overHTTPS.status == 64, "\(overHTTPS.stderr)")
        #expect(overHTTPS.stderr.contains("ca-file (from config file)"), "\(overHTTPS.stderr)")
    }

    /// Hosts whose certificate has an Ed25519 or a P-521 key are used, as curl uses them, over
    /// TLS 1.3 (walkscape-server) and TLS 1.2 (openssl s_server): the client offered neither
    /// signature, and the handshake failed ("sslv3 alert handshake failure"); over TLS 1.2 a P-521
    /// key also needs the P-521 curve offered.
    @Test func certificatesWithEd25519AndP521KeysAreAccepted() async throws {
        let certificates = try TestCertificates.shared()
        let openssl = try #require(which("openssl"))
        for (name, pair) in [("Ed25519", certificates.ed25519), ("P-521", certificates.p521)] {
            let (server, port) = try await Self.opensslServer(openssl, pair, ["-tls1_2"])
            defer { server.signal(SIGKILL) }
            // s_server answers with a page of its own, not the service's JSON: the handshake is
            // what is checked.
            let overTLS12 = try Self.toursTrustingTheAuthority(port: port)
            #expect(!overTLS12.stderr.contains("secure connection"), "\(name), TLS 1.2: \(overTLS12.stderr)")
            #expect(overTLS12.status != 69, "\(name), TLS 1.2: \(overTLS12.stderr)")

            let harness = try await harness(pair)
            try harness.home.write("config/config", "ca-file = \(certificates.authority.path)\n")
            let result = try harness.run(["tours"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            #expect(result.stdout.contains("secure-walk"), "\(name): \(result.stdout)")
            // Not trusted: the reason is read from its certificate, as for any other key.
            try harness.home.write("config/config", "")
            let refused = try harness.run(["tours"])
            #expect(refused.status == 69, "\(name): \(refused.stderr)")
            #expect(
                refused.stderr.contains("its certificate comes from Walk Test Authority, which is not among"),
                "\(name): \(refused.stderr)")
        }
    }

    /// A chain whose only fault is not known for certain is not said to be one: a certificate
    /// trusted and still refused (one only for clients) is not called untrusted, and a chain with
    /// an expired cross-signature of its authority is not called expired when the authority is
    /// what is missing; the same chain is used once the authority is trusted.
    @Test func aChainIsBlamedOnlyForWhatItShows() async throws {
        let certificates = try TestCertificates.shared()
        let client = try await harness(certificates.clientOnly)
        try client.home.write("config/config", "ca-file = \(certificates.authority.path)\n")
        let refused = try client.run(["tours"])
        #expect(refused.status == 69, "\(refused.stderr)")
        #expect(
            refused.stderr.contains(
                "though Walk Test Authority is trusted here: a certificate in it may not be allowed to serve a host"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("ca-file = PATH"), "\(refused.stderr)")
        expectPlainWords(refused.stderr)

        let crossed = try await harness(certificates.crossSigned)
        let untrusted = try crossed.run(["tours"])
        #expect(untrusted.status == 69, "\(untrusted.stderr)")
        #expect(
            untrusted.stderr.contains("a certificate in it expired on ")
                && untrusted.stderr.contains("or the authority it leads to is not trusted here"),
            "\(untrusted.stderr)")
        #expect(untrusted.stderr.contains("ca-file = PATH"), "\(untrusted.stderr)")
        expectPlainWords(untrusted.stderr)
        try crossed.home.write("config/config", "ca-file = \(certificates.authority.path)\n")
        let trusted = try crossed.run(["tours"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
    }

    /// TLS 1.0 and 1.1 are retired: walkscape does not talk to a server that offers nothing newer
    /// (openssl s_server), and walkscape-server does not answer a client that asks for TLS 1.0
    /// (openssl s_client), while TLS 1.2 goes through. Both took TLS 1.0.
    @Test func tlsOlderThan1Point2IsRefusedBothWays() async throws {
        let certificates = try TestCertificates.shared()
        let openssl = try #require(which("openssl"))
        // A TLS 1.0-only server on a free port.
        let (old, port) = try await Self.opensslServer(
            openssl, certificates.good, ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"])
        defer { old.signal(SIGKILL) }
        let result = try Self.toursTrustingTheAuthority(port: port)
        #expect(result.status == 69, "\(result.stderr)")
        #expect(result.stderr.contains("no secure connection to 127.0.0.1:"), "\(result.stderr)")
        #expect(result.stderr.contains("it offers only TLS older than 1.2"), "\(result.stderr)")

        let harness = try await harness(certificates.good)
        let address = "127.0.0.1:\(harness.server.port)"
        for (version, answered) in [("-tls1", false), ("-tls1_2", true)] {
            let hello = try run(
                openssl, ["s_client", "-connect", address, version, "-cipher", "DEFAULT@SECLEVEL=0", "-brief"],
                stdin: Data(), timeout: 30)
            let said = hello.stdout + hello.stderr
            #expect(said.contains("Protocol version:") == answered, "\(version): \(said)")
        }
    }

    /// A `ca-file` that is not there, or holds no certificate, is a usage error naming it, at the
    /// first secure connection: a plain-HTTP service does not need it.
    @Test func aCAFileThatHoldsNoCertificateIsSaid() async throws {
        let home = try TemporaryDirectory()
        let notPEM = try home.write("not.pem", "hello\n")
        // Two good authorities around a broken block: which one is said.
        let authority = try String(contentsOf: TestCertificates.shared().authority, encoding: .utf8)
        let broken = "-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n"
        let mixed = try home.write("mixed.pem", authority + broken + authority)
        let empty = try home.write("empty.pem", "")
        let cutShort = try home.write("cut.pem", authority + "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n")
        for (file, words) in [
            (notPEM.path, "holds no PEM certificate"), ("/nonexistent/ca.pem", "cannot read"),
            (mixed.path, "certificate 2 of its 3 cannot be read"), (empty.path, "is empty: it holds no certificate"),
            (cutShort.path, "certificate 2 of its 2 has no END line"),
            (home.path, "is a folder, not a file"), ("/dev/zero", "is a character device, not a regular file"),
        ] {
            try home.write("config/config", "ca-file = \(file)\n")
            let result = try runWalkscape(
                ["tours"], home: home, environment: ["WALKSCAPE_API_URL": "https://127.0.0.1:9"], timeout: 60)
            #expect(result.status == 64, "\(result.stderr)")
            #expect(
                result.stderr.contains("ca-file (from config file)") && result.stderr.contains(words),
                "\(result.stderr)")
        }
        // An empty value is unset (it named the config file's folder).
        try home.write("config/config", "ca-file =\n")
        let unset = try runWalkscape(
            ["tours"], home: home, environment: ["WALKSCAPE_API_URL": "https://127.0.0.1:9"], timeout: 60)
        #expect(unset.status == 69, "\(unset.stderr)")
        #expect(!unset.stderr.contains("ca-file"), "\(unset.stderr)")
    }

    /// A TLS 1.2 host that proves its key with a SHA-1 signature is refused, as curl refuses it;
    /// the same host signing with SHA-256 is used.
    @Test func aHostSigningWithSHA1IsRefused() async throws {
        let certificates = try TestCertificates.shared()
        let openssl = try #require(which("openssl"))
        for (signatures, refused) in [("RSA+SHA1", true), ("RSA+SHA256", false)] {
            let (server, port) = try await Self.opensslServer(
                openssl, certificates.rsa,
                ["-tls1_2", "-sigalgs", signatures, "-cipher", "ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0"])
            defer { server.signal(SIGKILL) }
            // s_server answers with a page of its own, not the service's JSON: the handshake is
            // what is checked.
            let result = try Self.toursTrustingTheAuthority(port: port)
            #expect((result.status == 69) == refused, "\(signatures): \(result.stderr)")
            #expect(result.stderr.contains("no secure connection") == refused, "\(signatures): \(result.stderr)")
            if refused { expectPlainWords(result.stderr) }
        }
    }

    /// The server refuses a key that is not its certificate's, a missing file, and a certificate
    /// without its key, before listening.
    @Test func theServerSaysWhatIsWrongWithItsCertificate() async throws {
        let certificates = try TestCertificates.shared()
        let tours = try TemporaryDirectory()
        try Self.fixture.write(in: tours.url)
        let data = try TemporaryDirectory()
        let base = [tours.path, "--port", "0", "--data", data.path]
        let cases: [([String], String)] = [
            (
                [
                    "--tls-certificate", certificates.good.certificate.path, "--tls-key",
                    certificates.selfSigned.key.path,
                ],
                "does not go with the first certificate in"
            ),
            (
                ["--tls-certificate", tours.file("none.crt").path, "--tls-key", certificates.good.key.path],
                "no such file"
            ),
            (
                ["--tls-certificate", certificates.good.key.path, "--tls-key", certificates.good.key.path],
                "holds no PEM certificate"
            ),
            (["--tls-certificate", certificates.good.certificate.path], "--tls-key and tls-certificate go together"),
        ]
        for (arguments, words) in cases {
            let result = try run(TestPaths.walkscapeServer, base + arguments, timeout: 30)
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(arguments): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        }
    }
}
