import Foundation

/// A device to register for push notifications, in the chat SDK's shape:
/// `currentUserController().addDevice(.apn(token: deviceToken))`.
public struct PushDevice: Sendable, Hashable {
    /// The push service.
    public let provider: PushProvider
    /// The token as the service gave it.
    public let token: Data

    /// An APNs device token, as `application(_:didRegisterForRemoteNotificationsWithDeviceToken:)` gives it.
    public static func apn(token: Data) -> PushDevice { PushDevice(provider: .apn, token: token) }

    /// The token as lowercase hexadecimal, the device's id.
    public var id: String { token.map { String(format: "%02x", $0) }.joined() }
}

extension CurrentUserController {
    /// Registers the device for the connected user's push notifications (taking it from
    /// another user it was registered for); returns it as stored.
    @discardableResult
    public func addDevice(_ device: PushDevice) async throws -> Device {
        try await client.send(DeviceOperation.add, args: DeviceAddArgs(id: device.id, pushProvider: device.provider))
    }

    /// The completion-handler form of ``addDevice(_:)``; `completion` runs on the main actor.
    public func addDevice(_ device: PushDevice, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { try await self.addDevice(device) }
    }

    /// Unregisters one of the connected user's devices by its id (the token in hexadecimal).
    public func removeDevice(id: String) async throws {
        let _: EmptyResult = try await client.send(DeviceOperation.remove, args: DeviceRef(id: id))
    }

    /// The completion-handler form of ``removeDevice(id:)``; `completion` runs on the main actor.
    public func removeDevice(id: String, completion: (@MainActor @Sendable ((any Error)?) -> Void)?) {
        complete(completion) { try await self.removeDevice(id: id) }
    }

    /// The connected user's registered devices, oldest first.
    public func devices() async throws -> [Device] {
        try await client.send(DeviceOperation.list, args: EmptyResult())
    }
}
