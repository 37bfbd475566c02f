import Foundation
import GreenroomProtocol
@testable import GreenroomServer
import Testing

/// The OpenAPI document and the server agree: every route the router has is in the document,
/// and every operation of the document is a route.
@Suite("OpenAPI: the REST API's contract", .wholeRun)
struct OpenAPITests {
    /// The repository's docs/openapi.json.
    static var repositoryCopy: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/openapi.json")
    }

    @Test("nullable fields are written the way swift-openapi-generator keeps them: \"type\": [T, \"null\"], never a null branch of anyOf or oneOf, nor 3.0's nullable")
    func nullablesGeneratorsKeep() throws {
        let document = try RawJSON(json: Data(contentsOf: Self.repositoryCopy))
        var dropped: [String] = []
        func walk(_ value: RawJSON, _ path: String) {
            if let object = value.dictionaryValue {
                for key in ["anyOf", "oneOf"] {
                    if let branches = object[key]?.arrayValue, branches.contains(where: { $0["type"]?.stringValue == "null" }) {
                        dropped.append("\(path)/\(key)")
                    }
                }
                if object["nullable"] != nil { dropped.append("\(path)/nullable") }
                for (key, child) in object { walk(child, "\(path)/\(key)") }
            } else if let array = value.arrayValue {
                for (index, child) in array.enumerated() { walk(child, "\(path)/\(index)") }
            }
        }
        walk(document, "")
        #expect(dropped.isEmpty, "the generator drops these fields: \(dropped)")
        // Every page's cursor is one of them, and is there.
        for page in ["ChannelPage", "UserPage", "VideoPage", "LiveEventPage", "MeetingPage", "WebhookDeliveryPage"] {
            let types = document["components"]?["schemas"]?[page]?["properties"]?["next"]?["type"]?.arrayValue?.compactMap(\.stringValue)
            #expect(types == ["string", "null"], "\(page)")
        }
    }

    @Test("GET /openapi.json serves docs/openapi.json; its operations and the router's routes are the same set; every operation has an id, a default error answer and a known security scheme")
    func agreesWithRouter() async throws {
        try await withServer { server in
            let (status, served) = try await server.rest("GET", "/openapi.json", key: "")
            #expect(status == 200)
            let file = try RawJSON(json: try Data(contentsOf: Self.repositoryCopy))
            #expect(served == file, "docs/openapi.json and the served document differ: run scripts/embed-openapi")
            #expect(served["openapi"]?.stringValue == "3.1.0")

            var documented = Set<String>()
            let methods = ["get", "put", "post", "patch", "delete"]
            let schemes = Set(served["components"]?["securitySchemes"]?.dictionaryValue?.keys.map { $0 } ?? [])
            for (path, item) in served["paths"]?.dictionaryValue ?? [:] {
                for method in methods {
                    guard let operation = item[method] else { continue }
                    documented.insert("\(method.uppercased()) \(path)")
                    #expect(operation["operationId"]?.stringValue?.isEmpty == false, "\(method) \(path) has no operationId")
                    #expect(operation["responses"]?["default"]?["content"]?["application/json"] != nil, "\(method) \(path) has no error answer")
                    for requirement in operation["security"]?.arrayValue ?? [] {
                        for name in requirement.dictionaryValue?.keys.map({ $0 }) ?? [] { #expect(schemes.contains(name), "\(name)") }
                    }
                }
            }
            let routed = Set(server.server.core.buildRouter().routes.map { route in
                "\(route.method.rawValue) \(route.path.description.hasPrefix("/") ? "" : "/")\(route.path)"
            })
            #expect(routed.count >= 40, "\(routed.count) routes")
            #expect(routed.subtracting(documented).isEmpty, "routes the document lacks: \(routed.subtracting(documented).sorted())")
            #expect(documented.subtracting(routed).isEmpty, "operations no route serves: \(documented.subtracting(routed).sorted())")
        }
    }
}
