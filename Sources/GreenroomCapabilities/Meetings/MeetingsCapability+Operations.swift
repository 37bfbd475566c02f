import GreenroomCore
import GreenroomProtocol

extension MeetingsCapability {
    /// The meeting and pub/sub operations (``MeetingOperation``): every one acts as the
    /// connected participant, and ``MeetingService`` checks its grants and state.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let meetings = service
        router.on(MeetingOperation.join) { (caller, args: MeetingJoinArgs) -> MeetingJoinResult in
            try await meetings.join(args, caller: caller)
        }
        router.on(MeetingOperation.leave) { (caller, args: MeetingRef) -> EmptyResult in
            try await meetings.leave(args.meetingId, caller: caller)
            return EmptyResult()
        }
        router.on(MeetingOperation.end) { (caller, args: MeetingRef) -> EmptyResult in
            try await meetings.end(args.meetingId, identity: caller.identity)
            return EmptyResult()
        }
        router.on(MeetingOperation.get) { (caller, args: MeetingRef) -> MeetingData in
            try await meetings.get(args.meetingId, caller: caller)
        }
        router.on(MeetingOperation.changeMode) { (caller, args: MeetingModeArgs) -> MeetingParticipant in
            try await meetings.changeMode(args, caller: caller)
        }
        router.on(MeetingOperation.setMedia) { (caller, args: MeetingMediaArgs) -> MeetingParticipant in
            try await meetings.setMedia(args, caller: caller)
        }
        router.on(MeetingOperation.pin) { (caller, args: MeetingPinArgs) -> PinState in
            try await meetings.pin(args, on: true, caller: caller)
        }
        router.on(MeetingOperation.unpin) { (caller, args: MeetingPinArgs) -> PinState in
            try await meetings.pin(args, on: false, caller: caller)
        }
        router.on(MeetingOperation.respondEntry) { (caller, args: MeetingEntryArgs) -> EmptyResult in
            try await meetings.respondEntry(args, identity: caller.identity)
            return EmptyResult()
        }
        router.on(MeetingOperation.startLivestream) { (caller, args: MeetingRef) -> LivestreamInfo in
            try await meetings.startLivestream(args.meetingId, identity: caller.identity)
        }
        router.on(MeetingOperation.stopLivestream) { (caller, args: MeetingRef) -> LivestreamInfo in
            try await meetings.stopLivestream(args.meetingId, identity: caller.identity)
        }
        router.on(MeetingOperation.startRecording) { (caller, args: MeetingRef) -> RecordingInfo in
            try await meetings.startRecording(args.meetingId, identity: caller.identity)
        }
        router.on(MeetingOperation.stopRecording) { (caller, args: MeetingRef) -> RecordingInfo in
            try await meetings.stopRecording(args.meetingId, identity: caller.identity)
        }
        router.on(MeetingOperation.publish) { (caller, args: PubSubPublishArgs) -> PubSubMessage in
            try await meetings.publish(args, caller: caller)
        }
        router.on(MeetingOperation.messages) { (caller, args: PubSubTopicArgs) -> [PubSubMessage] in
            try await meetings.messages(args, caller: caller)
        }
    }
}
