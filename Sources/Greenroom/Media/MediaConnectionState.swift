import Foundation

/// Which of a room's two peer connections: the one that sends the local tracks, or the one
/// that receives everyone else.
public enum MediaConnectionRole: String, Sendable, Hashable {
    /// The sending connection.
    case publisher
    /// The receiving connection.
    case subscriber
}

/// A peer connection's ICE state, as `RTCPeerConnection.iceConnectionState` names it.
public enum MediaConnectionState: String, Sendable, Hashable {
    /// Gathering, no checks yet.
    case new
    /// Checking candidate pairs.
    case checking
    /// A pair works.
    case connected
    /// Checks are done and a pair works.
    case completed
    /// The pair in use stopped answering (a network that went away, or changed).
    case disconnected
    /// No pair works.
    case failed
    /// Closed.
    case closed

    /// Whether media can flow.
    public var isUp: Bool { self == .connected || self == .completed }
}

/// A change of one of the engine's connections, as ``MediaEngine/connectionChanges()`` reports it.
public struct MediaConnectionChange: Sendable, Hashable {
    /// Which connection.
    public var role: MediaConnectionRole
    /// Its ICE state now.
    public var state: MediaConnectionState

    /// Makes the change.
    public init(role: MediaConnectionRole, state: MediaConnectionState) {
        self.role = role
        self.state = state
    }
}
