import Foundation

extension GreenroomClient {
    // MARK: Blocking users

    /// Blocks a user (Sendbird's `blockUser(userId:)`): the server leaves its messages out
    /// of what this user lists, and no distinct channel or invitation joins the two
    /// (`userBlocked`). This client's channel controllers leave its live messages out too.
    @discardableResult
    public func blockUser(userId: String) async throws -> BlockedUser {
        let blockedUser = try await send(ChatOperation.block, args: UserRef(userId: userId))
        blocked.withLock { _ = $0.insert(userId) }
        return blockedUser
    }

    /// Unblocks a user.
    public func unblockUser(userId: String) async throws {
        _ = try await send(ChatOperation.unblock, args: UserRef(userId: userId))
        blocked.withLock { _ = $0.remove(userId) }
    }

    /// A page of the users this user blocked, by user id (Sendbird's blocked-user list
    /// query). Their live messages are left out from then on: load the list after
    /// connecting to hide those blocked on another device.
    public func loadBlockedUsers(limit: Int? = nil, cursor: String? = nil) async throws -> Page<BlockedUser> {
        let page = try await send(ChatOperation.blockedUsers, args: BlockedUsersArgs(limit: limit, cursor: cursor))
        blocked.withLock { $0.formUnion(page.items.map(\.userId)) }
        return page
    }

    /// Whether this client knows its user blocked `userId`.
    public func isBlocked(userId: String) -> Bool { blocked.withLock { $0.contains(userId) } }
}

extension GreenroomClient {
    /// Reports a user to the app's moderators (Sendbird's `report(user:)`), as
    /// ``ChatChannelController/reportMessage(messageId:reason:)`` does a message.
    @discardableResult
    public func reportUser(userId: String, reason: String? = nil) async throws -> Report {
        try await send(ChatOperation.reportUser, args: ReportUserArgs(userId: userId, reason: reason))
    }
}
