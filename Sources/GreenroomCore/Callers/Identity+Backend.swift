import Foundation
import GreenroomProtocol

extension Identity {
    /// Who the app's backend acts as with the API key (the console ending a live event or a
    /// meeting, reading and deleting videos): not a user id, since user ids cannot hold `$`.
    package static let backendUserId = "$backend"

    /// The app's backend as an identity: it reads, edits and deletes any video and moderates
    /// meetings; it owns nothing, so it creates no video.
    package static let backend = Identity(userId: backendUserId, grants: [VideoScope.read, VideoScope.edit, VideoScope.delete, MeetingGrant.allowMod],
                                  expiresAt: .distantFuture)

    /// Whether this is the app's backend.
    package var isBackend: Bool { userId == Self.backendUserId }
}
