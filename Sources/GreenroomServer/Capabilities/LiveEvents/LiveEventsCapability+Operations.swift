import GreenroomProtocol

extension LiveEventsCapability {
    /// The live event operations (``LiveEventOperation``): every one acts as the connected
    /// user, and ``LiveEventService`` checks that user's role and the event's state.
    func registerOperations(_ router: inout CommandRouter) {
        let liveEvents = service
        router.on(LiveEventOperation.create) { (context, args: LiveEventCreateArgs) -> LiveEventData in
            try await liveEvents.create(args, by: context.identity.userId)
        }
        router.on(LiveEventOperation.get) { (context, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.get(args.liveEventId)
        }
        router.on(LiveEventOperation.list) { (context, args: LiveEventListArgs) -> Page<LiveEventData> in
            try await liveEvents.list(args)
        }
        router.on(LiveEventOperation.updateInfo) { (context, args: LiveEventInfoArgs) -> LiveEventData in
            try await liveEvents.updateInfo(args, by: context.identity.userId)
        }
        router.on(LiveEventOperation.setReady) { (context, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.setReady(args.liveEventId, by: context.identity.userId)
        }
        router.on(LiveEventOperation.start) { (context, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.start(args.liveEventId, by: context.identity.userId)
        }
        router.on(LiveEventOperation.end) { (context, args: LiveEventRef) -> LiveEventData in
            try await liveEvents.end(args.liveEventId, by: context.identity.userId)
        }
        router.on(LiveEventOperation.enter) { (context, args: LiveEventRef) -> LiveEventEntry in
            try await liveEvents.enter(args.liveEventId, caller: context.caller)
        }
        router.on(LiveEventOperation.exit) { (context, args: LiveEventRef) -> EmptyResult in
            try await liveEvents.exit(args.liveEventId, caller: context.caller)
            return EmptyResult()
        }
        router.on(LiveEventOperation.enterAsHost) { (context, args: LiveEventHostArgs) -> LiveEventEntry in
            try await liveEvents.enterAsHost(args, caller: context.caller)
        }
        router.on(LiveEventOperation.exitAsHost) { (context, args: LiveEventRef) -> EmptyResult in
            try await liveEvents.exitAsHost(args.liveEventId, caller: context.caller)
            return EmptyResult()
        }
        router.on(LiveEventOperation.setHostMedia) { (context, args: LiveEventMediaArgs) -> LiveEventHost in
            try await liveEvents.setHostMedia(args, userId: context.identity.userId)
        }
        router.on(LiveEventOperation.updateCustomItems) { (context, args: LiveEventCustomItemsArgs) -> CustomItemsResult in
            try await liveEvents.updateCustomItems(args, by: context.identity.userId)
        }
        router.on(LiveEventOperation.deleteCustomItems) { (context, args: LiveEventCustomItemKeysArgs) -> CustomItemsResult in
            try await liveEvents.deleteCustomItems(args, by: context.identity.userId)
        }
        router.on(LiveEventOperation.deleteAllCustomItems) { (context, args: LiveEventRef) -> CustomItemsResult in
            try await liveEvents.deleteAllCustomItems(args.liveEventId, by: context.identity.userId)
        }
        router.on(LiveEventOperation.increaseReactionCount) { (context, args: LiveEventReactionArgs) -> EmptyResult in
            try await liveEvents.increaseReactionCount(args, by: context.identity.userId)
            return EmptyResult()
        }
    }
}
