import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

extension ChatModerationTests {
    @Test("a banned user is removed, cannot rejoin or be invited until unbanned or the ban ends; operators list the muted and the banned; a channel's deletion and a user's take its bans and mutes", arguments: Backend.allCases)
    func bans(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            try await harness.events.transact { transaction in
                _ = try await transaction.insertUser(User(id: "bob", nickname: "Bob", createdAt: Date(), updatedAt: Date()))
            }
            let id = ChannelId("square")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol", "dave"] { _ = try await chat.join(id, userId: user) }

            #expect(await refusal { _ = try await chat.ban(BanArgs(channelId: id, userId: "carol"), by: "bob") } == .operatorRequired)
            #expect(await refusal { _ = try await chat.ban(BanArgs(channelId: id, userId: "alice"), by: "alice") } == .invalidParameterValue)
            #expect(await refusal {
                _ = try await chat.ban(BanArgs(channelId: id, userId: "bob", reason: String(repeating: "x", count: Limits.maxReasonLength + 1)), by: "alice")
            } == .invalidParameterValue)
            let ban = try await chat.ban(BanArgs(channelId: id, userId: "bob", reason: "spam"), by: "alice")
            #expect(ban.reason == "spam" && ban.bannedBy == "alice" && ban.expiresAt == nil)
            let banned = try #require(try await harness.stored(id.stream).last)
            #expect(banned.type == ChatEventType.memberBanned && banned.revokes?.applies(to: "bob") == true)
            #expect(ChatEvent(banned)?.member?.userId == "bob" && ChatEvent(banned)?.ban?.reason == "spam")
            #expect(try await chat.get(id, by: "alice").memberCount == 3)
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "hi"), by: "bob") } == .notChannelMember)
            #expect(await refusal { _ = try await chat.join(id, userId: "bob") } == .bannedFromChannel)
            #expect(await refusal { _ = try await chat.invite(ChannelUsersArgs(channelId: id, userIds: ["bob"]), by: "carol") } == .bannedFromChannel)

            // A timed ban of someone who never joined, and a mute: both listed for operators only.
            _ = try await chat.ban(BanArgs(channelId: id, userId: "erin", seconds: 600), by: nil)
            _ = try await chat.mute(MuteArgs(channelId: id, userId: "carol"), by: "alice")
            #expect(await refusal { _ = try await chat.bannedMembers(ChannelPageArgs(channelId: id), by: "carol") } == .operatorRequired)
            #expect(await refusal { _ = try await chat.mutedMembers(ChannelPageArgs(channelId: id), by: "dave") } == .operatorRequired)
            #expect(try await chat.bannedMembers(ChannelPageArgs(channelId: id), by: "alice").items.map(\.userId) == ["bob", "erin"])
            #expect(try await chat.mutedMembers(ChannelPageArgs(channelId: id), by: "alice").items.map(\.userId) == ["carol"])
            try await ChatModerationTests.endBan(of: "erin", in: id, harness)
            #expect(try await chat.bannedMembers(ChannelPageArgs(channelId: id), by: nil).items.map(\.userId) == ["bob"], "erin's ban ended")
            _ = try await chat.join(id, userId: "erin")
            _ = try await chat.unmute(ChannelUserArgs(channelId: id, userId: "carol"), by: "alice")
            #expect(try await chat.mutedMembers(ChannelPageArgs(channelId: id), by: "alice").items.isEmpty)

            // A muted member who leaves is no longer listed.
            _ = try await chat.mute(MuteArgs(channelId: id, userId: "dave", seconds: 600), by: "alice")
            try await chat.leave(id, userId: "dave")
            #expect(try await chat.mutedMembers(ChannelPageArgs(channelId: id), by: "alice").items.isEmpty)

            // Unbanning lets bob in again.
            #expect(await refusal { try await chat.unban(ChannelUserArgs(channelId: id, userId: "carol"), by: "alice") } == .notFound)
            try await chat.unban(ChannelUserArgs(channelId: id, userId: "bob"), by: "alice")
            #expect(try await harness.stored(id.stream).last?.type == ChatEventType.memberUnbanned)
            _ = try await chat.join(id, userId: "bob")

            // A user's deletion takes its bans; a channel's deletion takes its bans and mutes.
            _ = try await chat.ban(BanArgs(channelId: id, userId: "frank"), by: "alice")
            _ = try await harness.events.transact { try await ChatService.forget(UserDeletion(userId: "frank"), in: $0) }
            #expect(try await storage.countRecords(RecordQuery(kind: ChannelBanRecord.recordKind, scope: id.rawValue)) == 0)
            #expect(try await storage.countRecords(RecordQuery(kind: UserChannelBanRecord.recordKind, scope: "frank")) == 0)
            _ = try await chat.ban(BanArgs(channelId: id, userId: "gina"), by: "alice")
            _ = try await chat.mute(MuteArgs(channelId: id, userId: "bob"), by: "alice")
            try await chat.delete(id, by: "alice")
            for kind in [ChannelBanRecord.recordKind, MuteRecord.recordKind] {
                #expect(try await storage.countRecords(RecordQuery(kind: kind, scope: id.rawValue)) == 0)
            }
            #expect(try await storage.countRecords(RecordQuery(kind: UserChannelBanRecord.recordKind, scope: "gina")) == 0)
        }
    }

    @Test("a blocker lists no messages of the user it blocked, and no distinct channel or invitation joins them; the blocklist refuses or masks whole words on send and edit", arguments: Backend.allCases)
    func blocksAndBlocklist(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            try await harness.events.transact { transaction in
                for id in ["alice", "bob", "carol"] {
                    _ = try await transaction.insertUser(User(id: id, nickname: id, createdAt: Date(), updatedAt: Date()))
                }
            }
            let id = ChannelId("yard")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(id, userId: user) }
            for (user, text) in [("alice", "one"), ("bob", "two"), ("carol", "three"), ("bob", "four")] {
                _ = try await chat.send(MessageSendArgs(channelId: id, text: text), by: user)
            }

            #expect(await refusal { _ = try await chat.block("alice", by: "alice") } == .invalidParameterValue)
            #expect(await refusal { _ = try await chat.block("nobody", by: "alice") } == .notFound)
            let first = try await chat.block("bob", by: "alice")
            #expect(try await chat.block("bob", by: "alice") == first, "blocking again keeps the first block")
            #expect(try await chat.blockedUsers(BlockedUsersArgs(), by: "alice").items.map(\.userId) == ["bob"])
            #expect(try await harness.stored(StreamName.user("alice")).last?.type == BlockEventType.blocked)
            #expect(try await chat.listMessages(MessageListArgs(channelId: id), by: "alice").items.map(\.text) == ["one", "three"])
            #expect(try await chat.listMessages(MessageListArgs(channelId: id), by: "carol").items.count == 4, "only the blocker's view changes")
            #expect(await refusal {
                _ = try await chat.create(ChannelCreateArgs(isDistinct: true, members: ["alice"]), by: "bob")
            } == .userBlocked, "the blocked cannot open a distinct channel with the blocker")
            #expect(await refusal {
                _ = try await chat.create(ChannelCreateArgs(isDistinct: true, members: ["bob"]), by: "alice")
            } == .userBlocked)
            let group = ChannelId("group")
            _ = try await chat.create(ChannelCreateArgs(id: group), by: "bob")
            #expect(await refusal { _ = try await chat.invite(ChannelUsersArgs(channelId: group, userIds: ["alice"]), by: "bob") } == .userBlocked)
            try await chat.unblock("bob", by: "alice")
            #expect(try await chat.listMessages(MessageListArgs(channelId: id), by: "alice").items.count == 4)
            _ = try await chat.invite(ChannelUsersArgs(channelId: group, userIds: ["alice"]), by: "bob")

            // A user's deletion takes its blocks, both ways.
            _ = try await chat.block("carol", by: "alice")
            _ = try await chat.block("alice", by: "carol")
            _ = try await harness.events.transact { try await ChatService.forget(UserDeletion(userId: "carol"), in: $0) }
            #expect(try await chat.blockedUsers(BlockedUsersArgs(), by: "alice").items.isEmpty)
            for (kind, scope) in [(BlockRecord.recordKind, "carol"), (BlockedByRecord.recordKind, "carol"), (BlockedByRecord.recordKind, "alice")] {
                #expect(try await storage.countRecords(RecordQuery(kind: kind, scope: scope)) == 0)
            }

            // The blocklist.
            #expect(await refusal { _ = try await chat.setBlocklist(Blocklist(words: ["two words"], action: .refuse)) } == .invalidParameterValue)
            #expect(await refusal {
                _ = try await chat.setBlocklist(Blocklist(words: (0...Limits.maxBlocklistWords).map { "w\($0)" }, action: .refuse))
            } == .invalidParameterValue)
            let set = try await chat.setBlocklist(Blocklist(words: ["Darn", "darn", "heck"], action: .refuse))
            let read = try await chat.blocklist()
            #expect(set.words == ["darn", "heck"] && read == set)
            let before = try await harness.stored(id.stream).count
            #expect(await refusal { _ = try await chat.send(MessageSendArgs(channelId: id, text: "well, DÁRN it"), by: "bob") } == .messageBlocked)
            #expect(try await harness.stored(id.stream).count == before, "a refused message stores nothing")
            let clean = try await chat.send(MessageSendArgs(channelId: id, text: "darning socks, checked"), by: "bob")
            #expect(clean.text == "darning socks, checked", "only whole words match")
            #expect(await refusal {
                _ = try await chat.updateMessage(MessageUpdateArgs(channelId: id, messageId: clean.id, text: "heck"), by: "bob")
            } == .messageBlocked)
            _ = try await chat.setBlocklist(Blocklist(words: ["darn", "heck"], action: .mask))
            let masked = try await chat.send(MessageSendArgs(channelId: id, text: "Darn! What the heck."), by: "bob")
            #expect(masked.text == "****! What the ****.")
            #expect(try await chat.searchMessages(MessageSearchQuery(keyword: "darn"), by: "bob").items.isEmpty, "a masked word is not indexed")
            #expect(try await chat.searchMessages(MessageSearchQuery(keyword: "what"), by: "bob").items.map(\.id) == [masked.id])
            let edited = try await chat.partialUpdateMessage(MessagePartialUpdateArgs(channelId: id, messageId: clean.id, text: "heck yes"), by: "bob")
            #expect(edited.text == "**** yes")
            #expect(ChatEvent(try #require(try await harness.stored(id.stream).last))?.message?.text == "**** yes", "the event carries the masked text")
        }
    }
}
