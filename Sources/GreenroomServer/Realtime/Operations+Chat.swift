import GreenroomProtocol

extension CommandRouter {
    /// The chat operations (``ChatOperation``): every one acts as the connected user, and
    /// ``ChatService`` checks that user's rights.
    mutating func registerChatOperations() {
        on(ChatOperation.create) { (context, args: ChannelCreateArgs) -> ChatChannel in
            try await context.core.chat.create(args, by: context.identity.userId)
        }
        on(ChatOperation.get) { (context, args: ChannelRef) -> ChatChannel in
            try await context.core.chat.get(args.channelId, by: context.identity.userId)
        }
        on(ChatOperation.list) { (context, args: ChannelListArgs) -> Page<ChatChannel> in
            try await context.core.chat.list(args, by: context.identity.userId)
        }
        on(ChatOperation.update) { (context, args: ChannelUpdateArgs) -> ChatChannel in
            try await context.core.chat.update(args, by: context.identity.userId)
        }
        on(ChatOperation.partialUpdate) { (context, args: ChannelPartialUpdateArgs) -> ChatChannel in
            try await context.core.chat.partialUpdate(args, by: context.identity.userId)
        }
        on(ChatOperation.delete) { (context, args: ChannelRef) -> EmptyResult in
            try await context.core.chat.delete(args.channelId, by: context.identity.userId)
            return EmptyResult()
        }
        registerMembershipOperations()
        registerMessageOperations()
    }

    private mutating func registerMembershipOperations() {
        on(ChatOperation.join) { (context, args: ChannelRef) -> ChatChannelMember in
            try await context.core.chat.join(args.channelId, userId: context.identity.userId)
        }
        on(ChatOperation.leave) { (context, args: ChannelRef) -> EmptyResult in
            try await context.core.chat.leave(args.channelId, userId: context.identity.userId)
            return EmptyResult()
        }
        on(ChatOperation.invite) { (context, args: ChannelUsersArgs) -> [ChatChannelMember] in
            try await context.core.chat.invite(args, by: context.identity.userId)
        }
        on(ChatOperation.acceptInvitation) { (context, args: ChannelRef) -> ChatChannelMember in
            try await context.core.chat.acceptInvitation(args.channelId, userId: context.identity.userId)
        }
        on(ChatOperation.declineInvitation) { (context, args: ChannelRef) -> EmptyResult in
            try await context.core.chat.declineInvitation(args.channelId, userId: context.identity.userId)
            return EmptyResult()
        }
        on(ChatOperation.addOperators) { (context, args: ChannelUsersArgs) -> EmptyResult in
            try await context.core.chat.setOperators(args, to: true, by: context.identity.userId)
            return EmptyResult()
        }
        on(ChatOperation.removeOperators) { (context, args: ChannelUsersArgs) -> EmptyResult in
            try await context.core.chat.setOperators(args, to: false, by: context.identity.userId)
            return EmptyResult()
        }
        on(ChatOperation.members) { (context, args: MemberListArgs) -> Page<ChatChannelMember> in
            try await context.core.chat.members(args, by: context.identity.userId)
        }
        on(ChatOperation.setInvitationPreference) { (context, args: InvitationPreference) -> InvitationPreference in
            try await context.core.chat.setInvitationPreference(context.identity.userId, args)
        }
        on(ChatOperation.invitationPreference) { (context, _: EmptyResult) -> InvitationPreference in
            try await context.core.chat.invitationPreference(context.identity.userId)
        }
    }

    private mutating func registerMessageOperations() {
        onPipelined(ChatOperation.sendMessage) { (context, args: MessageSendArgs) -> ChatMessage in
            try await context.core.chat.send(args, by: context.identity.userId)
        }
        on(ChatOperation.updateMessage) { (context, args: MessageUpdateArgs) -> ChatMessage in
            try await context.core.chat.updateMessage(args, by: context.identity.userId)
        }
        on(ChatOperation.partialUpdateMessage) { (context, args: MessagePartialUpdateArgs) -> ChatMessage in
            try await context.core.chat.partialUpdateMessage(args, by: context.identity.userId)
        }
        on(ChatOperation.deleteMessage) { (context, args: MessageRef) -> ChatMessage in
            try await context.core.chat.deleteMessage(args, by: context.identity.userId)
        }
        on(ChatOperation.listMessages) { (context, args: MessageListArgs) -> Page<ChatMessage> in
            try await context.core.chat.listMessages(args, by: context.identity.userId)
        }
        on(ChatOperation.addReaction) { (context, args: ReactionArgs) -> ChatMessage in
            try await context.core.chat.addReaction(args, by: context.identity.userId)
        }
        on(ChatOperation.removeReaction) { (context, args: ReactionArgs) -> ChatMessage in
            try await context.core.chat.removeReaction(args, by: context.identity.userId)
        }
    }
}
