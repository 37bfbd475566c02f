import GreenroomProtocol

extension ChatCapability {
    /// The chat operations (``ChatOperation``): every one acts as the connected user, and
    /// ``ChatService`` checks that user's rights.
    func registerOperations(_ router: inout CommandRouter) {
        let chat = service
        router.on(ChatOperation.create) { (context, args: ChannelCreateArgs) -> ChatChannel in
            try await chat.create(args, by: context.identity.userId)
        }
        router.on(ChatOperation.get) { (context, args: ChannelRef) -> ChatChannel in
            try await chat.get(args.channelId, by: context.identity.userId)
        }
        router.on(ChatOperation.list) { (context, args: ChannelListArgs) -> Page<ChatChannel> in
            try await chat.list(args, by: context.identity.userId)
        }
        router.on(ChatOperation.update) { (context, args: ChannelUpdateArgs) -> ChatChannel in
            try await chat.update(args, by: context.identity.userId)
        }
        router.on(ChatOperation.partialUpdate) { (context, args: ChannelPartialUpdateArgs) -> ChatChannel in
            try await chat.partialUpdate(args, by: context.identity.userId)
        }
        router.on(ChatOperation.delete) { (context, args: ChannelRef) -> EmptyResult in
            try await chat.delete(args.channelId, by: context.identity.userId)
            return EmptyResult()
        }
        registerMembershipOperations(&router)
        registerMessageOperations(&router)
    }

    private func registerMembershipOperations(_ router: inout CommandRouter) {
        let chat = service
        router.on(ChatOperation.join) { (context, args: ChannelRef) -> ChatChannelMember in
            try await chat.join(args.channelId, userId: context.identity.userId)
        }
        router.on(ChatOperation.leave) { (context, args: ChannelRef) -> EmptyResult in
            try await chat.leave(args.channelId, userId: context.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.invite) { (context, args: ChannelUsersArgs) -> [ChatChannelMember] in
            try await chat.invite(args, by: context.identity.userId)
        }
        router.on(ChatOperation.acceptInvitation) { (context, args: ChannelRef) -> ChatChannelMember in
            try await chat.acceptInvitation(args.channelId, userId: context.identity.userId)
        }
        router.on(ChatOperation.declineInvitation) { (context, args: ChannelRef) -> EmptyResult in
            try await chat.declineInvitation(args.channelId, userId: context.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.addOperators) { (context, args: ChannelUsersArgs) -> EmptyResult in
            try await chat.setOperators(args, to: true, by: context.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.removeOperators) { (context, args: ChannelUsersArgs) -> EmptyResult in
            try await chat.setOperators(args, to: false, by: context.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.members) { (context, args: MemberListArgs) -> Page<ChatChannelMember> in
            try await chat.members(args, by: context.identity.userId)
        }
        router.on(ChatOperation.setInvitationPreference) { (context, args: InvitationPreference) -> InvitationPreference in
            try await chat.setInvitationPreference(context.identity.userId, args)
        }
        router.on(ChatOperation.invitationPreference) { (context, _: EmptyResult) -> InvitationPreference in
            try await chat.invitationPreference(context.identity.userId)
        }
    }

    private func registerMessageOperations(_ router: inout CommandRouter) {
        let chat = service
        router.onPipelined(ChatOperation.sendMessage) { (context, args: MessageSendArgs) -> ChatMessage in
            try await chat.send(args, by: context.identity.userId)
        }
        router.on(ChatOperation.updateMessage) { (context, args: MessageUpdateArgs) -> ChatMessage in
            try await chat.updateMessage(args, by: context.identity.userId)
        }
        router.on(ChatOperation.partialUpdateMessage) { (context, args: MessagePartialUpdateArgs) -> ChatMessage in
            try await chat.partialUpdateMessage(args, by: context.identity.userId)
        }
        router.on(ChatOperation.deleteMessage) { (context, args: MessageRef) -> ChatMessage in
            try await chat.deleteMessage(args, by: context.identity.userId)
        }
        router.on(ChatOperation.listMessages) { (context, args: MessageListArgs) -> Page<ChatMessage> in
            try await chat.listMessages(args, by: context.identity.userId)
        }
        router.on(ChatOperation.addReaction) { (context, args: ReactionArgs) -> ChatMessage in
            try await chat.addReaction(args, by: context.identity.userId)
        }
        router.on(ChatOperation.removeReaction) { (context, args: ReactionArgs) -> ChatMessage in
            try await chat.removeReaction(args, by: context.identity.userId)
        }
    }
}
