import Foundation
import GreenroomProtocol
import Hummingbird

extension UsersCapability: CapabilityRoutes {
    /// `/v1/users`: the app's backend creates, lists, reads, changes, bans and deletes
    /// users (API key).
    func addRoutes(_ routes: RestRoutes) {
        let group = routes.group("/v1/users", for: .backend)
        let users = service
        group.post { request, context in
            let args = try await request.decode(as: UserUpdateArgs.self, context: context)
            return try jsonResponse(try await users.create(args), status: .created)
        }
        group.get { request, _ in
            let query = request.uri.queryParameters
            let ids = query["ids"].map { $0.split(separator: ",").map(String.init) }
            let limit: Int? = try request.integerQuery("limit")
            let args = UserListArgs(ids: ids, nicknamePrefix: query["nicknamePrefix"].map(String.init), limit: limit, cursor: query["cursor"].map(String.init))
            return try jsonResponse(try await users.list(args))
        }
        group.get(":id") { request, context in
            return try jsonResponse(try await users.get(try context.pathParameter("id")))
        }
        group.put(":id") { request, context in
            let args = try await request.decode(as: UserUpdateArgs.self, context: context)
            return try jsonResponse(try await users.update(try context.pathParameter("id"), args))
        }
        group.patch(":id") { request, context in
            let args = try await request.decode(as: UserPartialUpdateArgs.self, context: context)
            return try jsonResponse(try await users.partialUpdate(try context.pathParameter("id"), args))
        }
        group.delete(":id") { request, context in
            let erase: Bool
            switch request.uri.queryParameters["messages"].map(String.init) {
            case nil, "keep": erase = false
            case "erase": erase = true
            case let other?: throw GreenroomError(.invalidParameterValue, "messages must be keep or erase, not \(other)")
            }
            try await users.delete(try context.pathParameter("id"), eraseMessages: erase)
            return Response(status: .noContent)
        }
        group.post(":id/ban") { request, context in
            let args = try await request.decode(as: UserBanArgs.self, context: context)
            return try jsonResponse(try await users.ban(try context.pathParameter("id"), args), status: .created)
        }
        group.get(":id/ban") { _, context in
            try jsonResponse(try await users.ban(of: try context.pathParameter("id")))
        }
        group.delete(":id/ban") { _, context in
            try await users.unban(try context.pathParameter("id"))
            return Response(status: .noContent)
        }
        group.post(":id/revoke-tokens") { request, context in
            let id = try context.pathParameter("id")
            let notBefore = try await users.revokeTokens(id)
            return try jsonResponse(TokensRevoked(userId: id, notBefore: notBefore))
        }
    }
}

/// The answer to revoking a user's tokens.
struct TokensRevoked: Codable, Sendable {
    /// The user.
    var userId: String
    /// Tokens issued at or before this instant are refused.
    var notBefore: Date
}
