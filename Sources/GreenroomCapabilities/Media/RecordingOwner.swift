import GreenroomCore
import GreenroomProtocol

/// Whose video a recording becomes.
enum RecordingOwner {
    /// The caller's own; for the app's backend, the user it names, or `fallback` (a live
    /// event's creator) when that is a user. - Throws: `invalidParameterValue` for an owner
    /// that is no user id, or when the backend names none and there is no fallback.
    static func resolve(_ named: String?, caller: String, fallback: String?) throws -> String {
        guard caller == Identity.backendUserId else { return caller }
        guard let owner = named ?? fallback, owner != Identity.backendUserId, owner != "backend" else {
            throw GreenroomError(.invalidParameterValue, "name the user the recording's video will belong to (owner)")
        }
        guard Limits.isValidId(owner) else { throw GreenroomError(.invalidParameterValue, "owner is not a user id") }
        return owner
    }
}
