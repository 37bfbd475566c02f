import Foundation
import Greenroom
import Observation

/// Seed 001's invite-on-stage exchange in three calls: the host ``request(_:)``s a viewer
/// (on `HOSTREQUESTED`, sent only to the viewer); the viewer ``accept()``s (changes its mode
/// to `SEND_AND_RECV` and answers `ACCEPTED` on `ACK`) or ``decline()``s (`DECLINED`). Every
/// client pins a participant that moved to `SEND_AND_RECV`, and unpins one that left it.
///
/// The alert state is observable, as the seed's `LiveStreamViewController` shows it:
/// ```swift
/// .alert(invitation.alertTitle, isPresented: $invitation.showAlert) {
///     if invitation.showActionButtons {
///         Button("Accept") { Task { try await invitation.accept() } }
///         Button("Decline") { Task { try await invitation.decline() } }
///     }
/// } message: { Text(invitation.alertMessage) }
/// ```
@MainActor
@Observable
public final class StageInvitation: MeetingEventListener, PubSubMessageListener {
    /// The topic of requests.
    public static let requestTopic = "HOSTREQUESTED"
    /// The topic of answers.
    public static let answerTopic = "ACK"

    /// Whether an alert is up.
    public var showAlert = false
    /// The alert's title.
    public private(set) var alertTitle = ""
    /// The alert's text.
    public private(set) var alertMessage = ""
    /// Whether the alert offers Accept and Decline (a request), or only Okay (an answer).
    public private(set) var showActionButtons = false
    /// Who asked the local participant on stage.
    public private(set) var requestFrom: String?

    /// The meeting.
    @ObservationIgnored public let meeting: Meeting
    /// The participant list that shows requested tags, if any.
    @ObservationIgnored public weak var participantList: ParticipantListViewModel?

    /// Makes the helper; ``start()`` subscribes it.
    public init(meeting: Meeting, participantList: ParticipantListViewModel? = nil) {
        self.meeting = meeting
        self.participantList = participantList
    }

    /// Subscribes to the two topics and the meeting's events.
    public func start() async {
        meeting.addEventListener(self)
        await meeting.pubsub.subscribe(topic: Self.requestTopic, forListener: self)
        await meeting.pubsub.subscribe(topic: Self.answerTopic, forListener: self)
    }

    private var me: Participant { meeting.localParticipant }

    /// Asks `participant` on stage; only it receives the request.
    public func request(_ participant: Participant) async throws {
        participantList?.markRequested(participant.id)
        try await meeting.pubsub.publish(
            topic: Self.requestTopic, message: "Request for mode change your mode", options: PubSubPublishOptions(sendOnly: [participant.id]),
            payload: ["receiverId": .string(participant.id), "senderName": .string(me.displayName), "senderId": .string(me.id)])
    }

    /// Accepts the last request: goes on stage and tells the requester. When the mode does
    /// not change (the server refused it, or this participant is on stage already), nothing is
    /// sent and the refusal is thrown; the request stays, to be declined.
    public func accept() async throws {
        showAlert = false
        try await meeting.changeMode(to: .SEND_AND_RECV)
        try await answer("ACCEPTED")
    }

    /// Declines the last request and tells the requester.
    public func decline() async throws {
        showAlert = false
        try await answer("DECLINED")
    }

    private func answer(_ word: String) async throws {
        guard let requester = requestFrom else { return }
        requestFrom = nil
        try await meeting.pubsub.publish(
            topic: Self.answerTopic, message: word, options: PubSubPublishOptions(sendOnly: [requester]),
            payload: ["receiverId": .string(requester), "accpeterName": .string(me.displayName)])
    }

    /// Shows a request addressed to the local participant, or the answer to one it sent.
    public func onMessageReceived(_ message: PubSubMessage) {
        guard message.payload["receiverId"]?.stringValue == me.id, message.senderId != me.id else { return }
        switch message.topic {
        case Self.requestTopic:
            requestFrom = message.payload["senderId"]?.stringValue ?? message.senderId
            let name = message.payload["senderName"]?.stringValue ?? message.senderName
            alertTitle = "Host Request"
            alertMessage = "\(name) has requested to become the host. Do you accept?"
            showActionButtons = true
            showAlert = true
        case Self.answerTopic:
            let name = message.payload["accpeterName"]?.stringValue ?? message.senderName
            participantList?.clearRequested(message.senderId)
            if message.message == "ACCEPTED" {
                alertTitle = "Host Request Accepted"
                alertMessage = "The request to become the host has been accepted by \(name)."
            } else {
                alertTitle = "Host Request Rejected"
                alertMessage = "The request to become the host has been declined by \(name)."
            }
            showActionButtons = false
            showAlert = true
        default:
            break
        }
    }

    /// Pins a participant that went on stage (`SEND_AND_RECV`), unpins one that left it.
    public func onParticipantModeChanged(participantId: String, mode: Mode) {
        guard let participant = meeting.participants.first(where: { $0.id == participantId }) else { return }
        if participant.mode == .SEND_AND_RECV { participant.pin() } else { participant.unpin() }
    }
}
