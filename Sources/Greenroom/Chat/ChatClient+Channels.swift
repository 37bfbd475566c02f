import Foundation

/// A completion handler the chat calls run on the main actor with their outcome.
public typealias ChatCompletion<Value: Sendable> = @MainActor @Sendable (Result<Value, any Error>) -> Void

/// Runs `body` and hands its outcome to `completion` on the main actor.
func complete<Value: Sendable>(_ completion: ChatCompletion<Value>?, _ body: @escaping @Sendable () async throws -> Value) {
    Task {
        let result: Result<Value, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await MainActor.run { completion?(result) }
    }
}

/// Runs `body` and hands its error, or `nil`, to `completion` on the main actor: the
/// completion-handler form of a call that returns nothing.
func complete(_ completion: (@MainActor @Sendable ((any Error)?) -> Void)?, _ body: @escaping @Sendable () async throws -> Void) {
    let outcome: ChatCompletion<Void>? = completion.map { done in { @MainActor result in done(result.failureValue) } }
    complete(outcome, body)
}

extension GreenroomClient {
    /// Creates a group channel; the caller becomes its first operator.
    ///
    /// ```swift
    /// let channel = try await client.createChannel(name: "Trip", members: ["bob", "carol"], isPublic: false)
    /// let controller = client.channelController(for: channel.id)
    /// ```
    /// - Parameters:
    ///   - id: the channel's id; the server picks one when `nil`.
    ///   - name: the name shown for it.
    ///   - coverURL: its cover image.
    ///   - members: users to add; each joins at once unless it turned automatic acceptance of
    ///     invitations off (``setChannelInvitationPreference(autoAccept:)``), then it is invited.
    ///   - operators: members to make operators besides the caller.
    ///   - isPublic: whether users may find and join it without an invitation.
    ///   - isDistinct: return the existing distinct channel with exactly these members, if any.
    ///   - extraData: the app's own data.
    public func createChannel(id: ChannelId? = nil, name: String? = nil, coverURL: URL? = nil, members: [String] = [],
                              operators: [String] = [], isPublic: Bool = false, isDistinct: Bool = false,
                              extraData: [String: RawJSON] = [:]) async throws -> ChatChannel {
        try await send(ChatOperation.create, args: ChannelCreateArgs(
            id: id, name: name, coverURL: coverURL?.absoluteString, isPublic: isPublic, isDistinct: isDistinct,
            extraData: extraData, members: members, operators: operators))
    }

    /// The completion-handler form of ``createChannel(id:name:coverURL:members:operators:isPublic:isDistinct:extraData:)``.
    public func createChannel(id: ChannelId? = nil, name: String? = nil, coverURL: URL? = nil, members: [String] = [],
                              operators: [String] = [], isPublic: Bool = false, isDistinct: Bool = false,
                              extraData: [String: RawJSON] = [:], completion: ChatCompletion<ChatChannel>?) {
        complete(completion) {
            try await self.createChannel(id: id, name: name, coverURL: coverURL, members: members, operators: operators,
                                         isPublic: isPublic, isDistinct: isDistinct, extraData: extraData)
        }
    }

    /// The connected user's channels (and pending invitations), newest activity first.
    ///
    /// With a local store, the first page is kept there; while the client is not connected,
    /// the first page comes from the store at once (the most recently active channels
    /// kept, in one page).
    public func channels(limit: Int? = nil, cursor: String? = nil, includeInvitations: Bool = true) async throws -> Page<ChatChannel> {
        if offline != nil, let stored = try await storedChannels(limit: limit, cursor: cursor) { return stored }
        let page: Page<ChatChannel> = try await send(ChatOperation.list, args: ChannelListArgs(limit: limit, cursor: cursor, includeInvitations: includeInvitations))
        if offline != nil, cursor == nil { await keepChannels(page, complete: page.next == nil && includeInvitations) }
        return page
    }

    /// Reads a channel (a member's or invitee's, or any public one).
    public func channel(_ id: ChannelId) async throws -> ChatChannel {
        try await send(ChatOperation.get, args: ChannelRef(channelId: id))
    }

    /// A controller for one channel: its state, its events, and the calls that change it.
    public func channelController(for channelId: ChannelId) -> ChatChannelController {
        ChatChannelController(channelId: channelId, client: self)
    }

    /// Whether invitations make the connected user a member at once (`true`, the default) or
    /// wait for ``ChatChannelController/acceptInvitation()`` / ``ChatChannelController/declineInvitation()``.
    @discardableResult
    public func setChannelInvitationPreference(autoAccept: Bool) async throws -> InvitationPreference {
        try await send(ChatOperation.setInvitationPreference, args: InvitationPreference(autoAccept: autoAccept))
    }

    /// The connected user's invitation preference.
    public func channelInvitationPreference() async throws -> InvitationPreference {
        try await send(ChatOperation.invitationPreference, args: EmptyResult())
    }
}
