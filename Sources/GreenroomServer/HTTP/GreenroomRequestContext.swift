import Foundation
import GreenroomProtocol
import Hummingbird
import Logging
import NIOCore

/// The request context of every route: Hummingbird's core storage, the socket's channel,
/// the wire's JSON coders, and who the caller is once the route's group checked it
/// (``RestAccessMiddleware``).
struct GreenroomRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel
    /// The caller, as the route group's ``RestAccessMiddleware`` authenticated it: the app's
    /// backend (``Identity/backend``) or a token's user. `nil` on open routes.
    var identity: Identity?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    var requestDecoder: WireRequestDecoder { WireRequestDecoder() }
    var responseEncoder: JSONEncoder { WireCoding.encoder }
}

/// Reads a request's JSON body as `WireCoding.decoder` reads it (``WireCoding/decode(_:fromBytes:)``):
/// the same values and, for a body it refuses, the same `DecodingError`, which Hummingbird
/// answers with 400.
struct WireRequestDecoder: RequestDecoder {
    func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        return try WireCoding.decode(T.self, fromBytes: body.readableBytesView)
    }
}

extension RequestContext {
    /// The path parameter `name` (a route's `{name}`), percent-decoded once as RFC 3986
    /// says a server decodes a path segment: clients generated from the OpenAPI document
    /// encode every path parameter, so `app%3Ascores` is `app:scores` and `a%20b` is `a b`.
    /// An escape that is not `%` and two hex digits, or bytes that are not UTF-8, are
    /// refused with `invalidParameterValue`.
    func pathParameter(_ name: String) throws -> String {
        guard let raw = parameters.get(name) else {
            throw GreenroomError(.invalidParameterValue, "the path has no \(name)")
        }
        guard let decoded = RequestParsing.percentDecoded(raw) else {
            throw GreenroomError(.invalidParameterValue, "\(name) in the path is not valid percent-encoded UTF-8: \(raw)")
        }
        return decoded
    }
}

/// A ``GreenroomError`` as an HTTP response: a status from its code and the JSON body
/// `{"error": {"code", "name", "message"}}`.
struct HTTPGreenroomError: HTTPResponseError {
    let error: GreenroomError

    var status: HTTPResponse.Status {
        switch error.errorCode {
        case .notAuthenticated, .invalidToken, .tokenExpired, .tokenRevoked: .unauthorized
        case .permissionDenied, .notChannelMember, .operatorRequired, .notMessageSender, .userMuted, .channelFrozen,
             .userBanned, .bannedFromChannel, .userBlocked: .forbidden
        case .notFound, .liveEventIdNotFound, .unknownOperation, .messageNotFound, .invitationNotFound, .meetingNotFound: .notFound
        case .alreadyExists, .actionNotAllowedInCurrentState, .channelMemberLimitReached: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .fileTypeNotAllowed: .unsupportedMediaType
        case .rateLimited, .slowModeActive: .tooManyRequests
        case .unavailable, .overloaded: .serviceUnavailable
        case .internalError, .none: .internalServerError
        default: .badRequest
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = (try? WireCoding.encode(["error": error])) ?? Data()
        var response = Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(data: body)))
        if status == .unauthorized { response.headers[.wwwAuthenticate] = "Bearer" }
        if let wait = error.retryAfterMs { response.headers[.retryAfter] = String((wait + 999) / 1000) }
        return response
    }
}

/// Turns every error a route throws into the JSON error body, with a stable code.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = GreenroomRequestContext
    /// Where failures that are not the client's are logged.
    let logger: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPGreenroomError {
            throw error
        } catch let error as GreenroomError {
            throw HTTPGreenroomError(error: error)
        } catch let error as HTTPError {
            let code: ErrorCode = switch error.status {
            case .notFound: .notFound
            case .unauthorized: .notAuthenticated
            case .contentTooLarge: .payloadTooLarge
            case .methodNotAllowed: .unknownOperation
            case .internalServerError: .internalError
            default: .invalidParameterValue
            }
            throw HTTPGreenroomError(error: GreenroomError(code, error.body ?? "\(error.status.reasonPhrase)"))
        } catch {
            throw HTTPGreenroomError(error: GreenroomError.reported(error, to: logger))
        }
    }
}

/// A stored event as a JSON response: the bytes ``jsonResponse(_:status:)`` would write,
/// written straight from its fields (``StreamEvent/wireJSON(dataJSON:)``), as every REST
/// publish answers.
func jsonResponse(_ event: StreamEvent, status: HTTPResponse.Status = .ok) throws -> Response {
    jsonResponse(bytes: ByteBuffer(bytes: try event.wireJSON()), status: status)
}

/// Encodes a value as a JSON response with the wire's encoder.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    jsonResponse(bytes: ByteBuffer(data: try WireCoding.encode(value)), status: status)
}

/// `json`, already written, as a JSON response.
private func jsonResponse(bytes json: ByteBuffer, status: HTTPResponse.Status) -> Response {
    Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: json))
}
