/// How far a change has gone when the server acknowledges it (`GREENROOM_DURABILITY`).
///
/// Every change is committed before it is acknowledged and before any subscriber sees its
/// events; the setting says whether the commit also waits for the disk. It applies to the
/// embedded SQLite storage. PostgreSQL accepts only ``disk``: Greenroom's connections turn
/// `synchronous_commit` on where the database has it off, and a server running with
/// `fsync=off` is logged as a warning.
public enum Durability: String, Sendable, CaseIterable, LosslessStringConvertible {
    /// Each commit waits until the disk has it (SQLite `synchronous=FULL`): an acknowledged
    /// change survives the server's process and the machine crashing, or the power going.
    /// The default.
    case disk
    /// A commit returns once the operating system has it, before the disk does (SQLite
    /// `synchronous=NORMAL`): an acknowledged change survives the server's process crashing,
    /// but a crash of the machine or a power loss can lose the changes of its last seconds.
    /// Clients are never left unaware of such a loss: a node that starts after the machine
    /// went down while changes may not have reached the disk gives every stream a new
    /// epoch, so a client resuming from a position it saw before is told `recovered: false`
    /// and reloads. Each commit costs the disk's flush less: `bench fanout --subscribers
    /// 100 --rate 1000` p50 1.6–2.2 ms with ``disk``, 1.0–1.6 ms with this (BENCHMARKS.md).
    case process

    /// Reads `disk` or `process`.
    public init?(_ description: String) {
        self.init(rawValue: description)
    }

    /// `disk` or `process`.
    public var description: String { rawValue }
}
