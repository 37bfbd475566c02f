// Seed 002 (Stream Chat, "Extra Data"): the page's code, verbatim but for the vendor
// prefix (`StreamDateFormatter` → `GreenroomDateFormatter`). Its snippets are wrapped in
// functions so that they run. Changes beyond the prefix, each marked `// Port:` below:
// - `GreenroomDateFormatter.date(from:)` returns `nil` for a string that is not a date, as
//   the vendor's formatter does; `BookingFlight.init?(extraData:)` unwraps it with `guard`
//   (the page assigns it to a `Date`, which compiles only against a formatter that makes
//   up a date for bad input).
// - The page's second ticket literal has a stray `)` (`])` closing a `[`); dropped.
// - Its last snippet puts a `[String: RawJSON]` where a `RawJSON` goes; Swift (and the
//   vendor's SDK) needs `.dictionary(…)` around it.
import Foundation
import Greenroom

func seed002UpdateEmail(client: ChatClient) {
let currentUserController = client.currentUserController()
currentUserController.updateUserData(
name: "John Doe",
imageURL: nil,
userExtraData: ["email": .string("john.doe@example.com")],
completion: nil
)
}

func seed002SendTicket(client: ChatClient, yourChannelId: ChannelId) {
let extraData: [String: RawJSON] = [
"ticket": .dictionary([
"name": .string("Rock Concert"),
"price": .double(20)
])
]
let channelController = client.channelController(for: yourChannelId)
channelController.createNewMessage(text: "A new message", extraData: extraData)
}

func seed002TicketLiteral() -> [String: RawJSON] {
let extraData: [String: RawJSON] = [
"ticket": [
"name": .string("Rock Concert"),
"price": .double(20)
] // Port: the page's `])` here does not parse.
]
return extraData
}

func seed002Email(user: ChatUser) -> String {
let email = user.extraData["email"]?.stringValue ?? ""
print(email)
return email
}

func seed002EmailBefore419(user: ChatUser) -> String {
let extraData = user.extraData
var email: String {
guard case .string(let value) = extraData["email"] else { return "" }
return value
}
return email
}

extension ChatUser {
var email: String? {
extraData["email"]?.stringValue
}
}

func seed002Ticket(message: ChatMessage) -> (String, Double) {
let ticket = message.extraData["ticket"]?.dictionaryValue
let name = ticket?["name"]?.stringValue ?? ""
let price = ticket?["price"]?.doubleValue ?? 0.0
return (name, price)
}

struct BookingFlight {
let flightNumber: Double
let departureDate: Date
let arrivalDate: Date
let price: Double
let passengers: [Passenger]
let destinations: [String]
}
struct Passenger {
let name: String
let age: Int
}

extension Passenger {
init?(extraData: [String: RawJSON]) {
guard let name = extraData["name"]?.stringValue else { return nil }
guard let age = extraData["age"]?.numberValue else { return nil }
self.name = name
self.age = Int(age)
}
func toExtraData() -> [String: RawJSON] {
[
"name": .string(name),
"age": .number(Double(age))
]
}
}
extension BookingFlight {
init?(extraData: [String: RawJSON]) {
guard let flightNumber = extraData["flightNumber"]?.numberValue else { return nil }
guard let price = extraData["price"]?.numberValue else { return nil }
guard let departureDate = extraData["departureDate"]?.stringValue else { return nil }
guard let arrivalDate = extraData["arrivalDate"]?.stringValue else { return nil }
let destinations = extraData["destinations"]?.stringArrayValue ?? []
let passengers = extraData["passengers"]?.arrayValue?
.compactMap(\.dictionaryValue)
.compactMap(Passenger.init(extraData:))
?? []
self.flightNumber = flightNumber
self.price = price
// Port: the formatter returns nil for a string that is not a date.
guard let departureDate = GreenroomDateFormatter.date(from: departureDate) else { return nil }
guard let arrivalDate = GreenroomDateFormatter.date(from: arrivalDate) else { return nil }
self.departureDate = departureDate
self.arrivalDate = arrivalDate
self.destinations = destinations
self.passengers = passengers
}
func toExtraData() -> [String: RawJSON] {
[
"flightNumber": .number(flightNumber),
"departureDate": .string(
GreenroomDateFormatter.dateString(from: departureDate)
),
"arrivalDate": .string(
GreenroomDateFormatter.dateString(from: arrivalDate)
),
"price": .double(price),
"destinations": .array(destinations.map(RawJSON.string)),
"passengers": .array(
passengers
.map( { $0.toExtraData() })
.map(RawJSON.dictionary)
)
]
}
}

extension ChatMessage {
var bookingFlight: BookingFlight? {
guard let extraData = extraData["flight"]?.dictionaryValue else { return nil }
return BookingFlight(extraData: extraData)
}
}

func seed002SendBooking(client: ChatClient, yourChannelId: ChannelId, bookingFlight: BookingFlight) {
let extraData: [String: RawJSON] = ["flight": .dictionary(bookingFlight.toExtraData())] // Port: `.dictionary(…)`
let channelController = client.channelController(for: yourChannelId)
channelController.createNewMessage(text: "A new message", extraData: extraData)
}

// Not in the seed: compared in the test.
extension BookingFlight: Equatable {}
extension Passenger: Equatable {}
