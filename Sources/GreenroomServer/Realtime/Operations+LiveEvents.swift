import GreenroomProtocol

extension CommandRouter {
    /// The live event operations (``LiveEventOperation``): every one acts as the connected
    /// user, and ``LiveEventService`` checks that user's role and the event's state.
    mutating func registerLiveEventOperations() {
        on(LiveEventOperation.create) { (context, args: LiveEventCreateArgs) -> LiveEventData in
            try await context.core.liveEvents.create(args, by: context.identity.userId)
        }
        on(LiveEventOperation.get) { (context, args: LiveEventRef) -> LiveEventData in
            try await context.core.liveEvents.get(args.liveEventId)
        }
        on(LiveEventOperation.list) { (context, args: LiveEventListArgs) -> Page<LiveEventData> in
            try await context.core.liveEvents.list(args)
        }
        on(LiveEventOperation.updateInfo) { (context, args: LiveEventInfoArgs) -> LiveEventData in
            try await context.core.liveEvents.updateInfo(args, by: context.identity.userId)
        }
        on(LiveEventOperation.setReady) { (context, args: LiveEventRef) -> LiveEventData in
            try await context.core.liveEvents.setReady(args.liveEventId, by: context.identity.userId)
        }
        on(LiveEventOperation.start) { (context, args: LiveEventRef) -> LiveEventData in
            try await context.core.liveEvents.start(args.liveEventId, by: context.identity.userId)
        }
        on(LiveEventOperation.end) { (context, args: LiveEventRef) -> LiveEventData in
            try await context.core.liveEvents.end(args.liveEventId, by: context.identity.userId)
        }
        on(LiveEventOperation.enter) { (context, args: LiveEventRef) -> LiveEventEntry in
            try await context.core.liveEvents.enter(args.liveEventId, caller: context.caller)
        }
        on(LiveEventOperation.exit) { (context, args: LiveEventRef) -> EmptyResult in
            try await context.core.liveEvents.exit(args.liveEventId, caller: context.caller)
            return EmptyResult()
        }
        on(LiveEventOperation.enterAsHost) { (context, args: LiveEventHostArgs) -> LiveEventEntry in
            try await context.core.liveEvents.enterAsHost(args, caller: context.caller)
        }
        on(LiveEventOperation.exitAsHost) { (context, args: LiveEventRef) -> EmptyResult in
            try await context.core.liveEvents.exitAsHost(args.liveEventId, caller: context.caller)
            return EmptyResult()
        }
        on(LiveEventOperation.setHostMedia) { (context, args: LiveEventMediaArgs) -> LiveEventHost in
            try await context.core.liveEvents.setHostMedia(args, userId: context.identity.userId)
        }
        on(LiveEventOperation.updateCustomItems) { (context, args: LiveEventCustomItemsArgs) -> CustomItemsResult in
            try await context.core.liveEvents.updateCustomItems(args, by: context.identity.userId)
        }
        on(LiveEventOperation.deleteCustomItems) { (context, args: LiveEventCustomItemKeysArgs) -> CustomItemsResult in
            try await context.core.liveEvents.deleteCustomItems(args, by: context.identity.userId)
        }
        on(LiveEventOperation.deleteAllCustomItems) { (context, args: LiveEventRef) -> CustomItemsResult in
            try await context.core.liveEvents.deleteAllCustomItems(args.liveEventId, by: context.identity.userId)
        }
        on(LiveEventOperation.increaseReactionCount) { (context, args: LiveEventReactionArgs) -> EmptyResult in
            try await context.core.liveEvents.increaseReactionCount(args, by: context.identity.userId)
            return EmptyResult()
        }
    }
}
