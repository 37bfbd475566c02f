import Foundation
import Greenroom
import Testing

/// The error a call was refused with, or `nil` when it succeeded (or failed otherwise).
func refusal(_ body: () async throws -> Void) async -> ErrorCode? {
    do {
        try await body()
        return nil
    } catch let error as GreenroomError {
        return error.errorCode
    } catch {
        Issue.record("unexpected error: \(error)")
        return nil
    }
}

extension TestServer {
    /// Connected SDK clients for each user (which creates the users).
    func clients(_ users: [String]) async throws -> [String: GreenroomClient] {
        var clients: [String: GreenroomClient] = [:]
        for user in users { clients[user] = try await client(user) }
        return clients
    }

    /// Creates users over REST (without connecting them).
    func createUsers(_ ids: [String]) async throws {
        for id in ids {
            let (status, body) = try await rest("POST", "/v1/users", body: ["id": .string(id)])
            #expect(status == 201, "\(body)")
        }
    }
}

/// Collects chat events from a controller until `predicate` holds for what was collected.
func chatEvents(_ stream: AsyncStream<ChatEvent>, timeout: Duration = .seconds(30), until predicate: @escaping @Sendable ([ChatEvent]) -> Bool) async throws -> [ChatEvent] {
    try await withTimeout(timeout, "chat events") {
        var seen: [ChatEvent] = []
        for await event in stream {
            seen.append(event)
            if predicate(seen) { break }
        }
        return seen
    }
}

/// The seed's booking example: nested extra data with numbers, dates, strings and arrays.
struct Passenger: Equatable {
    let name: String
    let age: Int

    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }

    init?(extraData: [String: RawJSON]) {
        guard let name = extraData["name"]?.stringValue else { return nil }
        guard let age = extraData["age"]?.numberValue else { return nil }
        self.name = name
        self.age = Int(age)
    }

    func toExtraData() -> [String: RawJSON] {
        ["name": .string(name), "age": .number(Double(age))]
    }
}

struct BookingFlight: Equatable {
    let flightNumber: Double
    let departureDate: Date
    let arrivalDate: Date
    let price: Double
    let passengers: [Passenger]
    let destinations: [String]

    init(flightNumber: Double, departureDate: Date, arrivalDate: Date, price: Double, passengers: [Passenger], destinations: [String]) {
        self.flightNumber = flightNumber
        self.departureDate = departureDate
        self.arrivalDate = arrivalDate
        self.price = price
        self.passengers = passengers
        self.destinations = destinations
    }

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
        self.departureDate = GreenroomDateFormatter.date(from: departureDate)
        self.arrivalDate = GreenroomDateFormatter.date(from: arrivalDate)
        self.destinations = destinations
        self.passengers = passengers
    }

    func toExtraData() -> [String: RawJSON] {
        [
            "flightNumber": .number(flightNumber),
            "departureDate": .string(GreenroomDateFormatter.dateString(from: departureDate)),
            "arrivalDate": .string(GreenroomDateFormatter.dateString(from: arrivalDate)),
            "price": .double(price),
            "destinations": .array(destinations.map(RawJSON.string)),
            "passengers": .array(passengers.map { $0.toExtraData() }.map(RawJSON.dictionary)),
        ]
    }
}

extension ChatMessage {
    var bookingFlight: BookingFlight? {
        guard let extraData = extraData["flight"]?.dictionaryValue else { return nil }
        return BookingFlight(extraData: extraData)
    }
}
