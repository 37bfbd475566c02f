import Foundation
import GreenroomProtocol

extension CommandRouter {
    /// `presence.join`, `presence.leave`, `presence.list`: on any stream the caller may read.
    mutating func registerPresenceOperations(_ presences: Presences) {
        on(StreamOperation.presenceJoin) { (context, args: PresenceJoinArgs) -> PresenceEntry in
            try await presences.join(context.connection, args)
        }
        on(StreamOperation.presenceLeave) { (context, args: PresenceStreamArgs) -> EmptyResult in
            try presences.refuseRosterStream(args.stream)
            guard context.connection.removePresence(args.stream) else {
                throw GreenroomError(.notFound, "not present on \(args.stream)")
            }
            try await presences.leave(context.connection, stream: args.stream, reason: "left")
            return EmptyResult()
        }
        on(StreamOperation.presenceList) { (context, args: PresenceListArgs) -> [PresenceEntry] in
            try await presences.list(context.identity, args)
        }
    }
}
