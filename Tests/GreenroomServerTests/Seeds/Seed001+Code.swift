// Seed 001 (VideoSDK, "Invite Guest on Stage - iOS"): the guide's controller, verbatim but
// for the vendor prefix (`VideoSDKRTC.` → `Greenroom.`). Not here: the SwiftUI views
// (`ParticipantListView`, `LiveStreamView`), which need SwiftUI.
// Changes beyond the prefix, each marked `// Port:` below:
// - `@MainActor` on the class: the SDK's listener protocols are main-actor isolated and
//   `Sendable` (the SDK holds listeners from any thread and calls them on the main actor),
//   so a conforming class must be one the compiler knows is used on the main actor only;
// - the stored properties the guide uses but does not show (`meeting`, `participants`, …);
// - the guide's two `extension LiveStreamViewController: MeetingEventListener` blocks
//   ("//..." between them) are one block: Swift refuses a conformance declared twice.
import Foundation
import Greenroom

@MainActor // Port: the one word Swift 6 asks for (see above).
class LiveStreamViewController: ObservableObject {
@Published var showAlert = false
@Published var alertTitle = ""
@Published var alertMessage = ""
@Published var showActionButtons = false

// Port: state the guide keeps elsewhere in its controller.
var meeting: Meeting?
var participants: [Participant] = []
var requestFrom: String?

func showHostRequestAlert(participantId: String, participantName: String) {
self.alertTitle = "Host Request"
self.alertMessage =
"\(participantName) has requested to become the host. Do you accept?"
self.showAlert = true
self.showActionButtons = true
}

// sendTheHostRequest implementation to send request
func sendTheHostRequest(_ participant: Participant) {
let message = "Request for mode change your mode"
let senderName = participants.first?.displayName ?? "Unknown"
let senderId = participants.first?.id ?? "Unknown"
let payload = [
"receiverId": participant.id,
"senderName": senderName,
"senderId": senderId,
]
Task {
do {
try await self.meeting?.pubsub.publish(
topic: "HOSTREQUESTED",
message: message,
options: [:],
payload: payload
)
} catch {
print("Error while sending request to become host: \(error)")
}
}
}

func acceptHostChange() {
let senderName = participants.first?.displayName ?? "Unknown"
let recvID = requestFrom ?? "Unknown"
let payload = [ "receiverId": recvID, "accpeterName": senderName ]
Task {
await meeting?.changeMode(.SEND_AND_RECV)
do {
try await self.meeting?.pubsub.publish(
topic: "ACK",
message: "ACCEPTED",
options: [:],
payload: payload)
} catch { print("Error while accepting host request: \(error)") }
}
}

func declineHostChange() {
let senderName = participants.first?.displayName ?? "Unknown"
let recvID = requestFrom ?? "Unknown"
let payload = [ "receiverId": recvID, "accpeterName": senderName ]
Task {
do {
try await self.meeting?.pubsub.publish(
topic: "ACK",
message: "DECLINED",
options: [:],
payload: payload)
} catch { print("Error in declining host request: \(error)") }
}
}
}

extension LiveStreamViewController: MeetingEventListener {

func onMeetingJoined() {
//... subscribing the event of pubsub while joining the meeting to get the messages...
Task {
await meeting?.pubsub.subscribe(topic: "HOSTREQUESTED", forListener: self)
await meeting?.pubsub.subscribe(topic: "ACK", forListener: self)
}
}
// Port: the guide's second extension (Step 4), merged into this one.
func onParticipantModeChanged(participantId: String, mode: Greenroom.Mode) {
let participant = self.participants.first { $0.id == participantId }
if participant != nil {
DispatchQueue.main.async {
if (participant?.mode == .SEND_AND_RECV) {
participant?.pin()
} else {
participant?.unpin()
}
//...
}
}
}
}

extension LiveStreamViewController: PubSubMessageListener {
func onMessageReceived(_ message: Greenroom.PubSubMessage) {
print("Message Received:= " + message.message)
switch message.topic {
//... other cases
case "HOSTREQUESTED":
if message.senderId != participants.first?.id {
let json = message.payload
if !json.isEmpty {
if let participantId = json["receiverId"] as? String,
let participantName = json["senderName"] as? String
{
self.requestFrom = json["senderId"] as? String
if participantId == participants.first?.id {
DispatchQueue.main.async {
self.showHostRequestAlert(
participantId: participantId,
participantName: participantName
)
}
}
}
}
}
case "ACK":
let json = message.payload
if !json.isEmpty {
if let toSendTo = json["receiverId"] as? String,
let toPrintName = json["accpeterName"] as? String
{
if toSendTo == participants.first?.id {
if message.message == "ACCEPTED" {
DispatchQueue.main.async {
self.alertTitle = "Host Request Accepted"
self.alertMessage =
"The request to become the host has been accepted by \(toPrintName)."
self.showAlert = true
self.showActionButtons = false
}
} else if message.message == "DECLINED" {
DispatchQueue.main.async {
self.alertTitle = "Host Request Rejected"
self.alertMessage =
"The request to become the host has been declined by \(toPrintName)."
self.showAlert = true
self.showActionButtons = false
}
}
}
}
}
default: break
}
}
}
