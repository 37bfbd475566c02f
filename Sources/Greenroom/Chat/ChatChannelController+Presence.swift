import Foundation

extension ChatChannelController {
    // MARK: Online state

    /// A member's online state (Stream's `user.isOnline` and `lastActiveAt`), as loaded by
    /// ``loadMemberPresence(limit:)`` and kept current by the signals of members coming
    /// online and going offline while the channel is followed; `nil` when not known.
    public func presence(of userId: String) -> UserPresence? {
        state.withLock { $0.presence[userId] }
    }

    /// The members known to be online.
    public var onlineUserIds: Set<String> {
        state.withLock { Set($0.presence.values.filter(\.online).map(\.userId)) }
    }

    /// Loads the online state of the channel's first `limit` members (members only).
    @discardableResult
    public func loadMemberPresence(limit: Int = 100) async throws -> [UserPresence] {
        let members = try await loadMembers(limit: limit).items.map(\.userId)
        guard !members.isEmpty else { return [] }
        let presence = try await client.userPresence(of: members)
        state.withLock { state in
            for entry in presence { state.presence[entry.userId] = entry }
        }
        return presence
    }

    /// Takes a `user.presenceChanged` signal in and tells the delegate.
    func receivePresence(_ signal: StreamSignal) async {
        guard let presence = try? signal.data.decode(as: UserPresence.self) else { return }
        state.withLock { $0.presence[presence.userId] = presence }
        guard let delegate else { return }
        await MainActor.run { delegate.channelController(self, didUpdatePresence: presence) }
    }
}

extension GreenroomClient {
    /// Whether each user is connected to any node, and when it was last active (1–100 ids).
    public func userPresence(of userIds: [String]) async throws -> [UserPresence] {
        try await send(UserOperation.presence, args: UserPresenceArgs(userIds: userIds))
    }
}
