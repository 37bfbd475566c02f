import Foundation
import GreenroomProtocol

extension CommandRouter {
    /// `presence.join`, `presence.leave`, `presence.list`: on any stream the caller may read.
    mutating func registerPresenceOperations(_ presences: Presences) {
        onSession(StreamOperation.presenceJoin) { (caller, session, args: PresenceJoinArgs) -> PresenceEntry in
            try await presences.join(caller, session, args)
        }
        onSession(StreamOperation.presenceLeave) { (caller, session, args: PresenceStreamArgs) -> EmptyResult in
            try presences.refuseRosterStream(args.stream)
            guard session.releasePresence(args.stream) else {
                throw GreenroomError(.notFound, "not present on \(args.stream)")
            }
            try await presences.leave(caller.clientId, stream: args.stream, reason: "left")
            return EmptyResult()
        }
        on(StreamOperation.presenceList) { (caller, args: PresenceListArgs) -> [PresenceEntry] in
            try await presences.list(caller.identity, args)
        }
    }
}
