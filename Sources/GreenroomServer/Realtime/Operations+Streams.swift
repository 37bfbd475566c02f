import GreenroomProtocol
import NIOCore

extension CommandRouter {
    /// `stream.subscribe` and `stream.unsubscribe`.
    mutating func registerStreamOperations(_ subscriptions: StreamSubscriptions) {
        onRaw(StreamOperation.subscribe) { context, args in
            try await subscriptions.subscribe(context, args)
        }
        on(StreamOperation.unsubscribe) { (context, args: UnsubscribeArgs) -> EmptyResult in
            try subscriptions.unsubscribe(context.connection, from: args.stream)
            return EmptyResult()
        }
    }
}
