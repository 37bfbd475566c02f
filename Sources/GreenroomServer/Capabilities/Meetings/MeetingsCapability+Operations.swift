import GreenroomProtocol

extension MeetingsCapability {
    /// The meeting and pub/sub operations (``MeetingOperation``): every one acts as the
    /// connected participant, and ``MeetingService`` checks its grants and state.
    func registerOperations(_ router: inout CommandRouter) {
        let meetings = service
        router.on(MeetingOperation.join) { (context, args: MeetingJoinArgs) -> MeetingJoinResult in
            try await meetings.join(args, caller: context.caller)
        }
        router.on(MeetingOperation.leave) { (context, args: MeetingRef) -> EmptyResult in
            try await meetings.leave(args.meetingId, caller: context.caller)
            return EmptyResult()
        }
        router.on(MeetingOperation.end) { (context, args: MeetingRef) -> EmptyResult in
            try await meetings.end(args.meetingId, identity: context.identity)
            return EmptyResult()
        }
        router.on(MeetingOperation.get) { (context, args: MeetingRef) -> MeetingData in
            try await meetings.get(args.meetingId, caller: context.caller)
        }
        router.on(MeetingOperation.changeMode) { (context, args: MeetingModeArgs) -> MeetingParticipant in
            try await meetings.changeMode(args, caller: context.caller)
        }
        router.on(MeetingOperation.setMedia) { (context, args: MeetingMediaArgs) -> MeetingParticipant in
            try await meetings.setMedia(args, caller: context.caller)
        }
        router.on(MeetingOperation.pin) { (context, args: MeetingPinArgs) -> PinState in
            try await meetings.pin(args, on: true, caller: context.caller)
        }
        router.on(MeetingOperation.unpin) { (context, args: MeetingPinArgs) -> PinState in
            try await meetings.pin(args, on: false, caller: context.caller)
        }
        router.on(MeetingOperation.respondEntry) { (context, args: MeetingEntryArgs) -> EmptyResult in
            try await meetings.respondEntry(args, identity: context.identity)
            return EmptyResult()
        }
        router.on(MeetingOperation.startLivestream) { (context, args: MeetingRef) -> LivestreamInfo in
            try await meetings.startLivestream(args.meetingId, identity: context.identity)
        }
        router.on(MeetingOperation.stopLivestream) { (context, args: MeetingRef) -> LivestreamInfo in
            try await meetings.stopLivestream(args.meetingId, identity: context.identity)
        }
        router.on(MeetingOperation.publish) { (context, args: PubSubPublishArgs) -> PubSubMessage in
            try await meetings.publish(args, caller: context.caller)
        }
        router.on(MeetingOperation.messages) { (context, args: PubSubTopicArgs) -> [PubSubMessage] in
            try await meetings.messages(args, caller: context.caller)
        }
    }
}
