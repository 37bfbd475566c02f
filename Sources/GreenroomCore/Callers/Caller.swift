import GreenroomProtocol

/// Who a service acts for: the caller's identity, its connection's id across nodes, and
/// what the core may do to that connection on the service's behalf. Services get this
/// value, never the socket.
package struct Caller: Sendable {
    /// The caller's user and grants.
    package let identity: Identity
    /// The connection's id across nodes (`<node>-<n>`), as roster entries and replies name it.
    package let clientId: String
    /// What a service may ask of the caller's connection.
    package let session: any CallerSession

    package var userId: String { identity.userId }

    /// The caller `identity` on the connection `clientId`, reached through `session`.
    package init(identity: Identity, clientId: String, session: any CallerSession) {
        self.identity = identity
        self.clientId = clientId
        self.session = session
    }
}

/// What a service may ask of a caller's connection; the core carries it out.
package protocol CallerSession: Sendable {
    /// Notes that the connection holds the roster entry `key` on `stream`: when it closes,
    /// the entry is handed to the capability that owns the stream.
    func holdRoster(stream: String, key: String)
    /// Forgets a roster entry the connection held.
    func releaseRoster(stream: String, key: String)
    /// The roster entries the connection holds.
    var rosterEntries: [(stream: String, key: String)] { get }
    /// Ends the connection's subscription to a stream it may no longer read.
    func endSubscription(_ stream: String)
}
