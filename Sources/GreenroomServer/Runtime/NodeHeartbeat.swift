import Foundation
import GreenroomCore
import GreenroomStorage
import Logging
import ServiceLifecycle

/// A node as it last told the others: kept in the shared store, so that every node (and
/// the console's dashboard, through `GET /v1/nodes`) can list the cluster's nodes and their
/// connections.
struct NodeRecord: StoredRecord, Codable, Hashable {
    static let recordKind = "node"
    /// The node's id.
    var id: String
    /// Its WebSocket connections when it last wrote.
    var connections: Int
    /// When it started.
    var startedAt: Date
    /// When it last wrote: a node not heard of for ``NodeHeartbeatService/listedFor`` is
    /// not listed, and its record is removed an hour later.
    var seenAt: Date

    var recordId: String { id }
}

/// The nodes seen lately, for `GET /v1/nodes`.
struct NodeList: Codable, Sendable {
    /// The nodes, by id.
    var items: [NodeRecord]
}

/// Writes this node's ``NodeRecord`` at start and every ``interval``, removes the records of
/// nodes gone for an hour, and removes its own when the node shuts down.
///
/// It writes to the storage directly, in a transaction of its own, not through the node's
/// writer (``EventLog``): its record is no change of a client's, so it neither takes a place
/// in the writer's bounded queue, which clients' changes fill and are refused past, nor is
/// refused itself while that queue is full.
struct NodeHeartbeatService: Service {
    let core: ServerCore
    /// How often the record is written.
    static let interval: Duration = .seconds(5)
    /// How long after its last write a node is still listed.
    static let listedFor: TimeInterval = 20
    /// How long after its last write a node's record is removed.
    static let removedAfter: TimeInterval = 3_600

    func run() async throws {
        let started = Date()
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await beat(started: started)
                } catch {
                    core.logger.warning("could not write this node's heartbeat: \(error)")
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
        try? await write { transaction in
            try await transaction.remove(NodeRecord.self, id: core.nodeId)
        }
    }

    /// Runs `body` as one transaction of the storage.
    private func write(_ body: @escaping @Sendable (any StorageTransaction) async throws -> Void) async throws {
        _ = try await core.storage.write([WriteStep(isolated: false, body)], retentionCount: core.configuration.retentionCount)
    }

    private func beat(started: Date) async throws {
        let now = Date()
        let record = NodeRecord(id: core.nodeId, connections: core.metrics.connections, startedAt: started, seenAt: now)
        let gone = try await core.storage.list(NodeRecord.self, RecordQuery(kind: NodeRecord.recordKind, limit: 1_000))
            .filter { $0.id != core.nodeId && now.timeIntervalSince($0.seenAt) > Self.removedAfter }
        try await write { transaction in
            try await transaction.save(record)
            for node in gone { try await transaction.remove(NodeRecord.self, id: node.id) }
        }
    }

    /// The nodes that wrote within ``listedFor``, by id; the node asked answers for itself
    /// with what it holds now rather than its last heartbeat.
    static func listed(by core: ServerCore, now: Date = Date()) async throws -> [NodeRecord] {
        var nodes = try await core.storage.list(NodeRecord.self, RecordQuery(kind: NodeRecord.recordKind, limit: 1_000))
            .filter { now.timeIntervalSince($0.seenAt) <= listedFor && $0.id != core.nodeId }
        let started = try await core.storage.load(NodeRecord.self, id: core.nodeId)?.startedAt ?? now
        nodes.append(NodeRecord(id: core.nodeId, connections: core.metrics.connections, startedAt: started, seenAt: now))
        return nodes.sorted { $0.id < $1.id }
    }
}
