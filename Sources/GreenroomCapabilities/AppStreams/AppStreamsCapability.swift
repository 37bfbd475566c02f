import GreenroomCore
import GreenroomProtocol
import GreenroomStorage

/// App streams (`app:<name>`): the app's own events, published by its backend over REST (or
/// by clients whose token grants `publish:app:NAME`) and read by the users whose token
/// grants the stream (`app:scores`, or `app:*`).
package struct AppStreamsCapability: Capability {
    package let events: EventLog
    package let storage: any GreenroomStorage

    package init(_ core: CapabilityContext) {
        events = core.events
        storage = core.storage
    }

    package var streamKind: StreamKind? { .app }

    /// A user reads an app stream its token grants.
    package func authorizeRead(_ identity: Identity, streamId id: String) async throws {
        let stream = StreamKind.app.stream(id)
        guard identity.has(stream) else {
            throw GreenroomError(.permissionDenied, "the token does not grant \(stream)")
        }
    }

    /// `stream.publish`: a client publishes to an app stream its token grants publication of
    /// (`publish:app:NAME` or `publish:app:*`). The event's data must be an object; the
    /// server sets its `publishedBy` to the client's user (whatever the client sent there),
    /// and a client's idempotency keys are its own (two users' equal keys do not collide).
    package func registerOperations(_ router: inout CapabilityOperations) {
        let events = events
        router.on(StreamOperation.publish) { (caller, args: StreamPublishArgs) -> PublishResult in
            let userId = caller.identity.userId
            guard StreamKind(of: args.stream) == .app else {
                throw GreenroomError(.permissionDenied, "a client may publish only to app:NAME streams")
            }
            guard caller.identity.grants.contains("publish:" + args.stream) || caller.identity.grants.contains("publish:app:*") else {
                throw GreenroomError(.permissionDenied, "the token does not grant publish:\(args.stream)")
            }
            guard var data = args.data.dictionaryValue else {
                throw GreenroomError(.invalidParameterValue, "data must be a JSON object")
            }
            data["publishedBy"] = .string(userId)
            if let key = args.idempotencyKey, !(1...Limits.maxKeyLength).contains(key.count) {
                throw GreenroomError(.invalidParameterValue, "idempotencyKey must be 1–\(Limits.maxKeyLength) characters")
            }
            let append = try Self.validated(stream: args.stream, PublishArgs(
                type: args.type, data: .dictionary(data), idempotencyKey: args.idempotencyKey.map { "user:\(userId):\($0)" }))
            let outcome = try await events.append(append)
            return PublishResult(event: outcome.event, duplicate: outcome.duplicate)
        }
    }

    /// The most events one batch request carries.
    package static let maxBatch = 500

    /// The append of `args` to `stream`, once checked: the app publishes to `user:ID` and
    /// `app:NAME` streams, types are 1–64 characters, data at most a client frame's size.
    package static func validated(stream: String, _ args: PublishArgs) throws -> EventAppend {
        let kind = StreamKind(of: stream)
        guard StreamName.isValid(stream), kind == .user || kind == .app, kind.id(in: stream)?.isEmpty == false else {
            throw GreenroomError(.invalidParameterValue, "the app may publish to user:ID or app:NAME streams")
        }
        let type = args.type ?? "app.event"
        guard (1...64).contains(type.count) else { throw GreenroomError(.invalidParameterValue, "type must be 1–64 characters") }
        let size = try args.data.jsonData().count
        guard size <= Limits.maxClientFrameBytes else {
            throw GreenroomError(.payloadTooLarge, "event data is \(size) bytes; the limit is \(Limits.maxClientFrameBytes)")
        }
        return EventAppend(stream: stream, type: type, data: args.data, idempotencyKey: args.idempotencyKey)
    }
}
