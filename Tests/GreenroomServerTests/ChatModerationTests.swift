import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// Freeze, slow mode and mutes on each storage backend: each refused sender gets its own
/// error code, and a refusal stores nothing.
@Suite("Chat moderation on every backend", .wholeRun)
struct ChatModerationTests {
    @Test("a muted member reads and cannot send until unmuted or its mute ends; a frozen channel lets only operators send; slow mode spaces a member's messages, not an operator's; only operators moderate", arguments: Backend.allCases)
    func moderation(_ backend: Backend) async throws {
        try await withStorage(backend) { storage, _ in
            let harness = try await DomainRuleTests.Harness(storage: storage)
            let chat = ChatCapability(harness.core).service
            let id = ChannelId("town")
            _ = try await chat.create(ChannelCreateArgs(id: id, isPublic: true), by: "alice")
            for user in ["bob", "carol"] { _ = try await chat.join(id, userId: user) }
            func send(_ user: String, _ text: String) async throws -> ChatMessage {
                try await chat.send(MessageSendArgs(channelId: id, text: text), by: user)
            }
            func stored() async throws -> Int { try await harness.stored(id.stream).count }

            // Mutes.
            #expect(await refusal { _ = try await chat.mute(MuteArgs(channelId: id, userId: "carol"), by: "bob") } == .operatorRequired)
            #expect(await refusal { _ = try await chat.mute(MuteArgs(channelId: id, userId: "alice"), by: "alice") } == .invalidParameterValue)
            #expect(await refusal { _ = try await chat.mute(MuteArgs(channelId: id, userId: "bob", seconds: 0), by: "alice") } == .invalidParameterValue)
            let muted = try await chat.mute(MuteArgs(channelId: id, userId: "bob"), by: "alice")
            #expect(muted.isMuted() && muted.mutedUntil == .distantFuture)
            #expect(try await harness.stored(id.stream).last?.type == ChatEventType.memberMuted)
            let before = try await stored()
            #expect(await refusal { _ = try await send("bob", "let me speak") } == .userMuted)
            #expect(try await stored() == before, "a refused message stores nothing")
            #expect(try await chat.listMessages(MessageListArgs(channelId: id), by: "bob").items.isEmpty, "a muted member still reads")
            _ = try await chat.unmute(ChannelUserArgs(channelId: id, userId: "bob"), by: "alice")
            #expect(try await harness.stored(id.stream).last?.type == ChatEventType.memberUnmuted)
            _ = try await send("bob", "thank you")
            _ = try await chat.mute(MuteArgs(channelId: id, userId: "bob", seconds: 600), by: "alice")
            #expect(await refusal { _ = try await send("bob", "still muted") } == .userMuted)
            try await Self.endMute(of: "bob", in: id, harness)
            _ = try await send("bob", "the mute ended by itself")
            let membership = try await chat.get(id, by: "bob").membership
            #expect(membership?.mutedUntil != nil && membership?.isMuted() == false)

            // Freeze.
            #expect(await refusal { _ = try await chat.freeze(FreezeArgs(channelId: id, frozen: true), by: "bob") } == .operatorRequired)
            let frozen = try await chat.freeze(FreezeArgs(channelId: id, frozen: true), by: "alice")
            #expect(frozen.isFrozen)
            #expect(await refusal { _ = try await send("carol", "hello?") } == .channelFrozen)
            _ = try await send("alice", "operators still speak")
            #expect(try await chat.freeze(FreezeArgs(channelId: id, frozen: false), by: "alice").isFrozen == false)
            _ = try await send("carol", "thawed")

            // Slow mode.
            #expect(await refusal { _ = try await chat.setSlowMode(SlowModeArgs(channelId: id, seconds: 5_000), by: "alice") } == .invalidParameterValue)
            #expect(try await chat.setSlowMode(SlowModeArgs(channelId: id, seconds: 60), by: "alice").slowModeSeconds == 60)
            _ = try await send("carol", "one")
            do {
                _ = try await send("carol", "two")
                Issue.record("a second message within the slow mode's minute went through")
            } catch let error as GreenroomError {
                #expect(error.is(.slowModeActive) && (error.retryAfterMs ?? 0) > 50_000)
            }
            _ = try await send("alice", "operators are not slowed")
            _ = try await send("alice", "at all")
            _ = try await send("bob", "another member has its own minute")
            #expect(try await chat.setSlowMode(SlowModeArgs(channelId: id, seconds: 0), by: "alice").slowModeSeconds == nil)
            _ = try await send("carol", "two, at last")
        }
    }

    /// Ends a timed mute as the clock would, by moving its end into the past, so that the
    /// test does not depend on how long a loaded machine takes between two calls.
    static func endMute(of userId: String, in id: ChannelId, _ harness: DomainRuleTests.Harness) async throws {
        let past = Date.wireNow.addingTimeInterval(-1)
        try await harness.events.transact { transaction in
            var member = try #require(try await transaction.load(MemberRecord.self, scope: id.rawValue, id: userId))
            var mute = try #require(try await transaction.load(MuteRecord.self, scope: id.rawValue, id: userId))
            member.member.mutedUntil = past
            mute.mutedUntil = past
            try await transaction.save(member)
            try await transaction.save(mute)
        }
    }

    /// Ends a timed ban as the clock would (see ``endMute(of:in:_:)``).
    static func endBan(of userId: String, in id: ChannelId, _ harness: DomainRuleTests.Harness) async throws {
        try await harness.events.transact { transaction in
            var record = try #require(try await transaction.load(ChannelBanRecord.self, scope: id.rawValue, id: userId))
            record.ban.expiresAt = Date.wireNow.addingTimeInterval(-1)
            try await transaction.save(record)
        }
    }
}
