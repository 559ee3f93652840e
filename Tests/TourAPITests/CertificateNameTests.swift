import Testing

@testable import TourAPI

/// A certificate's names, read from its DER for the refusal's reason.
struct CertificateNameTests {
    /// The issuer and subject are read from the DER, whatever its lengths' forms; a truncated one
    /// yields nothing rather than a crash.
    @Test func namesAreReadFromTheDEROrNotAtAll() {
        // SEQUENCE { SEQUENCE { [0]{INTEGER 2}, INTEGER 1, SEQUENCE{}, SEQUENCE{issuer}, SEQUENCE{}, SEQUENCE{subject} } }
        let cn: [UInt8] = [0x31, 0x0C, 0x30, 0x0A, 0x06, 0x03, 0x55, 0x04, 0x03, 0x0C, 0x03] + Array("Ada".utf8)
        let name: [UInt8] = [0x30, UInt8(cn.count)] + cn
        let fields: [UInt8] =
            [0xA0, 0x03, 0x02, 0x01, 0x02, 0x02, 0x01, 0x01, 0x30, 0x00] + name + [0x30, 0x00] + name
        let signed: [UInt8] = [0x30, 0x81, UInt8(fields.count)] + fields
        let certificate: [UInt8] = [0x30, UInt8(signed.count)] + signed
        let names = CertificateDiagnosis.Names(certificate)
        #expect(names.issuer.map(Array.init) == name)
        #expect(names.subject == names.issuer)
        #expect(names.issuerCommonName == "Ada")
        for cut in [1, 5, certificate.count / 2, certificate.count - 1] {
            let truncated = CertificateDiagnosis.Names(Array(certificate.prefix(cut)))
            #expect(truncated.subject == nil)
        }
    }
}
