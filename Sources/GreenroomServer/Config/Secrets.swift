import Foundation

/// The app secret (signs client tokens) and the server API key (authorizes the app's own
/// backend on REST), kept as files of mode 0600 in the data directory.
public struct Secrets: Sendable {
    /// The HMAC secret that signs and verifies client tokens.
    public var appSecret: String
    /// The key the app's backend sends as `Authorization: Bearer KEY` on REST calls.
    public var apiKey: String
    /// Where the app secret is stored.
    public var appSecretPath: String
    /// Where the API key is stored.
    public var apiKeyPath: String
    /// Whether either file was created by this call.
    public var created: Bool
    /// The app secret before the last rotation (`app-secret.previous`), still accepted for
    /// verifying tokens while it is there; never used to sign.
    public var previousAppSecret: String?
    /// The API key before the last rotation (`api-key.previous`), still accepted while it
    /// is there.
    public var previousAPIKey: String?

    /// Makes secrets from their values.
    public init(appSecret: String, apiKey: String, appSecretPath: String, apiKeyPath: String, created: Bool,
                previousAppSecret: String? = nil, previousAPIKey: String? = nil) {
        self.appSecret = appSecret
        self.apiKey = apiKey
        self.appSecretPath = appSecretPath
        self.apiKeyPath = apiKeyPath
        self.created = created
        self.previousAppSecret = previousAppSecret
        self.previousAPIKey = previousAPIKey
    }

    /// Whether `given` is the API key, or the previous one while it is kept.
    func isAPIKey(_ given: String) -> Bool {
        constantTimeEqual(given, apiKey) || previousAPIKey.map { constantTimeEqual(given, $0) } == true
    }

    /// Reads the secrets from `directory`, creating the directory (mode 0700: it holds
    /// every user's data) and any missing file.
    public static func loadOrCreate(in directory: String) throws -> Secrets {
        let fm = FileManager.default
        do {
            try fm.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try fm.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory)
        } catch {
            throw GreenroomServerError.dataDirectory("cannot create \(directory): \(error)")
        }
        let secretPath = (directory as NSString).appendingPathComponent("app-secret")
        let keyPath = (directory as NSString).appendingPathComponent("api-key")
        let (secret, createdSecret) = try readOrCreate(secretPath) { "grs_" + RandomHex.string(bytes: 32) }
        try checkAppSecret(secret, at: secretPath)
        let (key, createdKey) = try readOrCreate(keyPath) { "grk_" + RandomHex.string(bytes: 24) }
        let previousSecret = readIfPresent(secretPath + ".previous")
        if let previousSecret { try checkAppSecret(previousSecret, at: secretPath + ".previous") }
        return Secrets(appSecret: secret, apiKey: key, appSecretPath: secretPath, apiKeyPath: keyPath, created: createdSecret || createdKey,
                       previousAppSecret: previousSecret, previousAPIKey: readIfPresent(keyPath + ".previous"))
    }

    /// A file's trimmed text, `nil` when it is absent or empty.
    private static func readIfPresent(_ path: String) -> String? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// Reads only the app secret, as `greenroom token` does.
    public static func readAppSecret(in directory: String) throws -> String {
        let path = (directory as NSString).appendingPathComponent("app-secret")
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw GreenroomServerError.dataDirectory("no app secret at \(path): start the server once with this data directory first")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        try checkAppSecret(secret, at: path)
        return secret
    }

    /// The fewest bytes an app secret may have: HS256 signs with a key at least as long as
    /// its 32-byte hash (RFC 7518, 3.2), and JWTKit stops on a shorter one.
    public static let minimumAppSecretBytes = 32

    /// Refuses an app secret shorter than ``minimumAppSecretBytes`` (one an operator wrote).
    static func checkAppSecret(_ secret: String, at path: String) throws {
        guard secret.utf8.count >= minimumAppSecretBytes else {
            throw GreenroomServerError.dataDirectory(
                "the app secret in \(path) is \(secret.utf8.count) bytes; it must be at least \(minimumAppSecretBytes) (delete the file to have a new one made)")
        }
    }

    private static func readOrCreate(_ path: String, make: () -> String) throws -> (String, Bool) {
        if let value = readIfPresent(path) { return (value, false) }
        let value = make()
        let ok = FileManager.default.createFile(
            atPath: path, contents: Data((value + "\n").utf8), attributes: [.posixPermissions: 0o600])
        guard ok else { throw GreenroomServerError.dataDirectory("cannot write \(path)") }
        // createFile applies the mode only to new files; make sure of it.
        try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        return (value, true)
    }
}
