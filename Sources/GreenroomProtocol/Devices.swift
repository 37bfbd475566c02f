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

/// The text of the app's push notifications (`PUT /v1/push/template`), with placeholders
/// `{{channel.name}}`, `{{channel.id}}`, `{{sender.nickname}}`, `{{sender.id}}` and
/// `{{message.text}}`; a field left out keeps its default.
public struct PushTemplate: Codable, Sendable, Hashable {
    /// A message's title; default `{{channel.name}}` (the sender's nickname when the channel has no name).
    public var title: String?
    /// A message's body; default `{{sender.nickname}}: {{message.text}}`.
    public var body: String?
    /// An invitation's title; default `{{channel.name}}`.
    public var invitationTitle: String?
    /// An invitation's body; default `{{sender.nickname}} invited you`.
    public var invitationBody: String?

    /// Makes a template.
    public init(title: String? = nil, body: String? = nil, invitationTitle: String? = nil, invitationBody: String? = nil) {
        self.title = title
        self.body = body
        self.invitationTitle = invitationTitle
        self.invitationBody = invitationBody
    }
}

/// Whether a member is pushed a channel's messages while not connected (Sendbird's push
/// trigger option, `chat.setPushTrigger`).
public enum PushTriggerOption: String, Codable, Sendable, Hashable {
    /// Every message (the default).
    case all
    /// None.
    case off
    /// Only messages that mention the user (Sendbird's `mentionOnly`).
    case mentionOnly
}

/// The arguments of `chat.setPushTrigger`.
public struct PushTriggerArgs: Codable, Sendable, Hashable {
    /// The channel.
    public var channelId: ChannelId
    /// The option.
    public var option: PushTriggerOption

    /// Makes the arguments.
    public init(channelId: ChannelId, option: PushTriggerOption) {
        self.channelId = channelId
        self.option = option
    }
}

/// The connected user's push settings per channel, over the WebSocket.
public enum PushOperation {
    /// Sets whether the connected member is pushed a channel's messages: ``PushTriggerArgs``
    /// → ``EmptyResult``. The member must have joined the channel.
    public static let setTrigger = WireOperation<PushTriggerArgs, EmptyResult>("chat.setPushTrigger")
    /// The connected member's option for a channel: ``ChannelRef`` → ``PushTriggerArgs``.
    public static let getTrigger = WireOperation<ChannelRef, PushTriggerArgs>("chat.getPushTrigger")
}
