import Foundation
import Greenroom
import Testing

/// The error a call was refused with, or `nil` when it succeeded (or failed otherwise).
func refusal(_ body: () async throws -> Void) async -> ErrorCode? {
    do {
        try await body()
        return nil
    } catch let error as GreenroomError {
        return error.errorCode
    } catch {
        Issue.record("unexpected error: \(error)")
        return nil
    }
}

extension TestServer {
    /// Connected SDK clients for each user (which creates the users).
    func clients(_ users: [String]) async throws -> [String: GreenroomClient] {
        var clients: [String: GreenroomClient] = [:]
        for user in users { clients[user] = try await client(user) }
        return clients
    }

    /// Creates users over REST (without connecting them).
    func createUsers(_ ids: [String]) async throws {
        for id in ids {
            let (status, body) = try await rest("POST", "/v1/users", body: ["id": .string(id)])
            #expect(status == 201, "\(body)")
        }
    }
}

/// Collects chat events from a controller until `predicate` holds for what was collected.
func chatEvents(_ stream: AsyncStream<ChatEvent>, timeout: Duration = .seconds(30), until predicate: @escaping @Sendable ([ChatEvent]) -> Bool) async throws -> [ChatEvent] {
    try await withTimeout(timeout, "chat events") {
        var seen: [ChatEvent] = []
        for await event in stream {
            seen.append(event)
            if predicate(seen) { break }
        }
        return seen
    }
}

