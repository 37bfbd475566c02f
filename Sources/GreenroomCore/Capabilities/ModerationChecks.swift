import GreenroomProtocol

/// The checks every moderation call makes of what a client or the backend gives: a
/// duration within ``Limits/maxMuteSeconds`` and a reason within
/// ``Limits/maxReasonLength``, each refused with `invalidParameterValue`.
package enum ModerationChecks {
    /// Throws unless `seconds` is 1–``Limits/maxMuteSeconds`` or absent, which means
    /// until `lifted` (e.g. "unmuted").
    package static func duration(_ seconds: Int?, untilLifted lifted: String) throws {
        if let seconds, !(1...Limits.maxMuteSeconds).contains(seconds) {
            throw GreenroomError(.invalidParameterValue, "seconds must be 1–\(Limits.maxMuteSeconds), or none to last until \(lifted)")
        }
    }

    /// Throws when `reason` is longer than ``Limits/maxReasonLength``.
    package static func reason(_ reason: String?, named name: String = "reason") throws {
        if let reason, reason.count > Limits.maxReasonLength {
            throw GreenroomError(.invalidParameterValue, "\(name) must be at most \(Limits.maxReasonLength) characters")
        }
    }
}
