import Foundation
import Synchronization

/// Certificates for HTTPS tests, made with `openssl` in a temporary folder: an authority of our
/// own ("Walk Test Authority") and server certificates for 127.0.0.1 and localhost signed by it,
/// one self-signed, one for another host name, one expired, one naming its host only as its common
/// name, one only for clients, Ed25519 and P-521 keys, and a chain with an expired cross-signature.
public struct TestCertificates: Sendable {
    public let folder: TemporaryDirectory
    /// The authority's certificate (PEM): what a client must be told to trust.
    public var authority: URL { folder.file("authority.crt") }

    /// A certificate and its key, as `walkscape-server --tls-certificate/--tls-key` take them.
    public struct Pair: Sendable {
        public let certificate: URL
        public let key: URL
        public var serverArguments: [String] { ["--tls-certificate", certificate.path, "--tls-key", key.path] }
    }

    /// Signed by the authority, for 127.0.0.1, localhost and this machine's name (`ThisMachine`).
    public var good: Pair { pair("good") }
    /// Signed by itself, for 127.0.0.1 and localhost.
    public var selfSigned: Pair { pair("self") }
    /// Signed by the authority, for other.example.org only.
    public var otherName: Pair { pair("other") }
    /// Signed by the authority, for 127.0.0.1 and localhost, expired the day before it was made.
    public var expired: Pair { pair("expired") }
    /// Signed by the authority, naming 127.0.0.1 only as its common name (no subjectAltName).
    public var commonNameOnly: Pair { pair("cn") }
    /// Signed by the authority, for 127.0.0.1 and localhost, with an Ed25519 key.
    public var ed25519: Pair { pair("ed25519") }
    /// Signed by the authority, for 127.0.0.1 and localhost, with a P-521 key.
    public var p521: Pair { pair("p521") }
    /// Signed by the authority, for 127.0.0.1 and localhost, with an RSA key (2048 bits).
    public var rsa: Pair { pair("rsa") }
    /// Signed by the authority, for 127.0.0.1 and localhost, but only for clients
    /// (extendedKeyUsage clientAuth): trusted, and still not a server's.
    public var clientOnly: Pair { pair("client") }
    /// The good certificate followed by the authority cross-signed by an older root ("Old Walk
    /// Root"), that cross-signature expired: the chain a host still sends after its old root's
    /// cross-signature ran out, as Let's Encrypt's did.
    public var crossSigned: Pair { Pair(certificate: folder.file("crossed-chain.crt"), key: folder.file("good.key")) }

    func pair(_ name: String) -> Pair { Pair(certificate: folder.file("\(name).crt"), key: folder.file("\(name).key")) }

    /// One set for the whole run: making them takes openssl several processes.
    public static func shared() throws -> TestCertificates {
        try made.withLock { made in
            if let made { return made }
            let certificates = try TestCertificates()
            made = certificates
            return certificates
        }
    }
    private static let made = Mutex<TestCertificates?>(nil)

    public init() throws {
        folder = try TemporaryDirectory()
        // This machine's name reaches it without being a loopback one: the proxy tests use it (a
        // host named by its address is not reached through a proxy over https).
        let local = "subjectAltName=DNS:localhost,IP:127.0.0.1" + (ThisMachine.name.map { ",DNS:\($0)" } ?? "")
        let p256 = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1"]
        /// A certificate signed by its own key (P-256), for 30 days.
        func selfSigned(_ name: String, subject: String, _ extra: [String] = []) throws {
            try openssl(
                ["req", "-x509"] + p256
                    + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).crt", "-days", "30", "-subj", subject]
                    + extra)
        }
        try folder.write("local.ext", local + "\n")
        try folder.write("other.ext", "subjectAltName=DNS:other.example.org\n")
        try selfSigned("authority", subject: "/CN=Walk Test Authority")
        try selfSigned("self", subject: "/CN=localhost", ["-addext", local])
        try folder.write("none.ext", "basicConstraints=CA:FALSE\n")
        try folder.write("client.ext", local + "\nextendedKeyUsage=clientAuth\n")
        for (name, ext, days, key) in [
            ("good", "local.ext", "30", p256), ("other", "other.ext", "30", p256),
            ("expired", "local.ext", "-1", p256), ("cn", "none.ext", "30", p256),
            ("ed25519", "local.ext", "30", ["-newkey", "ed25519"]),
            ("p521", "local.ext", "30", ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:secp521r1"]),
            ("client", "client.ext", "30", p256), ("rsa", "local.ext", "30", ["-newkey", "rsa:2048"]),
        ] {
            try openssl(
                ["req"] + key + ["-nodes", "-keyout", "\(name).key", "-out", "\(name).csr"]
                    + ["-subj", name == "cn" ? "/CN=127.0.0.1" : "/CN=\(name)"])
            try openssl(
                "x509", "-req", "-in", "\(name).csr", "-CA", "authority.crt", "-CAkey", "authority.key",
                "-CAcreateserial", "-out", "\(name).crt", "-days", days, "-extfile", ext)
        }
        // The authority's key certified again by an older root, that certificate expired.
        try selfSigned("old", subject: "/CN=Old Walk Root")
        try folder.write("authority.ext", "basicConstraints=critical,CA:TRUE\nkeyUsage=keyCertSign,cRLSign\n")
        try openssl(
            "x509", "-x509toreq", "-in", "authority.crt", "-signkey", "authority.key", "-out", "authority.csr")
        try openssl(
            "x509", "-req", "-in", "authority.csr", "-CA", "old.crt", "-CAkey", "old.key", "-CAcreateserial",
            "-out", "crossed.crt", "-days", "-1", "-extfile", "authority.ext")
        let chain = try [folder.file("good.crt"), folder.file("crossed.crt")].map {
            try String(contentsOf: $0, encoding: .utf8)
        }
        try folder.write("crossed-chain.crt", chain.joined())
    }

    private func openssl(_ arguments: String...) throws { try openssl(arguments) }

    private func openssl(_ arguments: [String]) throws {
        guard let openssl = which("openssl") else { throw Failure(description: "openssl is not installed") }
        let result = try run(openssl, arguments, currentDirectory: folder.url, timeout: 60)
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(result.stderr)")
        }
    }

    struct Failure: Error, CustomStringConvertible { var description: String }
}
