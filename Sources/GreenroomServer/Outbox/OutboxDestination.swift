/// Where the outbox's jobs go: a webhook endpoint, or APNs.
protocol OutboxDestination: Sendable {
    /// The scope its jobs are kept in.
    var id: String { get }
    /// Makes one attempt at `job` (held by this node).
    func deliver(_ job: OutboxJobRecord) async -> DeliveryOutcome
}

/// What one attempt came to.
enum DeliveryOutcome: Sendable {
    /// Done: the job is removed.
    case delivered
    /// Failed: tried again later, or parked after the last attempt.
    case failed(String)
    /// The destination removed or replaced the job itself (a message's push, fanned out to
    /// its recipients' devices).
    case replaced
}
