import GreenroomProtocol
import Logging

extension GreenroomError {
    /// The error a client is told for `error`: a ``GreenroomError`` as it is, a decoding
    /// error as `invalidParameterValue`, a cancellation (a request cut short by a shutdown)
    /// as `unavailable`; anything else is logged to `logger` and told as `internalError`,
    /// so what failed inside the server is not leaked.
    static func reported(_ error: any Error, to logger: Logger) -> GreenroomError {
        if let error = error as? GreenroomError { return error }
        if let error = error as? DecodingError {
            return GreenroomError(.invalidParameterValue, CommandRouter.describe(error))
        }
        if error is CancellationError {
            // Expected during a shutdown, and the client will retry.
            logger.debug("request cancelled by the shutdown")
            return GreenroomError(.unavailable, "the server is shutting down; try again shortly")
        }
        logger.error("unexpected error: \(error)")
        return GreenroomError(.internalError, "the server failed; try again")
    }
}
