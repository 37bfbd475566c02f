import Foundation
import NIOSSL

extension ServerConfiguration {
    /// The server's TLS settings from ``tlsCertificatePath`` and ``tlsKeyPath``, or `nil`
    /// for plain HTTP. Reads both files now, so that a missing or unreadable one stops the
    /// server at start with a sentence that names it.
    func serverTLS() throws -> TLSConfiguration? {
        guard let certificatePath = tlsCertificatePath, let keyPath = tlsKeyPath else { return nil }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificatePath)
        } catch {
            throw GreenroomServerError.invalidConfiguration("cannot read the TLS certificate \(certificatePath): \(error)")
        }
        guard !chain.isEmpty else {
            throw GreenroomServerError.invalidConfiguration("the TLS certificate file \(certificatePath) holds no PEM certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyPath, format: .pem)
        } catch {
            throw GreenroomServerError.invalidConfiguration("cannot read the TLS private key \(keyPath): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        return configuration
    }
}
