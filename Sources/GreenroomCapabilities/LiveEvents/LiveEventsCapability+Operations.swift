import GreenroomCore
import GreenroomProtocol

extension LiveEventsCapability {
    /// The live event operations (``LiveEventOperation``): every one acts as the connected
    /// user, and ``LiveEventService`` checks that user's role and the event's state.
    package func registerOperations(_ router: inout CapabilityOperations) {
        let liveEvents = service
        router.on(LiveEventOperation.create) { (caller, args: LiveEventCreateArgs) -> LiveEventData in
            try await liveEvents.create(args, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.get) { (caller, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.get(args.liveEventId)
        }
        router.on(LiveEventOperation.list) { (caller, args: LiveEventListArgs) -> Page<LiveEventData> in
            try await liveEvents.list(args)
        }
        router.on(LiveEventOperation.updateInfo) { (caller, args: LiveEventInfoArgs) -> LiveEventData in
            try await liveEvents.updateInfo(args, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.setReady) { (caller, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.setReady(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.start) { (caller, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.start(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.end) { (caller, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.end(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.startRecording) { (caller, args: LiveEventRef) -> RecordingInfo in
            try await liveEvents.startRecording(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.stopRecording) { (caller, args: LiveEventRef) -> RecordingInfo in
            try await liveEvents.stopRecording(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.enter) { (caller, args: LiveEventRef) -> LiveEventEntry in
            try await liveEvents.enter(args.liveEventId, caller: caller)
        }
        router.on(LiveEventOperation.exit) { (caller, args: LiveEventRef) -> EmptyResult in
            try await liveEvents.exit(args.liveEventId, caller: caller)
            return EmptyResult()
        }
        router.on(LiveEventOperation.enterAsHost) { (caller, args: LiveEventHostArgs) -> LiveEventEntry in
            try await liveEvents.enterAsHost(args, caller: caller)
        }
        router.on(LiveEventOperation.exitAsHost) { (caller, args: LiveEventRef) -> EmptyResult in
            try await liveEvents.exitAsHost(args.liveEventId, caller: caller)
            return EmptyResult()
        }
        router.on(LiveEventOperation.setHostMedia) { (caller, args: LiveEventMediaArgs) -> LiveEventHost in
            try await liveEvents.setHostMedia(args, userId: caller.identity.userId)
        }
        router.on(LiveEventOperation.updateCustomItems) { (caller, args: LiveEventCustomItemsArgs) -> CustomItemsResult in
            try await liveEvents.updateCustomItems(args, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.deleteCustomItems) { (caller, args: LiveEventCustomItemKeysArgs) -> CustomItemsResult in
            try await liveEvents.deleteCustomItems(args, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.deleteAllCustomItems) { (caller, args: LiveEventRef) -> CustomItemsResult in
            try await liveEvents.deleteAllCustomItems(args.liveEventId, by: caller.identity.userId)
        }
        router.on(LiveEventOperation.increaseReactionCount) { (caller, args: LiveEventReactionArgs) -> EmptyResult in
            try await liveEvents.increaseReactionCount(args, by: caller.identity.userId)
            return EmptyResult()
        }
    }
}
