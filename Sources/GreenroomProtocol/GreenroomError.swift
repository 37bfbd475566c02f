/// An error with a stable numeric code, a stable name and a human message: what every
/// refused command, REST call and failed SDK call reports.
///
/// Codes are grouped in ranges so that a client can tell what kind of failure it met:
/// - `1800xxx`: the request (malformed, invalid, not allowed, not found, too large).
/// - `1900xxx`: the server or the connection (internal error, unavailable, connection lost).
/// - `2700xxx`: chat, `2800xxx`: live events, `2900xxx`: stage meetings, `3000xxx`: video.
///
/// Compare errors by ``code``; ``message`` is for people and may change.
public struct GreenroomError: Error, Codable, Hashable, Sendable, CustomStringConvertible {
    /// The stable numeric code.
    public var code: Int
    /// The stable name of the code, e.g. `invalidParameterValue`.
    public var name: String
    /// What went wrong, for people.
    public var message: String
    /// With `rateLimited`: how long to wait, in milliseconds, before the same request can
    /// be let through.
    public var retryAfterMs: Int?

    /// Makes an error from a code and a message.
    public init(_ code: ErrorCode, _ message: String) {
        self.code = code.rawValue
        self.name = code.name
        self.message = message
    }

    /// Makes a `rateLimited` error telling when to try again.
    public init(rateLimited message: String, retryAfterMs: Int) {
        self.init(.rateLimited, message)
        self.retryAfterMs = retryAfterMs
    }

    /// Makes an error from raw parts, as decoded from the wire.
    public init(code: Int, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// The known code of this error, if it is one this version knows.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }

    /// `name (code): message`.
    public var description: String { "\(name) (\(code)): \(message)" }

    /// Whether the failure may pass by itself (the connection or the server), so that the
    /// same request may succeed later; `false` for refusals, which fail again.
    public var isTransient: Bool {
        switch errorCode {
        case .internalError, .unavailable, .overloaded, .connectionLost, .timeout, .notConnected: true
        default: false
        }
    }

    /// Whether this error has the given code.
    public func `is`(_ code: ErrorCode) -> Bool { self.code == code.rawValue }
}

/// The stable error codes. New codes are added; existing ones never change meaning.
public enum ErrorCode: Int, CaseIterable, Sendable {
    // 18001xx: frames and operations
    /// The frame was not valid JSON or not a command.
    case malformedFrame = 1800100
    /// The operation is not one the server knows.
    case unknownOperation = 1800101
    // 18003xx: parameters, identity and permissions (the seeds' own codes keep their numbers)
    /// An argument is missing, of the wrong type or out of range.
    case invalidParameterValue = 1800300
    /// A payload (extra data, message, upload) is over its size limit.
    case payloadTooLarge = 1800301
    /// Extra data uses a key the platform reserves.
    case reservedKey = 1800302
    /// No credentials were given.
    case notAuthenticated = 1800303
    /// The token is malformed, wrongly signed or uses an algorithm that is not accepted.
    case invalidToken = 1800304
    /// The token has expired: fetch a fresh one and reconnect.
    case tokenExpired = 1800305
    /// The caller is not allowed to do this.
    case permissionDenied = 1800306
    /// The thing named does not exist.
    case notFound = 1800307
    /// The thing being created exists already.
    case alreadyExists = 1800308
    /// Too many requests or subscriptions.
    case rateLimited = 1800309
    /// The token was issued before its user's tokens were revoked (or the user deleted):
    /// fetch a fresh one from the app's backend.
    case tokenRevoked = 1800310
    /// The app banned the user: its connections were closed and its tokens are refused
    /// until the ban ends.
    case userBanned = 1800311
    // 19000xx: server and connection
    /// The server failed; the request may be retried.
    case internalError = 1900000
    /// The server is shutting down or a dependency is unavailable.
    case unavailable = 1900001
    /// The server is writing all it can: the change waited and was not taken; try again shortly.
    case overloaded = 1900002
    /// The connection was lost before the reply came; the outcome is unknown.
    case connectionLost = 1900100
    /// No reply came in time; the outcome is unknown.
    case timeout = 1900101
    /// The client is not connected and was asked not to wait.
    case notConnected = 1900102
    /// The TLS handshake with the server failed: its certificate is not trusted, not valid
    /// now, or not made for the host. Retrying does not help.
    case tlsFailure = 1900103
    // 27001xx: chat
    /// The caller (or a user named) is not a member of the channel.
    case notChannelMember = 2700100
    /// Only the channel's operators may do this.
    case operatorRequired = 2700101
    /// The channel has as many members as it may.
    case channelMemberLimitReached = 2700102
    /// The channel is private: only a member's invitation lets a user in.
    case invitationRequired = 2700103
    /// Only the message's sender (or, for deletion, an operator) may do this.
    case notMessageSender = 2700104
    /// The caller has no pending invitation to the channel.
    case invitationNotFound = 2700105
    /// The message does not exist in the channel.
    case messageNotFound = 2700106
    /// An operator muted the caller in the channel: it may read, not send, until the mute ends.
    case userMuted = 2700107
    /// The channel is frozen: only its operators send.
    case channelFrozen = 2700108
    /// The channel is in slow mode and the caller sent too recently; `retryAfterMs` says
    /// when it may send again.
    case slowModeActive = 2700109
    /// An operator banned the user from the channel: it cannot join or be invited until the
    /// ban ends.
    case bannedFromChannel = 2700110
    /// One of the users blocked the other: no distinct channel or invitation between them.
    case userBlocked = 2700111
    /// The text holds a word of the app's blocklist, whose action is to refuse.
    case messageBlocked = 2700112
    /// The server does not take files of this MIME type (`GREENROOM_FILE_TYPES`), or the
    /// file is not the image it was declared to be.
    case fileTypeNotAllowed = 2700113
    // 29001xx: stage meetings
    /// The caller has not joined the meeting.
    case meetingNotJoined = 2900100
    /// The participant is in that mode already.
    case modeUnchanged = 2900101
    /// Only a `SEND_AND_RECV` participant may turn its microphone or camera on.
    case mediaNotAllowedInMode = 2900102
    /// Another user's participant has that id.
    case participantIdTaken = 2900103
    /// Only moderators (`allow_mod`) may do this.
    case moderatorRequired = 2900104
    /// The meeting has ended.
    case meetingEnded = 2900105
    /// A moderator refused the entry.
    case entryDenied = 2900106
    /// The meeting has as many participants as it may.
    case maxParticipantsReached = 2900107
    /// The meeting or participant does not exist.
    case meetingNotFound = 2900108
    /// This node runs as many livestreams as it may (`GREENROOM_LIVESTREAM_LIMIT`).
    case livestreamLimitReached = 2900109
    // 28001xx: live events (the seed's numbers)
    /// The live event does not exist.
    case liveEventIdNotFound = 2800100
    /// The live event's state does not allow this.
    case actionNotAllowedInCurrentState = 2800101
    /// Participants may not do this; hosts may.
    case actionNotAllowedForParticipant = 2800102

    /// The stable name of the code.
    public var name: String {
        switch self {
        case .malformedFrame: "malformedFrame"
        case .unknownOperation: "unknownOperation"
        case .invalidParameterValue: "invalidParameterValue"
        case .payloadTooLarge: "payloadTooLarge"
        case .reservedKey: "reservedKey"
        case .notAuthenticated: "notAuthenticated"
        case .invalidToken: "invalidToken"
        case .tokenExpired: "tokenExpired"
        case .permissionDenied: "permissionDenied"
        case .notFound: "notFound"
        case .alreadyExists: "alreadyExists"
        case .rateLimited: "rateLimited"
        case .tokenRevoked: "tokenRevoked"
        case .userBanned: "userBanned"
        case .internalError: "internalError"
        case .unavailable: "unavailable"
        case .overloaded: "overloaded"
        case .connectionLost: "connectionLost"
        case .timeout: "timeout"
        case .notConnected: "notConnected"
        case .tlsFailure: "tlsFailure"
        case .notChannelMember: "notChannelMember"
        case .operatorRequired: "operatorRequired"
        case .channelMemberLimitReached: "channelMemberLimitReached"
        case .invitationRequired: "invitationRequired"
        case .notMessageSender: "notMessageSender"
        case .invitationNotFound: "invitationNotFound"
        case .messageNotFound: "messageNotFound"
        case .userMuted: "userMuted"
        case .channelFrozen: "channelFrozen"
        case .slowModeActive: "slowModeActive"
        case .bannedFromChannel: "bannedFromChannel"
        case .userBlocked: "userBlocked"
        case .messageBlocked: "messageBlocked"
        case .fileTypeNotAllowed: "fileTypeNotAllowed"
        case .meetingNotJoined: "meetingNotJoined"
        case .modeUnchanged: "modeUnchanged"
        case .mediaNotAllowedInMode: "mediaNotAllowedInMode"
        case .participantIdTaken: "participantIdTaken"
        case .moderatorRequired: "moderatorRequired"
        case .meetingEnded: "meetingEnded"
        case .entryDenied: "entryDenied"
        case .maxParticipantsReached: "maxParticipantsReached"
        case .meetingNotFound: "meetingNotFound"
        case .livestreamLimitReached: "livestreamLimitReached"
        case .liveEventIdNotFound: "liveEventIdNotFound"
        case .actionNotAllowedInCurrentState: "actionNotAllowedInCurrentState"
        case .actionNotAllowedForParticipant: "actionNotAllowedForParticipant"
        }
    }
}

/// WebSocket close codes the server uses, in ranges that tell the client what to do.
///
/// - `1000`–`1999`: standard codes (`1001`: no answer to the server's pings;
///   `1009`: a frame over the 64 KiB limit).
/// - `4000`–`4099`: reconnect and resume from the last positions.
/// - `4100`–`4199`: do not reconnect with the same credentials.
public enum CloseCode: Int, Sendable {
    /// The server is shutting down or restarting: reconnect and resume.
    case serverRestarting = 4000
    /// The client read too slowly and its outbound queue overflowed: reconnect and resume.
    case slowConsumer = 4001
    /// The token expired while connected: fetch a fresh token, then reconnect.
    case tokenExpired = 4100
    /// The user was deleted, banned or its access revoked.
    case forbidden = 4101
    /// A frame was larger than the server accepts (the standard code 1009).
    case messageTooBig = 1009

    /// Whether a client should reconnect (possibly after fetching a fresh token).
    public var shouldReconnect: Bool {
        switch self {
        case .serverRestarting, .slowConsumer, .tokenExpired: true
        case .forbidden, .messageTooBig: false
        }
    }
}
