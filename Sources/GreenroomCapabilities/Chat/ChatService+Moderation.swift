import Foundation
import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

extension ChatService {
    /// Whether `member` may send in the channel of `record` at `now`. A muted member may
    /// not; in a frozen channel only operators send; in slow mode a member (not an
    /// operator) waits its seconds after its last message. - Throws: `userMuted`,
    /// `channelFrozen`, or `slowModeActive` with `retryAfterMs`.
    static func checkMaySend(_ member: MemberRecord, in record: ChannelRecord, at now: Date) throws {
        let id = record.channel.id
        if member.member.isMuted(at: now) {
            throw GreenroomError(.userMuted, "\(member.member.userId) is muted in channel \(id)")
        }
        guard !member.member.isOperator else { return }
        if record.channel.isFrozen {
            throw GreenroomError(.channelFrozen, "channel \(id) is frozen: only its operators send")
        }
        if let seconds = record.channel.slowModeSeconds, let last = member.lastSentAt {
            let wait = last.addingTimeInterval(TimeInterval(seconds)).timeIntervalSince(now)
            if wait > 0 {
                var error = GreenroomError(.slowModeActive, "channel \(id) is in slow mode: one message every \(seconds) s")
                error.retryAfterMs = Int((wait * 1000).rounded(.up))
                throw error
            }
        }
    }

    /// Freezes or unfreezes a channel. Operators only; the app's backend (`nil`) always.
    package func freeze(_ args: FreezeArgs, by userId: String?) async throws -> ChatChannel {
        try await change(args.channelId, by: userId) { channel in
            if args.frozen { channel.frozenAt = channel.frozenAt ?? Date.wireNow } else { channel.frozenAt = nil }
        }
    }

    /// Sets or ends slow mode. Operators only; the app's backend (`nil`) always.
    package func setSlowMode(_ args: SlowModeArgs, by userId: String?) async throws -> ChatChannel {
        guard (0...Limits.maxSlowModeSeconds).contains(args.seconds) else {
            throw GreenroomError(.invalidParameterValue, "seconds must be 0–\(Limits.maxSlowModeSeconds)")
        }
        return try await change(args.channelId, by: userId) { channel in
            channel.slowModeSeconds = args.seconds == 0 ? nil : args.seconds
        }
    }

    /// Mutes a joined member who is not an operator, for `seconds` or until unmuted, and
    /// tells the channel (`member.muted`). Operators only; the app's backend (`nil`) always.
    package func mute(_ args: MuteArgs, by userId: String?) async throws -> ChatChannelMember {
        try ModerationChecks.duration(args.seconds, untilLifted: "unmuted")
        return try await setMute(args.channelId, args.userId, by: userId) { now in
            args.seconds.map { now.addingTimeInterval(TimeInterval($0)) } ?? .distantFuture
        }
    }

    /// Ends a member's mute and tells the channel (`member.unmuted`). Operators only; the
    /// app's backend (`nil`) always.
    package func unmute(_ args: ChannelUserArgs, by userId: String?) async throws -> ChatChannelMember {
        try await setMute(args.channelId, args.userId, by: userId) { _ in nil }
    }

    private func setMute(_ id: ChannelId, _ target: String, by userId: String?,
                         until: @escaping @Sendable (Date) -> Date?) async throws -> ChatChannelMember {
        try await events.transact(streams: [id.stream]) { transaction in
            _ = try await Self.channel(transaction, id)
            if let userId { try await Self.requireOperator(transaction, id, userId) }
            guard var member = try await transaction.load(MemberRecord.self, scope: id.rawValue, id: target), member.member.state == .joined else {
                throw GreenroomError(.notChannelMember, "\(target) is not a member of channel \(id)")
            }
            guard !member.member.isOperator else {
                throw GreenroomError(.invalidParameterValue, "\(target) is an operator; remove the role first")
            }
            let now = Date.wireNow
            member.member.mutedUntil = until(now)
            if let mutedUntil = member.member.mutedUntil {
                try await transaction.save(MuteRecord(channelId: id, userId: target, mutedUntil: mutedUntil))
            } else {
                try await transaction.remove(MuteRecord.self, scope: id.rawValue, id: target)
            }
            try await transaction.save(member)
            try await transaction.save(MembershipRecord(member: member.member))
            let type = member.member.mutedUntil == nil ? ChatEventType.memberUnmuted : ChatEventType.memberMuted
            _ = try await transaction.append([try Self.event(type, on: id.stream, ChatEvent(type: "", channelId: id, member: member.member, actorId: userId))])
            return member.member
        }
    }
}
