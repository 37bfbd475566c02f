import Foundation
import GreenroomProtocol
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension GreenroomClient {
    /// Sends a request to the server's REST API with the connection's token; throws the
    /// server's error on a status outside 2xx.
    func restRequest(_ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil,
                     headers: [String: String] = [:]) async throws -> (Data, Int) {
        guard let token = currentToken else { throw GreenroomError(.notConnected, "connect first") }
        guard var components = URLComponents(url: configuration.httpURL(path, on: configuration.serverURL), resolvingAgainstBaseURL: false) else {
            throw GreenroomError(.invalidParameterValue, "\(path) is not a path on the server")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else { throw GreenroomError(.invalidParameterValue, "\(path) is not a path on the server") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = body
            if headers["Content-Type"] == nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        }
        let (data, status) = try await HTTPTransport.data(for: request)
        guard (200..<300).contains(status) else { throw HTTPTransport.failure(data, status: status, from: path) }
        return (data, status)
    }

    /// The headers of a chunk's `PATCH`.
    ///
    /// On Linux each chunk goes on a connection of its own: URLSession there (libcurl)
    /// silently resends a request whose reused connection died, but without its body, so
    /// after a cut the server waits for a body that never comes and the upload stalls until
    /// the request times out (60 s). On a fresh connection the cut is an error at once, and
    /// the upload resumes from the offset the server holds. (Apple's URLSession does not
    /// resend a `PATCH`, and manages the `Connection` header itself.)
    static func chunkHeaders(offset: Int64) -> [String: String] {
        var headers = ["Upload-Offset": String(offset), "Content-Type": "application/octet-stream"]
        #if canImport(FoundationNetworking)
        headers["Connection"] = "close"
        #endif
        return headers
    }

    /// Sends `fileURL`'s bytes from `offset` to the resumable upload `uploadId` in chunks of
    /// `chunkSize`, then completes it and returns the server's answer. After a dropped
    /// connection it asks the server for the offset it holds and goes on from there (up to
    /// `maxAttempts` tries in a row without progress); over the user's upload budget, or
    /// when completing is refused with a time to wait, it waits as told. `progress` hears
    /// the fraction the server holds after each chunk.
    func sendUpload(_ uploadId: String, fileURL: URL, size: Int64, from offset: Int64, chunkSize: Int, maxAttempts: Int,
                    progress: (Double) -> Void) async throws -> Data {
        let handle = try FileHandle(forReadingFrom: fileURL)
        defer { try? handle.close() }
        var offset = offset
        var failures = 0
        while offset < size {
            try Task.checkCancellation()
            do {
                try handle.seek(toOffset: UInt64(offset))
                let chunk = try handle.read(upToCount: chunkSize) ?? Data()
                let (data, _) = try await restRequest("PATCH", "/v1/uploads/\(uploadId)", body: chunk, headers: Self.chunkHeaders(offset: offset))
                offset = Int64(try RawJSON(json: data)["offset"]?.numberValue ?? Double(offset + Int64(chunk.count)))
                failures = 0
            } catch let error as GreenroomError where error.is(.rateLimited) && error.retryAfterMs != nil
                && configuration.retriesRateLimitedCommands {
                // Over the user's upload budget: the same chunk again after the wait.
                try await Task.sleep(for: .milliseconds(max(error.retryAfterMs ?? 1, 1)))
            } catch let error as GreenroomError where !error.isTransient && !error.is(.alreadyExists) {
                throw error
            } catch {
                failures += 1
                guard failures < maxAttempts else { throw error }
                try await Task.sleep(for: .milliseconds(100 * failures))
                // Ask where the server is, and go on from there.
                if let (data, _) = try? await restRequest("GET", "/v1/uploads/\(uploadId)"),
                   let held = try? RawJSON(json: data)["offset"]?.numberValue {
                    offset = Int64(held)
                }
            }
            progress(size > 0 ? Double(offset) / Double(size) : 1)
        }
        var attempt = 1
        while true {
            do {
                return try await restRequest("POST", "/v1/uploads/\(uploadId)/complete").0
            } catch let error as GreenroomError where error.is(.rateLimited) && error.retryAfterMs != nil && attempt < maxAttempts {
                // The server is decoding as many images as it may: complete again after the
                // wait it names. (A full video queue names none: that refusal is the caller's.)
                attempt += 1
                try await Task.sleep(for: .milliseconds(max(error.retryAfterMs ?? 1, 1)))
            }
        }
    }
}
