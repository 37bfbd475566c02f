import Foundation

extension ChatChannelController {
    // MARK: Messages

    /// Sends a message; the reply comes once the server stored it.
    ///
    /// The message carries an idempotency key: when the connection drops before the reply,
    /// the send is retried with the same key, and the server stores one message, not two.
    /// `mentionedUserIds` (members of the channel, at most 25) count in their unread
    /// mentions and push them even where they set the channel to mentions only.
    /// `quotedMessageId` names a message of the channel to quote: the message carries its
    /// summary (`quotedMessage`).
    @discardableResult
    public func sendMessage(text: String, extraData: [String: RawJSON] = [:], mentionedUserIds: [String] = [], quotedMessageId: String? = nil,
                            idempotencyKey: String = UUID().uuidString) async throws -> ChatMessage {
        try await send(sendArgs(text: text, extraData: extraData, mentionedUserIds: mentionedUserIds, quotedMessageId: quotedMessageId,
                                idempotencyKey: idempotencyKey))
    }

    /// The arguments of a message (or, with `threadParentId`, a reply) as the SDK's calls
    /// take them: empty extra data and mentions are sent as none.
    func sendArgs(text: String, extraData: [String: RawJSON], mentionedUserIds: [String] = [], quotedMessageId: String?,
                  threadParentId: String? = nil, idempotencyKey: String) -> MessageSendArgs {
        MessageSendArgs(channelId: channelId, text: text, extraData: extraData.isEmpty ? nil : extraData, idempotencyKey: idempotencyKey,
                        mentionedUserIds: mentionedUserIds.isEmpty ? nil : mentionedUserIds, parentMessageId: quotedMessageId,
                        threadParentId: threadParentId)
    }

    /// Queues `args` behind the sends before it (``enqueueSend(_:)``) and hands the stored
    /// message, or the error, to `completion` on the main actor.
    func enqueue(_ args: MessageSendArgs, completion: ChatCompletion<ChatMessage>?) {
        if client.offline != nil { return enqueueOffline(args, completion: completion) }
        enqueueSend {
            let result: Result<ChatMessage, any Error>
            do {
                result = .success(try await self.send(args))
            } catch {
                result = .failure(error)
            }
            await MainActor.run { completion?(result) }
        }
    }

    /// Sends `args`, retrying with its idempotency key when the connection drops before
    /// the reply, and keeps the stored message.
    func send(_ args: MessageSendArgs) async throws -> ChatMessage {
        if client.offline != nil { return try await client.outcome(of: try await queueSend(args), as: ChatMessage.self) }
        var attempt = 1
        while true {
            do {
                let message: ChatMessage = try await client.send(ChatOperation.sendMessage, args: args)
                merge([message])
                sentOwn(message)
                return message
            } catch let error as GreenroomError where attempt < 3 && (error.is(.connectionLost) || error.is(.timeout)) {
                attempt += 1
            }
        }
    }

    /// Sends a message, as the chat SDK's controller does: `completion` (optional) runs on
    /// the main actor with the stored message or the error.
    ///
    /// ```swift
    /// channelController.createNewMessage(text: "A new message", extraData: ["flight": bookingFlight.toExtraData()])
    /// ```
    ///
    /// Messages sent this way go out one at a time, in the order of the calls.
    public func createNewMessage(text: String, extraData: [String: RawJSON] = [:], quotedMessageId: String? = nil,
                                 completion: ChatCompletion<ChatMessage>? = nil) {
        enqueue(sendArgs(text: text, extraData: extraData, quotedMessageId: quotedMessageId, idempotencyKey: UUID().uuidString), completion: completion)
    }

    /// Replaces a message's text and extra data (the sender only).
    @discardableResult
    public func editMessage(messageId: String, text: String, extraData: [String: RawJSON]? = nil) async throws -> ChatMessage {
        let args = MessageUpdateArgs(channelId: channelId, messageId: messageId, text: text, extraData: extraData)
        if client.offline != nil {
            return stored(try await queueChange(.editMessage, messageId: messageId, args: args) { message in
                message.text = text
                message.extraData = extraData ?? [:]
            })
        }
        return try await stored(client.send(ChatOperation.updateMessage, args: args))
    }

    /// The completion-handler form of ``editMessage(messageId:text:extraData:)``.
    public func editMessage(messageId: String, text: String, extraData: [String: RawJSON]? = nil, completion: ChatCompletion<ChatMessage>?) {
        complete(completion) { try await self.editMessage(messageId: messageId, text: text, extraData: extraData) }
    }

    /// Sets the text and extra data keys given and removes the keys in `unsetProperties`
    /// (the sender only).
    @discardableResult
    public func partialUpdateMessage(messageId: String, text: String? = nil, extraData: [String: RawJSON]? = nil, unsetProperties: [String]? = nil) async throws -> ChatMessage {
        try await stored(client.send(ChatOperation.partialUpdateMessage, args: MessagePartialUpdateArgs(
            channelId: channelId, messageId: messageId, text: text, extraData: extraData, unsetProperties: unsetProperties)))
    }

    /// The completion-handler form of ``partialUpdateMessage(messageId:text:extraData:unsetProperties:)``.
    public func partialUpdateMessage(messageId: String, text: String? = nil, extraData: [String: RawJSON]? = nil, unsetProperties: [String]? = nil,
                                     completion: ChatCompletion<ChatMessage>?) {
        complete(completion) { try await self.partialUpdateMessage(messageId: messageId, text: text, extraData: extraData, unsetProperties: unsetProperties) }
    }

    /// Deletes a message (its sender or an operator); it keeps its place, emptied.
    @discardableResult
    public func deleteMessage(messageId: String) async throws -> ChatMessage {
        if client.offline != nil {
            return stored(try await queueChange(.deleteMessage, messageId: messageId, args: MessageRef(channelId: channelId, messageId: messageId)) { message in
                message.text = ""
                message.extraData = [:]
                message.deletedAt = Date()
            })
        }
        return try await stored(client.send(ChatOperation.deleteMessage, args: MessageRef(channelId: channelId, messageId: messageId)))
    }

    /// The completion-handler form of ``deleteMessage(messageId:)``.
    public func deleteMessage(messageId: String, completion: ChatCompletion<ChatMessage>?) {
        complete(completion) { try await self.deleteMessage(messageId: messageId) }
    }

    /// Adds the caller's reaction of `type` to a message (replacing its extra data if the
    /// caller had reacted so already).
    @discardableResult
    public func addReaction(_ type: String, messageId: String, extraData: [String: RawJSON] = [:]) async throws -> ChatMessage {
        if client.offline != nil {
            let me = client.currentUserId ?? ""
            return stored(try await queueChange(.addReaction, messageId: messageId,
                                                args: ReactionArgs(channelId: channelId, messageId: messageId, type: type, extraData: extraData)) { message in
                message.reactions.removeAll { $0.type == type && $0.userId == me }
                message.reactions.append(ChatReaction(type: type, userId: me, extraData: extraData, createdAt: Date()))
            })
        }
        return try await stored(client.send(ChatOperation.addReaction, args: ReactionArgs(channelId: channelId, messageId: messageId, type: type, extraData: extraData)))
    }

    /// The completion-handler form of ``addReaction(_:messageId:extraData:)``.
    public func addReaction(_ type: String, messageId: String, extraData: [String: RawJSON] = [:], completion: ChatCompletion<ChatMessage>?) {
        complete(completion) { try await self.addReaction(type, messageId: messageId, extraData: extraData) }
    }

    /// Removes the caller's reaction of `type`.
    @discardableResult
    public func deleteReaction(_ type: String, messageId: String) async throws -> ChatMessage {
        if client.offline != nil {
            let me = client.currentUserId ?? ""
            return stored(try await queueChange(.removeReaction, messageId: messageId,
                                                args: ReactionArgs(channelId: channelId, messageId: messageId, type: type)) { message in
                message.reactions.removeAll { $0.type == type && $0.userId == me }
            })
        }
        return try await stored(client.send(ChatOperation.removeReaction, args: ReactionArgs(channelId: channelId, messageId: messageId, type: type)))
    }

    /// Pins a message (operators only; at most 100 pinned at once): it carries `pinnedAt`
    /// and `pinnedBy`, and every member sees it updated.
    @discardableResult
    public func pinMessage(messageId: String) async throws -> ChatMessage {
        try await stored(client.send(ChatOperation.pinMessage, args: MessageRef(channelId: channelId, messageId: messageId)))
    }

    /// Unpins a message (operators only).
    @discardableResult
    public func unpinMessage(messageId: String) async throws -> ChatMessage {
        try await stored(client.send(ChatOperation.unpinMessage, args: MessageRef(channelId: channelId, messageId: messageId)))
    }

    /// A page of the channel's pinned messages, the latest pinned first (Stream's
    /// `channel.pinnedMessages`).
    public func loadPinnedMessages(limit: Int? = nil, cursor: String? = nil) async throws -> Page<ChatMessage> {
        try await client.send(ChatOperation.pinnedMessages, args: PinnedMessagesArgs(channelId: channelId, limit: limit, cursor: cursor))
    }

    private func stored(_ message: ChatMessage) -> ChatMessage {
        merge([message])
        return message
    }

    // MARK: The channel

    /// Replaces the channel's name, picture, visibility (when given) and extra data (operators only).
    @discardableResult
    public func updateChannel(name: String, coverURL: URL? = nil, isPublic: Bool? = nil, extraData: [String: RawJSON] = [:]) async throws -> ChatChannel {
        try await adopt(client.send(ChatOperation.update, args: ChannelUpdateArgs(
            channelId: channelId, name: name, coverURL: coverURL?.absoluteString, isPublic: isPublic, extraData: extraData)))
    }

    /// Sets the fields given and removes `unsetProperties` (`coverURL` or extra data keys)
    /// (operators only).
    @discardableResult
    public func partialChannelUpdate(name: String? = nil, coverURL: URL? = nil, isPublic: Bool? = nil, extraData: [String: RawJSON] = [:],
                                     unsetProperties: [String] = []) async throws -> ChatChannel {
        try await adopt(client.send(ChatOperation.partialUpdate, args: ChannelPartialUpdateArgs(
            channelId: channelId, name: name, coverURL: coverURL?.absoluteString, isPublic: isPublic,
            extraData: extraData.isEmpty ? nil : extraData, unset: unsetProperties.isEmpty ? nil : unsetProperties)))
    }

    /// The completion-handler form of ``partialChannelUpdate(name:coverURL:isPublic:extraData:unsetProperties:)``.
    public func partialChannelUpdate(name: String? = nil, coverURL: URL? = nil, isPublic: Bool? = nil, extraData: [String: RawJSON] = [:],
                                     unsetProperties: [String] = [], completion: ChatCompletion<ChatChannel>?) {
        complete(completion) {
            try await self.partialChannelUpdate(name: name, coverURL: coverURL, isPublic: isPublic, extraData: extraData, unsetProperties: unsetProperties)
        }
    }

    /// Deletes the channel with its members and messages (operators only).
    public func deleteChannel() async throws {
        let _: EmptyResult = try await client.send(ChatOperation.delete, args: ChannelRef(channelId: channelId))
    }

    private func adopt(_ channel: ChatChannel) -> ChatChannel {
        state.withLock { $0.channel = channel }
        return channel
    }

    // MARK: Members

    /// Joins the channel: a public one freely, a private one with a pending invitation.
    @discardableResult
    public func join() async throws -> ChatChannelMember {
        try await client.send(ChatOperation.join, args: ChannelRef(channelId: channelId))
    }

    /// Leaves the channel.
    public func leave() async throws {
        let _: EmptyResult = try await client.send(ChatOperation.leave, args: ChannelRef(channelId: channelId))
    }

    /// Invites users (members only). Each joins at once unless it turned automatic
    /// acceptance off; then its invitation waits. - Returns: the new memberships.
    @discardableResult
    public func inviteUserIds(_ userIds: [String]) async throws -> [ChatChannelMember] {
        try await client.send(ChatOperation.invite, args: ChannelUsersArgs(channelId: channelId, userIds: userIds))
    }

    /// The completion-handler form of ``inviteUserIds(_:)``.
    public func inviteUserIds(_ userIds: [String], completion: ChatCompletion<[ChatChannelMember]>?) {
        complete(completion) { try await self.inviteUserIds(userIds) }
    }

    /// Accepts the connected user's pending invitation.
    @discardableResult
    public func acceptInvitation() async throws -> ChatChannelMember {
        try await client.send(ChatOperation.acceptInvitation, args: ChannelRef(channelId: channelId))
    }

    /// The completion-handler form of ``acceptInvitation()``.
    public func acceptInvitation(completion: ChatCompletion<ChatChannelMember>?) {
        complete(completion) { try await self.acceptInvitation() }
    }

    /// Declines the connected user's pending invitation.
    public func declineInvitation() async throws {
        let _: EmptyResult = try await client.send(ChatOperation.declineInvitation, args: ChannelRef(channelId: channelId))
    }

    /// The completion-handler form of ``declineInvitation()``.
    public func declineInvitation(completion: ChatCompletion<Void>?) {
        complete(completion) { try await self.declineInvitation() }
    }

    /// Makes members operators (operators only).
    public func addOperators(userIds: [String]) async throws {
        let _: EmptyResult = try await client.send(ChatOperation.addOperators, args: ChannelUsersArgs(channelId: channelId, userIds: userIds))
    }

    /// The completion-handler form of ``addOperators(userIds:)``.
    public func addOperators(userIds: [String], completion: ChatCompletion<Void>?) {
        complete(completion) { try await self.addOperators(userIds: userIds) }
    }

    /// Makes operators plain members again (operators only).
    public func removeOperators(userIds: [String]) async throws {
        let _: EmptyResult = try await client.send(ChatOperation.removeOperators, args: ChannelUsersArgs(channelId: channelId, userIds: userIds))
    }

    /// The completion-handler form of ``removeOperators(userIds:)``.
    public func removeOperators(userIds: [String], completion: ChatCompletion<Void>?) {
        complete(completion) { try await self.removeOperators(userIds: userIds) }
    }
}
