import Crypto
import Foundation
import X509

/// A certificate authority made by a test, and server certificates it signs, written as
/// PEM files into a directory.
struct TestCertificateAuthority {
    let key = P256.Signing.PrivateKey()
    let name: DistinguishedName
    let certificate: Certificate

    init(name commonName: String = "Greenroom test CA") throws {
        name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400,
            issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(key))
    }

    /// The CA's certificate in PEM.
    func certificatePEM() throws -> String { try certificate.serializeAsPEM().pemString }

    /// Writes a server certificate for `hostName` (signed by this CA) and its key into
    /// `directory`; returns the two paths.
    func issueServerCertificate(for hostName: String, in directory: String) throws -> (certificate: String, key: String) {
        let serverKey = P256.Signing.PrivateKey()
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(serverKey.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 86_400,
            issuer: name, subject: try DistinguishedName { CommonName(hostName) },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([.dnsName(hostName)])
            },
            issuerPrivateKey: .init(key))
        let certificatePath = "\(directory)/\(hostName)-cert.pem"
        let keyPath = "\(directory)/\(hostName)-key.pem"
        try (try certificate.serializeAsPEM().pemString + "\n").write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try (serverKey.pemRepresentation + "\n").write(toFile: keyPath, atomically: true, encoding: .utf8)
        return (certificatePath, keyPath)
    }
}
