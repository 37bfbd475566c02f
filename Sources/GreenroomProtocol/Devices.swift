import Foundation

/// The push service a device is reached through.
public enum PushProvider: String, Codable, Sendable, Hashable {
    /// Apple Push Notification service.
    case apn
}

/// A device registered for push notifications of its user, while the app is not connected.
public struct Device: Codable, Sendable, Hashable, Identifiable {
    /// The push token, as lowercase hexadecimal.
    public var id: String
    /// The push service.
    public var pushProvider: PushProvider
    /// When it was registered (or registered again).
    public var createdAt: Date

    /// Makes a device.
    public init(id: String, pushProvider: PushProvider, createdAt: Date) {
        self.id = id
        self.pushProvider = pushProvider
        self.createdAt = createdAt
    }
}

/// The arguments of `device.add`.
public struct DeviceAddArgs: Codable, Sendable, Hashable {
    /// The push token as hexadecimal (APNs gives 32 bytes: 64 characters).
    public var id: String
    /// The push service.
    public var pushProvider: PushProvider

    /// Makes the arguments.
    public init(id: String, pushProvider: PushProvider) {
        self.id = id
        self.pushProvider = pushProvider
    }
}

/// The arguments of `device.remove`.
public struct DeviceRef: Codable, Sendable, Hashable {
    /// The push token as hexadecimal.
    public var id: String

    /// Makes the arguments.
    public init(id: String) { self.id = id }
}

/// The connected user's push devices, over the WebSocket.
public enum DeviceOperation {
    /// Registers a device for the connected user (moving it from another user that had it;
    /// the user's oldest goes past ``maxPerUser``): ``DeviceAddArgs`` → ``Device``.
    public static let add = WireOperation<DeviceAddArgs, Device>("device.add")
    /// Unregisters one of the connected user's devices: ``DeviceRef`` → ``EmptyResult``.
    public static let remove = WireOperation<DeviceRef, EmptyResult>("device.remove")
    /// The connected user's devices, oldest first: ``EmptyResult`` → an array of ``Device``.
    public static let list = WireOperation<EmptyResult, [Device]>("device.list")

    /// How many devices a user keeps.
    public static let maxPerUser = 25
}
