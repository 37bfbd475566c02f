import Foundation
import GreenroomProtocol
import GreenroomStorage

/// A user's push device, in the user's scope, sorted by registration time.
package struct DeviceRecord: StoredRecord {
    package static let recordKind = "device"
    package var userId: String
    package var device: Device

    package var recordScope: String { userId }
    package var recordId: String { device.id }
    package var recordSort: Int64 { Int64((device.createdAt.timeIntervalSince1970 * 1000).rounded()) }
}

/// Who holds a push token now: a token belongs to one user at a time (the app on a phone is
/// signed in as one user), so registering it moves it.
package struct DeviceOwnerRecord: StoredRecord {
    package static let recordKind = "device-owner"
    package var token: String
    package var userId: String

    package var recordId: String { token }
}

extension UserService {
    /// Registers `args` for `userId`, in one transaction: taken from another user that had
    /// it, and the user's oldest removed past ``DeviceOperation/maxPerUser``.
    package func addDevice(_ args: DeviceAddArgs, userId: String) async throws -> Device {
        let token = args.id.lowercased()
        guard (16...200).contains(token.count), token.count % 2 == 0, token.allSatisfy(\.isHexDigit), token.allSatisfy(\.isASCII) else {
            throw GreenroomError(.invalidParameterValue, "id must be the push token in hexadecimal: an even number of 16–200 hex digits")
        }
        let device = Device(id: token, pushProvider: args.pushProvider, createdAt: Date())
        try await events.transact { transaction in
            guard try await transaction.user(id: userId) != nil else { throw GreenroomError(.notFound, "no user with id \(userId)") }
            if let owner = try await transaction.load(DeviceOwnerRecord.self, id: token), owner.userId != userId {
                try await transaction.remove(DeviceRecord.self, scope: owner.userId, id: token)
            }
            try await transaction.save(DeviceRecord(userId: userId, device: device))
            try await transaction.save(DeviceOwnerRecord(token: token, userId: userId))
            let all = try await transaction.list(DeviceRecord.self, RecordQuery(kind: DeviceRecord.recordKind, scope: userId))
            for old in all.dropLast(DeviceOperation.maxPerUser) where old.device.id != token {
                try await transaction.remove(DeviceRecord.self, scope: userId, id: old.device.id)
                try await transaction.remove(DeviceOwnerRecord.self, id: old.device.id)
            }
        }
        return device
    }

    /// Unregisters one of `userId`'s devices.
    package func removeDevice(_ id: String, userId: String) async throws {
        let token = id.lowercased()
        try await events.transact { transaction in
            guard try await Self.forgetDevice(token, of: userId, in: transaction) else {
                throw GreenroomError(.notFound, "\(userId) has no device \(id)")
            }
        }
    }

    /// Removes `userId`'s device `token` (and its owner record, when it is theirs) in
    /// `transaction`; returns whether the user had it. Shared by the user's own removal and
    /// APNs saying the token is gone.
    @discardableResult
    package static func forgetDevice(_ token: String, of userId: String, in transaction: any StorageTransaction) async throws -> Bool {
        guard try await transaction.remove(DeviceRecord.self, scope: userId, id: token) else { return false }
        if try await transaction.load(DeviceOwnerRecord.self, id: token)?.userId == userId {
            try await transaction.remove(DeviceOwnerRecord.self, id: token)
        }
        return true
    }

    /// `userId`'s devices, oldest first.
    package func devices(of userId: String) async throws -> [Device] {
        try await storage.list(DeviceRecord.self, RecordQuery(kind: DeviceRecord.recordKind, scope: userId)).map(\.device)
    }
}
