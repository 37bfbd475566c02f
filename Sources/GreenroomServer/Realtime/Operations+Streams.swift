import GreenroomProtocol
import NIOCore

extension CommandRouter {
    /// `stream.subscribe` and `stream.unsubscribe`.
    mutating func registerStreamOperations() {
        onRaw(StreamOperation.subscribe) { context, args in
            try await context.core.subscriptions.subscribe(context, args)
        }
        on(StreamOperation.unsubscribe) { (context, args: UnsubscribeArgs) -> EmptyResult in
            try context.core.subscriptions.unsubscribe(context.connection, from: args.stream)
            return EmptyResult()
        }
    }
}
