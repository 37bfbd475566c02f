import GreenroomProtocol

extension CommandRouter {
    /// The meeting and pub/sub operations (``MeetingOperation``): every one acts as the
    /// connected participant, and ``MeetingService`` checks its grants and state.
    mutating func registerMeetingOperations() {
        on(MeetingOperation.join) { (context, args: MeetingJoinArgs) -> MeetingJoinResult in
            try await context.core.meetings.join(args, caller: context.caller)
        }
        on(MeetingOperation.leave) { (context, args: MeetingRef) -> EmptyResult in
            try await context.core.meetings.leave(args.meetingId, caller: context.caller)
            return EmptyResult()
        }
        on(MeetingOperation.end) { (context, args: MeetingRef) -> EmptyResult in
            try await context.core.meetings.end(args.meetingId, identity: context.identity)
            return EmptyResult()
        }
        on(MeetingOperation.get) { (context, args: MeetingRef) -> MeetingData in
            try await context.core.meetings.get(args.meetingId, identity: context.identity)
        }
        on(MeetingOperation.changeMode) { (context, args: MeetingModeArgs) -> MeetingParticipant in
            try await context.core.meetings.changeMode(args, caller: context.caller)
        }
        on(MeetingOperation.setMedia) { (context, args: MeetingMediaArgs) -> MeetingParticipant in
            try await context.core.meetings.setMedia(args, caller: context.caller)
        }
        on(MeetingOperation.pin) { (context, args: MeetingPinArgs) -> PinState in
            try await context.core.meetings.pin(args, on: true, caller: context.caller)
        }
        on(MeetingOperation.unpin) { (context, args: MeetingPinArgs) -> PinState in
            try await context.core.meetings.pin(args, on: false, caller: context.caller)
        }
        on(MeetingOperation.respondEntry) { (context, args: MeetingEntryArgs) -> EmptyResult in
            try await context.core.meetings.respondEntry(args, identity: context.identity)
            return EmptyResult()
        }
        on(MeetingOperation.publish) { (context, args: PubSubPublishArgs) -> PubSubMessage in
            try await context.core.meetings.publish(args, caller: context.caller)
        }
        on(MeetingOperation.messages) { (context, args: PubSubTopicArgs) -> [PubSubMessage] in
            try await context.core.meetings.messages(args, identity: context.identity)
        }
    }
}
