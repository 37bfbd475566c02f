import GreenroomCore
import GreenroomMedia
import GreenroomProtocol
import ServiceLifecycle

/// Live audio and video for meetings and live events, through the SFU: the signalling
/// operations (``MediaOperation``), checked against the rules the meetings and live events
/// register with the ``MediaPlane``; the livestreams as a service. (The SFU connections, and
/// the Janus the server may run, are the server's services.)
package struct MediaCapability: Capability {
    package let plane: MediaPlane
    package let livestreams: LivestreamEngine
    package let iceServers: ICEServerIssuer

    package init(_ core: CapabilityContext) {
        plane = core.media
        livestreams = core.livestreams
        iceServers = ICEServerIssuer(core.configuration.mediaNetwork)
    }

    package var services: [any Service] { [livestreams] }

    package func connectionEnded(clientId: String) async {
        await plane.connectionEnded(clientId: clientId)
    }

    package func registerOperations(_ router: inout CapabilityOperations) {
        let plane = plane
        router.on(MediaOperation.publish) { caller, args in try await plane.publish(args, caller: caller) }
        router.on(MediaOperation.unpublish) { caller, args in
            try await plane.unpublish(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.subscribe) { caller, args in try await plane.subscribe(args, caller: caller) }
        router.on(MediaOperation.unsubscribe) { caller, args in try await plane.unsubscribe(args, caller: caller) }
        router.on(MediaOperation.answer) { caller, args in
            try await plane.answer(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.trickle) { caller, args in
            try await plane.trickle(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.feeds) { caller, args in try await plane.feeds(args, caller: caller) }
        router.on(MediaOperation.iceRestart) { caller, args in try await plane.iceRestart(args, caller: caller) }
        router.on(MediaOperation.configure) { caller, args in try await plane.configure(args, caller: caller) }
        router.on(MediaOperation.reportStats) { caller, args in
            try await plane.reportStats(args, caller: caller)
            return EmptyResult()
        }
        router.on(MediaOperation.leave) { caller, args in
            await plane.leave(args, caller: caller)
            return EmptyResult()
        }
        // Only to a caller allowed to publish or receive in the room: a TURN credential
        // relays whatever its holder sends.
        let issuer = iceServers
        router.on(MediaOperation.iceServers) { caller, args in
            try plane.requireEnabled()
            let rights = try await plane.rights(caller, stream: args.stream)
            if rights.publishRefusal != nil, let refusal = rights.receiveRefusal { throw refusal }
            return issuer.servers(for: caller.userId)
        }
    }
}
