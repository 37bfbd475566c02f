import GreenroomProtocol

extension CommandRouter {
    /// `stream.subscribe` and `stream.unsubscribe`.
    mutating func registerStreamOperations(_ subscriptions: StreamSubscriptions) {
        onRaw(StreamOperation.subscribe) { caller, session, args, reply in
            try await subscriptions.subscribe(caller, session, args, reply: reply)
        }
        onSession(StreamOperation.unsubscribe) { (_, session, args: UnsubscribeArgs) -> EmptyResult in
            try subscriptions.unsubscribe(session, from: args.stream)
            return EmptyResult()
        }
    }
}
