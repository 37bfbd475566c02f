import GreenroomCore
import GreenroomProtocol

extension ChatCapability {
    /// The chat operations (``ChatOperation``): every one acts as the connected user, and
    /// ``ChatService`` checks that user's rights.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.on(ChatOperation.create) { (caller, args: ChannelCreateArgs) -> ChatChannel in
            try await chat.create(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.get) { (caller, args: ChannelRef) -> ChatChannel in
            try await chat.get(args.channelId, by: caller.identity.userId)
        }
        router.on(ChatOperation.list) { (caller, args: ChannelListArgs) -> Page<ChatChannel> in
            try await chat.list(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.update) { (caller, args: ChannelUpdateArgs) -> ChatChannel in
            try await chat.update(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.partialUpdate) { (caller, args: ChannelPartialUpdateArgs) -> ChatChannel in
            try await chat.partialUpdate(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.delete) { (caller, args: ChannelRef) -> EmptyResult in
            try await chat.delete(args.channelId, by: caller.identity.userId)
            return EmptyResult()
        }
        registerMembershipOperations(&router)
        registerMessageOperations(&router)
        registerReadOperations(&router)
        registerThreadOperations(&router)
        registerModerationOperations(&router)
    }

    private func registerModerationOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.on(ChatOperation.freeze) { (caller, args: FreezeArgs) -> ChatChannel in
            try await chat.freeze(args, by: caller.userId)
        }
        router.on(ChatOperation.setSlowMode) { (caller, args: SlowModeArgs) -> ChatChannel in
            try await chat.setSlowMode(args, by: caller.userId)
        }
        router.on(ChatOperation.muteMember) { (caller, args: MuteArgs) -> ChatChannelMember in
            try await chat.mute(args, by: caller.userId)
        }
        router.on(ChatOperation.unmuteMember) { (caller, args: ChannelUserArgs) -> ChatChannelMember in
            try await chat.unmute(args, by: caller.userId)
        }
        router.on(ChatOperation.mutedMembers) { (caller, args: ChannelPageArgs) -> Page<ChatChannelMember> in
            try await chat.mutedMembers(args, by: caller.userId)
        }
        router.on(ChatOperation.banMember) { (caller, args: BanArgs) -> ChannelBan in
            try await chat.ban(args, by: caller.userId)
        }
        router.on(ChatOperation.unbanMember) { (caller, args: ChannelUserArgs) -> EmptyResult in
            try await chat.unban(args, by: caller.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.bannedMembers) { (caller, args: ChannelPageArgs) -> Page<ChannelBan> in
            try await chat.bannedMembers(args, by: caller.userId)
        }
        router.on(ChatOperation.block) { (caller, args: UserRef) -> BlockedUser in
            try await chat.block(args.userId, by: caller.userId)
        }
        router.on(ChatOperation.unblock) { (caller, args: UserRef) -> EmptyResult in
            try await chat.unblock(args.userId, by: caller.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.blockedUsers) { (caller, args: BlockedUsersArgs) -> Page<BlockedUser> in
            try await chat.blockedUsers(args, by: caller.userId)
        }
        router.on(ChatOperation.reportMessage) { (caller, args: ReportMessageArgs) -> Report in
            try await chat.reportMessage(args, by: caller.userId)
        }
        router.on(ChatOperation.reportUser) { (caller, args: ReportUserArgs) -> Report in
            try await chat.reportUser(args, by: caller.userId)
        }
    }

    private func registerThreadOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.on(ChatOperation.replies) { (caller, args: MessageRepliesArgs) -> Page<ChatMessage> in
            try await chat.replies(args, by: caller.userId)
        }
        router.on(ChatOperation.threadParticipants) { (caller, args: ThreadPageArgs) -> Page<ThreadParticipant> in
            try await chat.threadParticipants(args, by: caller.userId)
        }
        router.on(ChatOperation.markThreadRead) { (caller, args: ThreadRef) -> ChatThread in
            try await chat.markThreadRead(args, by: caller.userId)
        }
        router.on(ChatOperation.threads) { (caller, args: UserThreadsArgs) -> Page<ChatThread> in
            try await chat.threads(args, of: caller.userId)
        }
    }

    private func registerReadOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.on(ChatOperation.markRead) { (caller, args: MarkReadArgs) -> ChannelRead in
            try await chat.markRead(args, by: caller.userId)
        }
        router.on(ChatOperation.markUnread) { (caller, args: MarkUnreadArgs) -> ChannelRead in
            try await chat.markUnread(args, by: caller.userId)
        }
        router.on(ChatOperation.markDelivered) { (caller, args: MarkDeliveredArgs) -> ChannelRead in
            try await chat.markDelivered(args, by: caller.userId)
        }
        router.on(ChatOperation.reads) { (caller, args: ChannelReadsArgs) -> Page<ChannelRead> in
            try await chat.reads(args, by: caller.userId)
        }
        router.on(ChatOperation.typing) { (caller, args: TypingArgs) -> EmptyResult in
            try await chat.typing(args, by: caller.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.unreadCounts) { (caller, _: EmptyResult) -> UnreadCounts in
            try await chat.unreadCounts(of: caller.userId)
        }
    }

    private func registerMembershipOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.on(ChatOperation.join) { (caller, args: ChannelRef) -> ChatChannelMember in
            try await chat.join(args.channelId, userId: caller.identity.userId)
        }
        router.on(ChatOperation.leave) { (caller, args: ChannelRef) -> EmptyResult in
            try await chat.leave(args.channelId, userId: caller.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.invite) { (caller, args: ChannelUsersArgs) -> [ChatChannelMember] in
            try await chat.invite(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.acceptInvitation) { (caller, args: ChannelRef) -> ChatChannelMember in
            try await chat.acceptInvitation(args.channelId, userId: caller.identity.userId)
        }
        router.on(ChatOperation.declineInvitation) { (caller, args: ChannelRef) -> EmptyResult in
            try await chat.declineInvitation(args.channelId, userId: caller.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.addOperators) { (caller, args: ChannelUsersArgs) -> EmptyResult in
            try await chat.setOperators(args, to: true, by: caller.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.removeOperators) { (caller, args: ChannelUsersArgs) -> EmptyResult in
            try await chat.setOperators(args, to: false, by: caller.identity.userId)
            return EmptyResult()
        }
        router.on(ChatOperation.members) { (caller, args: MemberListArgs) -> Page<ChatChannelMember> in
            try await chat.members(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.setInvitationPreference) { (caller, args: InvitationPreference) -> InvitationPreference in
            try await chat.setInvitationPreference(caller.identity.userId, args)
        }
        router.on(ChatOperation.invitationPreference) { (caller, _: EmptyResult) -> InvitationPreference in
            try await chat.invitationPreference(caller.identity.userId)
        }
    }

    private func registerMessageOperations(_ router: inout CapabilityOperations) {
        let chat = service
        router.onPipelined(ChatOperation.sendMessage) { (caller, args: MessageSendArgs) -> ChatMessage in
            try await chat.send(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.updateMessage) { (caller, args: MessageUpdateArgs) -> ChatMessage in
            try await chat.updateMessage(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.partialUpdateMessage) { (caller, args: MessagePartialUpdateArgs) -> ChatMessage in
            try await chat.partialUpdateMessage(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.deleteMessage) { (caller, args: MessageRef) -> ChatMessage in
            try await chat.deleteMessage(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.listMessages) { (caller, args: MessageListArgs) -> Page<ChatMessage> in
            try await chat.listMessages(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.searchMessages) { (caller, args: MessageSearchQuery) -> Page<ChatMessage> in
            try await chat.searchMessages(args, by: caller.userId)
        }
        router.on(ChatOperation.addReaction) { (caller, args: ReactionArgs) -> ChatMessage in
            try await chat.addReaction(args, by: caller.identity.userId)
        }
        router.on(ChatOperation.pinMessage) { (caller, args: MessageRef) -> ChatMessage in
            try await chat.setPinned(args, true, by: caller.userId)
        }
        router.on(ChatOperation.unpinMessage) { (caller, args: MessageRef) -> ChatMessage in
            try await chat.setPinned(args, false, by: caller.userId)
        }
        router.on(ChatOperation.pinnedMessages) { (caller, args: PinnedMessagesArgs) -> Page<ChatMessage> in
            try await chat.pinnedMessages(args, by: caller.userId)
        }
        router.on(ChatOperation.removeReaction) { (caller, args: ReactionArgs) -> ChatMessage in
            try await chat.removeReaction(args, by: caller.identity.userId)
        }
    }
}
